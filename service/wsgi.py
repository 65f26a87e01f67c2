"""WSGI entry points: ``gameroom.wsgi:app`` for any WSGI server, and gunicorn embedded for ``serve``."""

from __future__ import annotations

from gunicorn.app.base import BaseApplication


class GunicornApp(BaseApplication):
    """gunicorn with our app factory; each worker builds its own app (and Redis connections)."""

    def __init__(self, options: dict):
        self.options = options
        super().__init__()

    def load_config(self):
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        return served_app()


def served_app():
    """The app as gunicorn serves it: each response advertises the idle timeout of the connection,
    and the process holds no more live streams than its open-file limit lets it serve."""
    from dataclasses import replace

    from . import create_app
    from .config import Config
    from .http.keepalive import KeepAliveHeader
    from .serving import served_stream_cap

    config = Config.from_env()
    app = create_app(replace(config, sse_max_streams=served_stream_cap(config)))
    app.wsgi_app = KeepAliveHeader(app.wsgi_app, app.config["GAMEROOM"].http_keepalive)
    return app


def __getattr__(name):
    # ``gunicorn gameroom.wsgi:app`` builds the app on first access, not at import.
    if name == "app":
        globals()["app"] = served_app()
        return globals()["app"]
    raise AttributeError(name)
