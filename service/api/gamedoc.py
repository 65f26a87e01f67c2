"""The API document typed for one game: ``GET /api/games/{slug}/openapi.json``.

The same API as ``/api/openapi.json`` (every installed game), with the ``move``
of ``POST …/moves``, the legal moves, the ``view`` of a state, the events of
history and stream entries, and the options of a new match all referring to
that one game's schemas (a match summary's options stay any object: the lobby
lists every game). Generate a client from it and every move is a class of its
own. A pure transformation of the document of every installed game, as
deterministic as that one (see :mod:`gameroom.openapi`).
"""

from __future__ import annotations

import copy


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def game_document(spec: dict, slug: str, title: str, names: dict) -> dict:
    """``spec`` with the match operations typed for one game.

    ``names``: the game's component names by kind (``options``, ``move``,
    ``view``, ``event``), as ``register_game_schemas`` returned them. Other
    games' components are left out.
    """
    doc = copy.deepcopy(spec)
    doc["info"]["title"] = f"{spec['info']['title']}: {title}"
    doc["info"]["description"] = (
        f"The gameroom API typed for {title} (`{slug}`): moves, views, events and the options of a "
        f"new match are this game's schemas. The match operations are typed for matches of this "
        f"game: a match of another game (its id given to getMatch, getState, listEvents and the "
        f"others) answers as the document for every installed game, /api/openapi.json, says. "
        f"Match summaries keep that document's options (any object): listMatches lists every "
        f"game's matches unless `game` is given."
    )
    schemas = doc["components"]["schemas"]
    move, view, event, options = (_ref(names[k]) for k in ("move", "view", "event", "options"))

    def retype(component: str, prop: str, value: dict, *, items: bool = False):
        properties = schemas[component]["properties"]
        if items:
            kept = {k: v for k, v in properties[prop].items() if k == "description"}
            properties[prop] = {**kept, "type": "array", "items": value}
        else:
            # A plain $ref (its siblings would be ignored in OpenAPI 3.0, and generators
            # turn an allOf wrapper into a class of its own).
            properties[prop] = value

    retype("MatchCreate", "options", options)
    schemas["MatchCreate"]["properties"]["game"] = {"type": "string", "enum": [slug]}
    create = doc["paths"]["/api/matches"]["post"]["requestBody"]["content"]["application/json"]
    if "example" in create:  # the all-games document's example names another game
        create["example"] = {**create["example"], "game": slug}
    # MatchSummary keeps the all-games options: GET /api/matches lists every game unless
    # ?game= is given, and a summary typed for this game would misread the others'.
    retype("State", "view", view)
    retype("State", "legal_moves", move, items=True)
    retype("LegalMoves", "moves", move, items=True)
    retype("MoveRequest", "move", move)
    retype("MoveResponse", "events", event, items=True)
    retype("Entry", "events", event, items=True)
    retype("Entry", "move", move)
    return _prune(doc)


def _refs(node, found: set) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[1])
        for value in node.values():
            _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)


def _prune(doc: dict) -> dict:
    """``doc`` without the component schemas that nothing reachable from its paths refers to."""
    schemas = doc["components"]["schemas"]
    rest = {k: v for k, v in doc.items() if k != "components"}
    rest["components"] = {k: v for k, v in doc["components"].items() if k != "schemas"}
    reached: set = set()
    _refs(rest, reached)
    todo = list(reached)
    while todo:
        found: set = set()
        _refs(schemas.get(todo.pop(), {}), found)
        for name in found - reached:
            reached.add(name)
            todo.append(name)
    doc["components"]["schemas"] = {k: v for k, v in schemas.items() if k in reached}
    return doc
