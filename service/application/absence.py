"""Seat absence: a seat resigns, leaves to an AI, or is reclaimed for a person by the creator.

Each action is a lifecycle entry (see :mod:`gameroom.core.lifecycle`) appended at the version
it was judged on (:func:`gameroom.application.appending.append_built`): two racing actions
cannot both apply, and a repeated one finds the match already changed.
"""

from __future__ import annotations

import logging

from ..core import lifecycle
from ..core.matches import hash_token, new_token
from ..errors import Conflict, NotFound, ValidationFailed
from .appending import append_built
from .guards import check_admin, require_active
from .loaded import Loaded
from .matches import Matches

log = logging.getLogger("gameroom.lifecycle")  # its name from before the split: log lines are unchanged


def resign(matches: Matches, match_id: str, seat: int) -> tuple[Loaded, dict | None]:
    """``seat`` concedes: the match ends; the others win unless the game says otherwise."""

    def build(loaded: Loaded) -> dict:
        require_active(matches, loaded)
        game = matches.game(loaded.record)
        outcome = lifecycle.forfeit_outcome(game, loaded.folded.state, [seat], loaded.record.num_seats)
        return lifecycle.entry(lifecycle.RESIGN, seat, num_seats=loaded.record.num_seats, outcome=outcome)

    new, entry = append_built(matches, match_id, build)
    log.info("match %s: seat %d resigned", match_id, seat)
    return new, entry


def leave(
    matches: Matches, match_id: str, seat: int, token: str, level: str | None = None
) -> tuple[Loaded, dict | None]:
    """``seat`` hands itself to an AI of ``level`` for the rest of the match; ``token`` stops working."""

    def build(loaded: Loaded) -> dict:
        require_active(matches, loaded)
        if lifecycle.taken_over(loaded.folded, seat):
            raise Conflict("An AI plays this seat already.", code="seat-played-by-ai")
        matches.check_in_time(loaded, seat)  # a late leave must not escape the timeout
        return lifecycle.entry(
            lifecycle.LEAVE,
            seat,
            num_seats=loaded.record.num_seats,
            level=_level(matches, loaded, level),
            revoked=[lifecycle.token_digest(hash_token(token))],
        )

    new, entry = append_built(matches, match_id, build)
    log.info("match %s: seat %d left to an AI", match_id, seat)
    return new, entry


def reclaim(matches: Matches, match_id: str, seat: int, admin_token: str | None) -> tuple[Loaded, str]:
    """The creator takes a left seat back for a person: returns the seat's new token."""
    check_admin(matches, match_id, admin_token)
    token = new_token()

    def build(loaded: Loaded) -> dict:
        if not 0 <= seat < loaded.record.num_seats:
            raise NotFound(f"Match {match_id} has no seat {seat}.", code="no-such-seat")
        require_active(matches, loaded)
        overlay = loaded.folded.lifecycle
        if not overlay or not overlay["left"][seat]:
            raise Conflict("Only a seat that was left can be reclaimed.", code="seat-not-left")
        return lifecycle.entry(lifecycle.RECLAIM, seat, num_seats=loaded.record.num_seats)

    # The token is stored before the entry that makes the seat human again, so
    # it works the moment the entry is visible; if the append is refused, it
    # maps to a seat an AI plays (refused with seat-played-by-ai) until reclaimed.
    matches.records.set_token(match_id, seat, token)
    new, _entry = append_built(matches, match_id, build)
    log.info("match %s: seat %d reclaimed by the creator", match_id, seat)
    return new, token


def _level(matches: Matches, loaded: Loaded, level: str | None) -> str:
    level = level or lifecycle.DEFAULT_LEVEL
    game = matches.game(loaded.record)
    if level not in matches.ai_levels(game):
        raise ValidationFailed(
            f"Unknown AI level '{level}'.",
            code="unknown-ai-level",
            errors={"level": [f"one of {matches.ai_levels(game)}"]},
        )
    return level
