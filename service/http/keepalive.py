"""``Keep-Alive: timeout=N`` on every response: when the server will close an idle connection.

Without it a client cannot know, and may send its next request on a
connection at the very moment the server closes it (an ``ECONNRESET`` or an
empty reply on a move). Clients that honour the header (Node's http agent,
undici, curl) close an idle connection before that. The server's worker
(:class:`gameroom.http.worker.GeventWorker`) closes idle connections after the
same number of seconds and, unlike gunicorn's own workers, lets the header out.
"""

from __future__ import annotations


class KeepAliveHeader:
    """WSGI middleware: ``app.wsgi_app = KeepAliveHeader(app.wsgi_app, seconds)``."""

    def __init__(self, wsgi_app, seconds: int):
        self.wsgi_app = wsgi_app
        self.header = ("Keep-Alive", f"timeout={seconds}")

    def __call__(self, environ, start_response):
        header = self.header

        def starting(status, headers, exc_info=None):
            headers.append(header)
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, starting)
