"""GET /api/games: what can be played here."""
from __future__ import annotations

from flask import current_app
from flask.views import MethodView

from schemas import GameSchema
from ..web import renderer_url
from .blueprint import Blueprint
from .docs import PROBLEM

blp = Blueprint("games", __name__, url_prefix="/api/games", description="Installed games")


def game_resource(installed, matches, with_schemas: bool = False) -> dict:
    game = installed.game
    out = {
        **game.info.as_dict(),
        "ai_levels": matches.ai_levels(game),
        "distribution": installed.distribution,
        "version": installed.version,
        "schemas": current_app.extensions["gameroom_schema_names"][game.info.slug],
        "renderer": renderer_url(game.info.slug),
    }
    if with_schemas:
        out["options_schema"] = current_app.extensions["gameroom_options_jsonschema"][game.info.slug]
    return out


@blp.route("")
class Games(MethodView):
    @blp.response(200, GameSchema(many=True))
    def get(self):
        """List installed games with their metadata and AI levels."""
        matches = current_app.extensions["gameroom"]
        return [game_resource(g, matches) for g in matches.registry]


@blp.route("/<slug>")
class GameDetail(MethodView):
    @blp.response(200, GameSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, slug):
        """One game, with the JSON Schema of its options and the names of its schemas."""
        matches = current_app.extensions["gameroom"]
        return game_resource(matches.registry.installed(slug), matches, with_schemas=True)
