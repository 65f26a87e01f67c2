"""What happened, without a line per request: server errors and slow requests.

gunicorn's access log is off by default (``GAMEROOM_ACCESS_LOG``): a line per
request is a large part of a move's cost. This WSGI middleware logs, with the
app's timestamped format, every request answered with a 5xx status and every
request whose handler took ``slow_request_ms`` or longer (the time until the
response starts: a live stream's long life is not "slow"). The path is logged
without its query string, so ``?token=`` never reaches a log. A 503 is a
refusal the server chose (Redis away, a process at its stream cap, not ready)
and is logged where it is decided, once per episode
(:mod:`gameroom.api.throttle`), not here once per request.
"""

from __future__ import annotations

import logging
import time

log = logging.getLogger("gameroom.requests")


class RequestLog:
    """WSGI middleware: ``app.wsgi_app = RequestLog(app.wsgi_app, slow_ms)``."""

    def __init__(self, wsgi_app, slow_ms: int):
        self.wsgi_app = wsgi_app
        self.slow = slow_ms / 1000 if slow_ms > 0 else float("inf")

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        status = ""

        def starting(line, headers, exc_info=None):
            nonlocal status
            status = line
            return start_response(line, headers, exc_info)

        result = self.wsgi_app(environ, starting)
        elapsed = time.perf_counter() - started
        if elapsed >= self.slow or (status[:1] == "5" and status[:3] != "503"):
            log.warning(
                "%s %s answered %s in %.1f ms%s",
                environ.get("REQUEST_METHOD"),
                environ.get("PATH_INFO"),
                status[:3] or "(not started)",
                elapsed * 1000,
                " (slow)" if elapsed >= self.slow else "",
            )
        return result
