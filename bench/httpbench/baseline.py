"""The baseline server: a bare Flask app, ``POST /baseline/<stream>`` appends the body with one XADD.

gunicorn imports this module in its workers (``httpbench.baseline:baseline_app()``):
keep its module level light.
"""

from __future__ import annotations

import json
import os


def baseline_app():
    """A bare Flask app: POST /baseline/<stream> appends the body to a stream with one XADD."""
    import redis
    from flask import Flask, jsonify, request

    app = Flask("bench_baseline")
    client = redis.Redis.from_url(os.environ["BENCH_REDIS_URL"])
    # Diagnostic (--baseline-round-trips K): K-1 sequential HGETs before the XADD, to price round trips alone.
    extra = max(0, int(os.environ.get("BENCH_ROUND_TRIPS", "1")) - 1)

    @app.post("/baseline/<stream>")
    def append(stream):
        body = request.get_json()
        for _ in range(extra):
            client.hget(f"bench-http:{{{stream}}}:meta", "status")
        entry_id = client.xadd(
            f"bench-http:{{{stream}}}:events", {"entry": json.dumps(body, separators=(",", ":"))}
        )
        return jsonify({"id": entry_id.decode()}), 201

    return app
