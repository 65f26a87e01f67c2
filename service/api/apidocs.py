"""GET /api/docs: the interactive API page (Swagger UI), served from this server only.

The Swagger UI assets come from the ``swagger-ui-bundle`` package (PyPI), so
the page works offline and loads nothing from a CDN. Its top bar picks the
document: the whole API, or the API typed for one installed game.

Only the few asset files the page needs are served, by fixed name: no part
of a request path reaches the filesystem.
"""

from __future__ import annotations

from flask import Blueprint, current_app, render_template_string, send_file, url_for

from ..errors import NotFound

bp = Blueprint("apidocs", __name__, url_prefix="/api/docs")

#: asset name -> media type; nothing else is ever served from the bundle.
ASSETS = {
    "swagger-ui.css": "text/css",
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "favicon-32x32.png": "image/png",
}

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>gameroom API</title>
  <link rel="icon" type="image/png" href="{{ asset('favicon-32x32.png') }}">
  <link rel="stylesheet" href="{{ asset('swagger-ui.css') }}">
  <style>body { margin: 0; } .swagger-ui .topbar .download-url-wrapper { flex-wrap: wrap; }</style>
</head>
<body>
  <main id="docs"><noscript>This page needs JavaScript; the documents are at
    <a href="{{ urls[0].url }}">{{ urls[0].url }}</a>.</noscript></main>
  <script src="{{ asset('swagger-ui-bundle.js') }}"></script>
  <script src="{{ asset('swagger-ui-standalone-preset.js') }}"></script>
  <script>
    window.onload = function () {
      window.ui = SwaggerUIBundle({
        urls: {{ urls | tojson }},
        dom_id: "#docs",
        deepLinking: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        layout: "StandaloneLayout",
        validatorUrl: null
      });
    };
  </script>
</body>
</html>
"""


def _bundle():
    from swagger_ui_bundle import swagger_ui_path

    return swagger_ui_path


@bp.get("")
def page():
    """The Swagger UI page over the document for all games and one per installed game."""
    urls = [{"name": "gameroom: all games", "url": url_for("api-docs.openapi_json")}]
    for installed in current_app.extensions["gameroom"].registry:
        urls.append(
            {
                "name": f"{installed.game.info.title} (typed)",
                "url": url_for("games.GameDocument", slug=installed.slug),
            }
        )
    html = render_template_string(PAGE, urls=urls, asset=lambda name: url_for("apidocs.asset", name=name))
    return current_app.response_class(html, mimetype="text/html")


@bp.get("/assets/<name>")
def asset(name: str):
    media_type = ASSETS.get(name)
    if media_type is None:
        raise NotFound("No such asset.", code="not-found")
    response = send_file(_bundle() / name, mimetype=media_type, max_age=86400)
    return response
