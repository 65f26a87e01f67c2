"""A Flask floor for the peer benchmark's move latency: the least a Flask app can do per move.

``bench/peer_floor.py``'s tic-tac-toe, held in memory, answered by a Flask
app served exactly as gameroom is served (gunicorn, ``deploy/gunicorn.conf.py``,
gameroom's gevent worker with its own reading of a match's requests off the
connection, :mod:`gameroom.wire`): one Flask route, the move's body loaded with
gameroom's own ``MoveRequestSchema`` and nothing else; no event log, no
redaction, no problem+json. With ``FLOOR_REDIS_SOCKET`` set, each accepted
move is also appended with one ``XADD`` to a Redis on that unix socket before
the reply. Not a server to use: it trusts every byte it gets. Run it from the
checkout and point bench.js at it (bench/README.md, "A Flask floor")::

    GAMEROOM_REDIS_URL=unix:///tmp/unused.sock GAMEROOM_BIND=127.0.0.1:8103 \\
        GAMEROOM_WEB_WORKERS=1 [FLOOR_REDIS_SOCKET=/tmp/redis.sock] \\
        .venv/bin/gunicorn -c deploy/gunicorn.conf.py --chdir bench peer_floor_flask:app
    node ../shared/peer/boardgameio/bench.js --server http://127.0.0.1:8103 \\
        --driver gameroom-http --mode play --concurrency 1 --duration 10 --warmup 3
"""

import json
import os

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
