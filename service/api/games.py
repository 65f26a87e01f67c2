"""GET /api/games: what can be played here."""

from __future__ import annotations

from flask import current_app, jsonify
from flask.views import MethodView

from gameroom.schemas import GameSchema

from ..web import renderer_url
from .blueprint import Blueprint
from .docs import PROBLEM
from .gamedoc import game_document

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
    @blp.operation("listGames")
    @blp.response(200, GameSchema(many=True))
    def get(self):
        """List installed games with their metadata and AI levels."""
        matches = current_app.extensions["gameroom"]
        return [game_resource(g, matches) for g in matches.registry]


@blp.route("/<slug>")
class GameDetail(MethodView):
    @blp.operation("getGame")
    @blp.response(200, GameSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, slug):
        """One game, with the JSON Schema of its options and the names of its schemas."""
        matches = current_app.extensions["gameroom"]
        return game_resource(matches.registry.installed(slug), matches, with_schemas=True)


@blp.route("/<slug>/openapi.json")
class GameDocument(MethodView):
    @blp.operation("getGameOpenapi")
    @blp.response(200, description="An OpenAPI 3 document (JSON)", example={"openapi": "3.0.3"})
    @blp.alt_response(404, **PROBLEM)
    def get(self, slug):
        """The whole API typed for one game: generate a client from it to get one class per move, view and event."""
        matches = current_app.extensions["gameroom"]
        installed = matches.registry.installed(slug)
        cache = current_app.extensions.setdefault("gameroom_game_documents", {})
        doc = cache.get(slug)
        if doc is None:
            spec = current_app.extensions["gameroom_api"].spec.to_dict()
            names = current_app.extensions["gameroom_schema_names"][slug]
            doc = cache[slug] = game_document(spec, slug, installed.game.info.title, names)
        return jsonify(doc)
