"""A real ``gameroom serve`` for tests: its own process, free port, embedded Redis in a temp folder.

Used where the Flask test client is not enough: chunked request bodies (the
WSGI server decides how they are read), many concurrent clients, and the
schemathesis fuzz run. ``with Served(folder) as server: server.base``.

``env`` points it at an external Redis instead of the embedded one:
``Served(folder, env={"GAMEROOM_REDIS_URL": cluster.url, "GAMEROOM_QUEUE_REDIS_URL": queue_url})``
(``tests/cluster/test_http_on_cluster.py``).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """``gameroom serve --port <free>`` in ``folder`` (its data folder and log), stopped on exit."""

    def __init__(
        self,
        folder: Path,
        *,
        workers: int = 2,
        ai_workers: int = 1,
        env: dict | None = None,
        ready_timeout: float = 60,
    ):
        self.folder = Path(folder)
        self.port = free_port()
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
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")},
            "GAMEROOM_DATA_DIR": str(self.folder / "var"),
            **(env or {}),
        }
        self.ready_timeout = ready_timeout
        self.log_path = self.folder / "serve.log"
        self.proc = None

    def __enter__(self) -> Served:
        gameroom = Path(sys.executable).with_name("gameroom")
        self.folder.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "ab")
        # Its own session, so that stopping it stops its gunicorn and AI workers too.
        self.proc = subprocess.Popen(
            [str(gameroom), *self.args],
            cwd=self.folder,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("gameroom serve exited:\n" + self.log())
            try:
                with urllib.request.urlopen(self.base + "/api/readyz", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.__exit__(None, None, None)
        raise RuntimeError("gameroom serve did not become ready:\n" + self.log())

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
