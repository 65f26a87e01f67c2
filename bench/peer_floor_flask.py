"""A Flask floor for the peer benchmark's move latency: the least a Flask app can do per move.

``bench/peer_floor.py``'s tic-tac-toe, held in memory, answered by a Flask
app served exactly as gameroom is served (gunicorn, ``deploy/gunicorn.conf.py``,
gameroom's gevent worker with its own reading of a match's requests off the
connection, :mod:`gameroom.http.wire`): one Flask route, the move's body loaded with
gameroom's own ``MoveRequestSchema`` and nothing else; no event log, no
redaction, no problem+json. With ``FLOOR_REDIS_SOCKET`` set, each accepted
move is also appended with one ``XADD`` to a Redis on that unix socket before
the reply. Not a server to use: it trusts every byte it gets. Run it (it starts
gunicorn as above) and point bench.js at it (bench/README.md, "A Flask floor")::

    .venv/bin/python bench/peer_floor_flask.py --port 8103 [--redis-socket /tmp/redis.sock]
    node ../shared/peer/boardgameio/bench.js --server http://127.0.0.1:8103 \\
        --driver gameroom-http --mode play --concurrency 1 --duration 10 --warmup 3
"""

import argparse
import json
import os
import sys
from pathlib import Path

from flask import Flask, Response, request
from peer_floor import Floor

from gameroom.schemas import MoveRequestSchema

app = Flask(__name__)
floor = Floor(os.environ.get("FLOOR_REDIS_SOCKET"))
moves = MoveRequestSchema()


@app.route("/api/matches", methods=["POST"], defaults={"rest": ""})
@app.route("/api/matches/<path:rest>", methods=["GET", "POST"])
def answer(rest: str) -> Response:
    body = request.get_data()
    if rest.endswith("/moves"):
        moves.load(json.loads(body))
    headers = {b"authorization": request.headers.get("Authorization", "").encode()}
    status, payload = floor.answer(request.method.encode(), request.path, headers, body)
    return Response(json.dumps(payload), status=status, mimetype="application/json")


def main() -> None:
    parser = argparse.ArgumentParser(prog="peer_floor_flask.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8103, help="port on 127.0.0.1 (default 8103)")
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers (default 1)")
    parser.add_argument(
        "--redis-socket", help="a redis-server's unix socket: one XADD per accepted move (default: none)"
    )
    args = parser.parse_args()
    checkout = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        # the deploy config checks a Redis URL is given; the floor itself uses none but --redis-socket
        "GAMEROOM_REDIS_URL": f"unix://{args.redis_socket or '/nonexistent/unused.sock'}",
        "GAMEROOM_BIND": f"127.0.0.1:{args.port}",
        "GAMEROOM_WEB_WORKERS": str(args.workers),
    }
    env.pop("FLOOR_REDIS_SOCKET", None)
    if args.redis_socket:
        env["FLOOR_REDIS_SOCKET"] = args.redis_socket
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    config = str(checkout / "deploy" / "gunicorn.conf.py")
    os.chdir(checkout)
    os.execve(gunicorn, [gunicorn, "-c", config, "--chdir", "bench", "peer_floor_flask:app"], env)


if __name__ == "__main__":
    main()
