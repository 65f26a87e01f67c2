"""A floor for the peer benchmark's move latency: the least a Python server can do per move.

A minimal gevent HTTP/1.1 server that answers only the four requests of
``bench.js``'s ``gameroom-http`` driver (create, claim, state, move) for
tic-tac-toe held in memory: no Flask, no schemas, no event log, no redaction.
With ``--redis-socket PATH`` each accepted move is also appended with one
``XADD`` to a Redis on that unix socket before the reply (the durable round
trip a gameroom move cannot skip). Not a server to use: it trusts every byte
it gets. Run it and point bench.js at it (bench/README.md, "What a move costs
at C = 1")::

    .venv/bin/python bench/peer_floor.py --port 8102 [--redis-socket /tmp/redis.sock]
    node ../shared/peer/boardgameio/bench.js --server http://127.0.0.1:8102 \\
        --driver gameroom-http --mode play --concurrency 1 --duration 10 --warmup 3
"""

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import json  # noqa: E402
import secrets  # noqa: E402
import socket  # noqa: E402

from gevent.server import StreamServer  # noqa: E402

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class Floor:
    def __init__(self, redis_socket: str | None):
        self.matches: dict[str, dict] = {}
        self.redis = None
        if redis_socket:
            self.redis = socket.socket(socket.AF_UNIX)
            self.redis.connect(redis_socket)
            self.replies = self.redis.makefile("rb")

    def append(self, match_id: str, body: bytes) -> None:
        """One XADD of the move's body to the match's stream: one round trip."""
        key = f"floor:{match_id}".encode()
        self.redis.sendall(
            b"*5\r\n$4\r\nXADD\r\n$%d\r\n%s\r\n$1\r\n*\r\n$4\r\nmove\r\n$%d\r\n%s\r\n"
            % (len(key), key, len(body), body)
        )
        line = self.replies.readline()
        if not line.startswith(b"$"):
            raise RuntimeError(line)
        self.replies.readline()

    @staticmethod
    def state(match: dict) -> dict:
        over = match["outcome"] is not None
        return {
            "version": match["version"],
            "status": "finished" if over else "active",
            "active_seats": [] if over else [match["turn"]],
            "view": {
                "cells": match["cells"],
                "turn": match["turn"],
                "winner": match["winner"],
                "draw": match["draw"],
            },
            "outcome": match["outcome"],
        }

    def answer(self, method: bytes, path: str, headers: dict, body: bytes) -> tuple[int, dict]:
        if method == b"POST" and path == "/api/matches":
            match_id = secrets.token_hex(8)
            self.matches[match_id] = {
                "version": 1, "cells": [None] * 9, "turn": 0, "winner": None,
                "draw": False, "outcome": None, "tokens": [None, None],
            }  # fmt: skip
            return 201, {"match": {"id": match_id}}
        parts = path.split("/")
        match = self.matches[parts[3]]
        if parts[4] == "seats":
            token = secrets.token_hex(16)
            match["tokens"][int(parts[5])] = token
            return 201, {"seat": int(parts[5]), "token": token}
        if parts[4] == "state":
            return 200, self.state(match)
        move = json.loads(body)
        token = headers[b"authorization"][7:].decode()
        seat = match["tokens"].index(token) if token in match["tokens"] else -1
        cell = move["move"]["cell"]
        if (
            seat != match["turn"]
            or move["expected_version"] != match["version"]
            or match["cells"][cell] is not None
        ):
            return 409, {}
        if self.redis is not None:
            self.append(parts[3], body)
        match["cells"][cell] = seat
        match["version"] += 1
        if any(all(match["cells"][c] == seat for c in line) for line in LINES):
            match["winner"], match["outcome"] = seat, {"winner": seat}
        elif all(c is not None for c in match["cells"]):
            match["draw"], match["outcome"] = True, {"draw": True}
        match["turn"] = 1 - match["turn"]
        return 201, {"state": self.state(match)}

    def handle(self, sock, _address) -> None:
        rfile = sock.makefile("rb")
        while True:
            line = rfile.readline()
            if not line:
                return
            method, target, _ = line.split(b" ", 2)
            headers = {}
            while (header := rfile.readline()) not in (b"\r\n", b""):
                name, _, value = header.partition(b":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get(b"content-length", 0))
            status, payload = self.answer(
                method, target.decode(), headers, rfile.read(length) if length else b""
            )
            data = json.dumps(payload).encode()
            sock.sendall(
                b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                % (status, len(data), data)
            )


def main() -> None:
    parser = argparse.ArgumentParser(prog="peer_floor.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8102, help="port on 127.0.0.1 (default 8102)")
    parser.add_argument(
        "--redis-socket", help="a redis-server's unix socket: one XADD per accepted move (default: none)"
    )
    args = parser.parse_args()
    floor = Floor(args.redis_socket)
    print(
        f"floor server on 127.0.0.1:{args.port}, {'XADD per move' if floor.redis else 'in memory'}",
        flush=True,
    )
    StreamServer(("127.0.0.1", args.port), floor.handle).serve_forever()


if __name__ == "__main__":
    main()
