"""Turn core objects into the API's resource dicts (documented by schemas/)."""
from __future__ import annotations

from flask import current_app

from .. import jsoncodec
from ..application import Loaded, Matches
from ..core.matches import FINISHED, status_of


def summary(matches: Matches, loaded: Loaded) -> dict:
    record, folded = loaded.record, loaded.folded
    game = matches.game(record)
    status = status_of(record, game, folded.state)
    return {
        "id": record.id,
        "game": record.game,
        "status": status,
        "version": folded.version,
        "seats": [s.as_dict() for s in record.seats],
        "active_seats": game.active_seats(folded.state) if status != "waiting" else [],
        "outcome": game.outcome(folded.state),
        "options": record.options,
        "created": record.created,
    }


def state(matches: Matches, loaded: Loaded, seat: int | None, include: str | None = None) -> dict:
    record, folded = loaded.record, loaded.folded
    game = matches.game(record)
    status = status_of(record, game, folded.state)
    out = {
        "match": record.id,
        "version": folded.version,
        "status": status,
        "seat": seat,
        "active_seats": game.active_seats(folded.state) if status != "waiting" else [],
        "view": game.view(folded.state, seat),
        "outcome": game.outcome(folded.state),
    }
    if include == "legal_moves":
        playing = seat is not None and status == "active" and not record.read_only
        out["legal_moves"] = game.legal_moves(folded.state, seat) if playing else []
    return out


def is_finished(matches: Matches, loaded: Loaded) -> bool:
    return status_of(loaded.record, matches.game(loaded.record), loaded.folded.state) == FINISHED


def json_response(data, status: int = 200, headers: dict | None = None):
    """Serialize a resource directly on the hot paths (state, legal moves, moves, history).

    The dicts built here already have the documented shape, and marshmallow's
    dump would only copy them (a third of a request's CPU). The tests check
    every such response against openapi.yaml, so the schemas stay the contract.
    """
    body = jsoncodec.dumps(data)
    return current_app.response_class(body, status=status, headers=headers, mimetype="application/json")
