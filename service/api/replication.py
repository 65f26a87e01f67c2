"""The ``Gameroom-Replicas`` response header: what WAIT said of a request's appends.

Sent only when ``GAMEROOM_REDIS_WAIT_REPLICAS`` > 0 and the request appended
something: ``<acknowledged>/<wanted>`` (``0/1``: the primary has the entry,
no replica confirmed it within ``GAMEROOM_REDIS_WAIT_TIMEOUT_MS``).
"""

from __future__ import annotations

from ..eventstore import replication

HEADER = "Gameroom-Replicas"


class ReplicasHeader:
    """WSGI middleware: forgets the previous request's outcome, and adds the header to the
    response of a request whose appends WAITed (the Flask views' and the lean move path's)."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        replication.reset()  # a pooled thread or greenlet serves many requests

        def start(status, headers, exc_info=None):
            found = replication.outcome()
            if found is not None:
                headers = [*headers, (HEADER, f"{found[0]}/{found[1]}")]
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)
