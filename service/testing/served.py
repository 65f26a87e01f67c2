"""A real ``gameroom serve`` for tests: its own process and session, a free port, a folder of its own.

The one server starter of the test suite (browser tests, whole-server worker
tests, the fuzz run, live streams, CORS, the CLI's own tests). Used where the
Flask test client is not enough: a real browser, chunked request bodies (the
WSGI server decides how they are read), many concurrent clients, AI workers.

It runs the command as a user does: ``cwd`` is ``folder``, so with no
``redis_url`` the embedded Redis keeps its data in ``folder/var`` (the
default ``./var``); no GAMEROOM_* variable of the test run leaks in, only
``env``. ``with Served(folder) as server: server.base``, or ``start()`` and
``stop()`` (the exit code; SIGINT to its process group, as Ctrl-C).

``env`` points it at an external Redis instead of the embedded one:
``Served(folder, env={"GAMEROOM_REDIS_URL": cluster.url, "GAMEROOM_QUEUE_REDIS_URL": queue_url})``
(``tests/cluster/test_http_on_cluster.py``).
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
from typing import Any

GAMEROOM = Path(sys.executable).with_name("gameroom")


def http_json(
    method: str, url: str, body=None, token: str | None = None, timeout: float = 10
) -> tuple[int, Any]:
    """One JSON request to a served gameroom, as a plain client makes it: ``(status, parsed body)``;
    a 4xx or 5xx raises ``urllib.error.HTTPError``."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, json.loads(r.read())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """``gameroom serve --port <free>`` in ``folder``, logging to ``folder/<log_name>``.

    ``redis_url``: a Redis the test runs (default: the embedded one in
    ``folder/var``). ``workers``, ``ai_workers``: ``serve``'s options.
    ``ready_path``: what must answer 200 before :meth:`start` returns
    (``/api/readyz``: Redis reachable too; ``/api/healthz``: the process only).
    ``open_files``: its open-file limit, soft and hard (``ulimit -n``); None: the test run's.
    """

    def __init__(
        self,
        folder: Path,
        *,
        redis_url: str | None = None,
        workers: int = 2,
        ai_workers: int = 1,
        env: dict | None = None,
        port: int | None = None,
        ready_path: str = "/api/readyz",
        ready_timeout: float = 60,
        log_name: str = "serve.log",
        open_files: int | None = None,
    ):
        self.folder = Path(folder)
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.args = [
            "serve",
            "--port",
            str(self.port),
            "--workers",
            str(workers),
            "--ai-workers",
            str(ai_workers),
        ]
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
        if redis_url:
            self.env["GAMEROOM_REDIS_URL"] = redis_url
        self.env.update(env or {})
        self.ready_path = ready_path
        self.ready_timeout = ready_timeout
        self.log_path = self.folder / log_name
        self.open_files = open_files
        self.proc: subprocess.Popen | None = None
        self._log = None

    def start(self) -> Served:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "ab")
        # Its own session, so that stopping it stops its gunicorn and AI workers too (as Ctrl-C does).
        self.proc = subprocess.Popen(
            [str(GAMEROOM), *self.args],
            cwd=self.folder,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=self._limit_open_files if self.open_files else None,
        )
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("gameroom serve exited:\n" + self.log())
            try:
                with urllib.request.urlopen(self.base + self.ready_path, timeout=5) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("gameroom serve did not become ready:\n" + self.log())

    def _limit_open_files(self) -> None:
        """In the child: its open-file limit, soft and hard, as ``ulimit -n`` sets it."""
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def stop(self) -> int:
        """Ctrl-C (SIGINT to its process group), SIGKILL after 30 s; returns its exit code."""
        code = 0
        if self.proc is not None:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGINT)
                try:
                    self.proc.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(10)
            code = self.proc.returncode
        if self._log is not None:
            self._log.close()
            self._log = None
        return code

    def __enter__(self) -> Served:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
