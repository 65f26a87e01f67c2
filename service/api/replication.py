"""The ``Gameroom-Replicas`` response header: what WAIT said of a request's appends.

Sent only when ``GAMEROOM_REDIS_WAIT_REPLICAS`` > 0 and the request appended
something: ``<acknowledged>/<wanted>`` (``0/1``: the primary has the entry,
no replica confirmed it within ``GAMEROOM_REDIS_WAIT_TIMEOUT_MS``).
"""

from __future__ import annotations

from flask import Flask

from ..eventstore import replication

HEADER = "Gameroom-Replicas"


def init_app(app: Flask) -> None:
    @app.before_request
    def _forget():
        replication.reset()

    @app.after_request
    def _report(response):
        found = replication.outcome()
        if found is not None:
            response.headers[HEADER] = f"{found[0]}/{found[1]}"
        return response
