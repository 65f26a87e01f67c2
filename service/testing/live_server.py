"""A real API server for tests on the test's Redis (:class:`LiveServer`), and :func:`http`.

It serves with the shipped settings (``service/serving.py``) against a Redis
the test already runs, with no AI worker; ``env`` adds GAMEROOM_* overrides
(none: the defaults a user gets). Started and stopped by
:class:`gameroom.testing.served.Served`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from .served import GAMEROOM, Served, free_port

__all__ = ["GAMEROOM", "LiveServer", "free_port", "http"]


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


class LiveServer(Served):
    """:class:`~gameroom.testing.served.Served` on the test's Redis at ``redis_url``: one HTTP
    worker, no AI worker, ready once the process answers ``/api/healthz``, logging to
    ``serve-<port>.log`` in ``workdir``."""

    def __init__(
        self,
        redis_url: str,
        workdir: Path,
        env: dict | None = None,
        port: int | None = None,
        open_files: int | None = None,
    ):
        port = port or free_port()
        super().__init__(
            workdir,
            redis_url=redis_url,
            workers=1,
            ai_workers=0,
            env=env,
            port=port,
            ready_path="/api/healthz",
            log_name=f"serve-{port}.log",
            open_files=open_files,
        )
        self.redis_url = redis_url
