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
    """The app as gunicorn serves it: each response advertises the idle timeout of the connection."""
    from . import create_app
    from .api.keepalive import KeepAliveHeader

    app = create_app()
    app.wsgi_app = KeepAliveHeader(app.wsgi_app, app.config["GAMEROOM"].http_keepalive)
    return app


def __getattr__(name):
    # ``gunicorn gameroom.wsgi:app`` builds the app on first access, not at import.
    if name == "app":
        globals()["app"] = served_app()
        return globals()["app"]
    raise AttributeError(name)
