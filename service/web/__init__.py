"""The web client: a blueprint serving the lobby at ``/`` and static files under ``/ui``.

The browser is one more client of the public API (``/api``); this module only
serves files. It lists every file it may serve once, at start-up (the
client's own ``static/`` folder and each game's :meth:`Game.renderer` folder),
and answers a request by looking its name up in that list: nothing a client
sends is ever joined to a filesystem path.
"""

from __future__ import annotations

import logging
import mimetypes
from pathlib import Path

from flask import Blueprint, Response, abort, current_app

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
#: What a game's renderer folder may ship (anything else there is not served).
GAME_SUFFIXES = {".js", ".css", ".svg", ".png", ".json"}
CLIENT_SUFFIXES = GAME_SUFFIXES | {".html"}
TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".html": "text/html",
}
#: Scripts only from this server; no inline script; the API on the same origin.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)

blp = Blueprint("web", __name__)


def _listing(folder: Path, suffixes: set[str]) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    return {p.name: p for p in sorted(folder.iterdir()) if p.is_file() and p.suffix in suffixes}


def game_assets(registry) -> dict[str, dict[str, Path]]:
    """slug -> file name -> path, for every game that ships a renderer with a ``renderer.js``."""
    out = {}
    for installed in registry:
        shipped = installed.game.renderer()
        if shipped is None:
            continue
        if isinstance(shipped, (list, tuple)):
            files = {
                Path(p).name: Path(p)
                for p in shipped
                if Path(p).is_file() and Path(p).suffix in GAME_SUFFIXES
            }
        else:
            files = _listing(Path(shipped), GAME_SUFFIXES)
        if "renderer.js" not in files:
            log.warning(
                "game %s: its renderer has no renderer.js; using the generic renderer", installed.slug
            )
            continue
        out[installed.slug] = files
    return out


def renderer_url(slug: str) -> str | None:
    """The URL of ``slug``'s renderer module, or ``None`` (generic renderer)."""
    assets = current_app.extensions.get("gameroom_ui_assets", {})
    return f"/ui/games/{slug}/renderer.js" if slug in assets else None


def _file(path: Path | None) -> Response:
    if path is None:
        abort(404)
    response = Response(
        path.read_bytes(), mimetype=TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0]
    )
    response.headers["Cache-Control"] = "no-cache"  # revalidate: a new release is seen at once
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@blp.route("/")
def index():
    response = _file(current_app.extensions["gameroom_ui_client"].get("index.html"))
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@blp.route("/ui/<name>")
def client_file(name: str):
    return _file(current_app.extensions["gameroom_ui_client"].get(name))


@blp.route("/ui/games/<slug>/<name>")
def game_file(slug: str, name: str):
    return _file(current_app.extensions["gameroom_ui_assets"].get(slug, {}).get(name))


def init_app(app, registry) -> None:
    app.extensions["gameroom_ui_client"] = _listing(STATIC, CLIENT_SUFFIXES)
    app.extensions["gameroom_ui_assets"] = game_assets(registry)
    app.register_blueprint(blp)
