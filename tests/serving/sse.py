"""Raw Server-Sent Events clients for the serving tests: plain sockets, many at once; and the
tic-tac-toe matches they watch, made and played over HTTP."""

from __future__ import annotations

import re
import selectors
import socket
import time

from gameroom.testing.live_server import http

_ID = re.compile(rb"^id: (\d+)$", re.M)


class RawStream:
    """One ``GET …/stream`` over HTTP/1.0 (no chunked framing): the body is the SSE text; with
    ``version="1.1"`` the body is chunked (the chunk sizes are in ``body``, on lines of their own)."""

    def __init__(self, port: int, path: str, headers: dict | None = None, version: str = "1.0"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        lines = [f"GET {path} HTTP/{version}", "Host: 127.0.0.1", "Accept: text/event-stream"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.sock.setblocking(False)
        self.data = b""
        self.closed = False

    def feed(self) -> None:
        try:
            chunk = self.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            self.closed = True
            return
        if not chunk:
            self.closed = True
        self.data += chunk

    @property
    def status(self) -> int | None:
        head = self.data.split(b"\r\n", 1)[0]
        return int(head.split()[1]) if head.startswith(b"HTTP/") and b"\r\n" in self.data else None

    @property
    def body(self) -> bytes:
        return self.data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in self.data else b""

    def ids(self) -> list[int]:
        return [int(m) for m in _ID.findall(self.body)]

    def close(self) -> None:
        self.sock.close()


def pump(streams, until, timeout: float = 30.0) -> bool:
    """Read every stream until ``until()`` is true (True) or ``timeout`` seconds pass (False)."""
    selector = selectors.DefaultSelector()
    for s in streams:
        if not s.closed:
            selector.register(s.sock, selectors.EVENT_READ, s)
    deadline = time.monotonic() + timeout
    try:
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in selector.select(min(left, 0.5)):
                key.data.feed()
                if key.data.closed:
                    selector.unregister(key.fileobj)
        return True
    finally:
        selector.close()


def new_match(server) -> tuple[str, dict[int, str]]:
    """A new tic-tac-toe match on ``server``: its id and the seats' tokens."""
    status, created = http(
        "POST", server.base + "/api/matches", {"game": "tic-tac-toe", "seats": [{"name": "X"}, {"name": "O"}]}
    )
    assert status == 201, created
    return created["match"]["id"], {int(k): v for k, v in created["tokens"].items()}


def mark(server, match_id: str, token: str, cell: int) -> dict:
    """Play ``cell`` for the seat of ``token``; the move's answer."""
    status, body = http(
        "POST",
        f"{server.base}/api/matches/{match_id}/moves",
        {"move": {"type": "mark", "cell": cell}},
        token=token,
    )
    assert status == 201, body
    return body
