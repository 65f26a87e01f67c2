"""Turn core objects into the API's resource dicts (documented by schemas/)."""

from __future__ import annotations

from flask import current_app

from .. import jsoncodec
from ..application import Loaded, Matches
from ..core import lifecycle
from ..core.matches import FINISHED, status_at, status_of


def summary(matches: Matches, loaded: Loaded) -> dict:
    record, folded = loaded.record, loaded.folded
    game = matches.game(record)
    status = status_of(record, game, folded.state, folded)
    out = {
        "id": record.id,
        "game": record.game,
        "status": status,
        "version": folded.version,
        "seats": [s.as_dict(kept=record.kept(i)) for i, s in enumerate(record.seats)],
        "active_seats": lifecycle.active_seats(game, folded) if status != "waiting" else [],
        "outcome": lifecycle.outcome(game, folded),
        "options": record.options,
        "created": record.created,
        **_lifecycle(matches, loaded),
    }
    if record.forked_from is not None:  # everyone may know: the position it starts from is public
        out["forked_from"] = dict(record.forked_from)
    return out


def lobby_summary(matches: Matches, loaded: Loaded) -> dict:
    """The summary as the lobby lists it: without seat names if the creator chose ``hide_names``."""
    out = summary(matches, loaded)
    if loaded.record.settings.get("hide_names"):
        out["seats"] = [{**s, "name": None} for s in out["seats"]]
    return out


def _lifecycle(matches: Matches, loaded: Loaded) -> dict:
    """Clocks and seat control, when the match has any (see :mod:`gameroom.core.lifecycle`)."""
    record, overlay = loaded.record, loaded.folded.lifecycle
    out = {}
    if record.settings:
        out["settings"] = {k: v for k, v in record.settings.items() if v is not None}
    if overlay is None:
        return out
    clock = lifecycle.clock_view(overlay, matches.clock())
    if clock is not None:
        out["clock"] = clock
    out["seat_control"] = lifecycle.seat_status(overlay, record.num_seats)
    return out


def state(
    matches: Matches, loaded: Loaded, seat: int | None, include: str | None = None, past: bool = False
) -> dict:
    """The caller's state; ``past``: ``loaded`` is an earlier version (clocks as they were then).

    The caller's own draft steps (``loaded.draft``) are in it; nobody else's are.
    """
    record, folded = loaded.record, loaded.seen
    game = matches.game(record)
    status = status_at(record, game, folded) if past else status_of(record, game, folded.state, folded)
    out = {
        "match": record.id,
        "version": folded.version,
        "status": status,
        "seat": seat,
        "active_seats": lifecycle.active_seats(game, folded) if status != "waiting" else [],
        "view": game.view(folded.state, seat),
        "outcome": lifecycle.outcome(game, folded),
    }
    if folded.lifecycle is not None:
        overlay = folded.lifecycle
        clock = lifecycle.clock_view(overlay, None if past else matches.clock())
        if clock is not None:
            out["clock"] = clock
        out["seat_control"] = lifecycle.seat_status(overlay, record.num_seats)
    if loaded.draft and not past:
        out["sealed_steps"] = len(loaded.draft)  # the caller's own: no one else's is ever counted
    if include == "legal_moves":
        playing = (
            seat is not None
            and status == "active"
            and not record.read_only
            and not lifecycle.taken_over(folded, seat)
        )  # an AI plays the seat now
        out["legal_moves"] = game.legal_moves(folded.state, seat) if playing else []
    return out


def is_finished(matches: Matches, loaded: Loaded) -> bool:
    return (
        status_of(loaded.record, matches.game(loaded.record), loaded.folded.state, loaded.folded) == FINISHED
    )


def json_response(data, status: int = 200, headers: dict | None = None):
    """Serialize a resource directly on the hot paths (state, legal moves, moves, history).

    The dicts built here already have the documented shape, and marshmallow's
    dump would only copy them (a third of a request's CPU). The tests check
    every such response against openapi.yaml, so the schemas stay the contract.
    """
    body = jsoncodec.dumps(data)
    return current_app.response_class(body, status=status, headers=headers, mimetype="application/json")
