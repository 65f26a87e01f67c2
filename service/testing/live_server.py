"""A real API server for tests: ``gameroom serve`` (gunicorn, gevent workers) on a free port.

It serves with the shipped settings (``service/serving.py``) against a Redis
the test already runs, with no AI worker; ``env`` adds GAMEROOM_* overrides
(none: the defaults a user gets). Stopped by its PID (SIGINT, as Ctrl-C).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

GAMEROOM = Path(sys.executable).with_name("gameroom")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(
    method: str,
    url: str,
    body=None,
    token: str | None = None,
    headers: dict | None = None,
    timeout: float = 30,
):
    """``(status, JSON body)`` of one request (errors too)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as err:
        raw = err.read()
        return err.code, json.loads(raw) if raw else None


class LiveServer:
    def __init__(self, redis_url: str, workdir: Path, env: dict | None = None, port: int | None = None):
        self.redis_url = redis_url
        self.workdir = Path(workdir)
        self.env = env or {}
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self, timeout: float = 60) -> LiveServer:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
        env.update({"GAMEROOM_REDIS_URL": self.redis_url, **self.env})
        self.log_path = self.workdir / f"serve-{self.port}.log"
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [str(GAMEROOM), "serve", "--port", str(self.port), "--workers", "1", "--ai-workers", "0"],
            cwd=self.workdir,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if http("GET", self.base + "/api/healthz", timeout=2)[0] == 200:
                    return self
            except OSError:
                time.sleep(0.1)
            if self.proc.poll() is not None:
                raise AssertionError("server exited:\n" + self.log())
        self.stop()
        raise AssertionError("server did not answer:\n" + self.log())

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            return self.proc.wait(10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
