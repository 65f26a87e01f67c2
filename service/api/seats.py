"""Resign, leave to an AI, reclaim a left seat, rematch, release a rematch's seat (see
:class:`gameroom.application.Seats`). The blueprint keeps its name, ``lifecycle``: it names
the API's operations and tag (each action appends a lifecycle entry)."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView

from gameroom.schemas.matches import SeatTokenSchema
from gameroom.schemas.seats import LeaveSchema, LifecycleResultSchema, RematchSchema

from ..errors import NotFound, Unauthorized
from . import presenters
from .auth import bearer_token, caller
from .blueprint import Blueprint
from .docs import PROBLEM, UNAUTHORIZED

blp = Blueprint(
    "lifecycle",
    __name__,
    url_prefix="/api/matches",
    description="Resigning, leaving to an AI, reclaiming a seat, rematches and releasing their seats",
)


def _matches():
    return current_app.extensions["gameroom"]


def _players():
    return current_app.extensions["gameroom_seats"]


def _result(loaded, entry, seat):
    matches = _matches()
    [shown] = matches.redact(loaded, [entry], seat)
    return presenters.json_response(
        {"version": loaded.version, "entry": shown, "match": presenters.summary(matches, loaded)}, 201
    )


@blp.route("/<match_id>/resign")
class Resign(MethodView):
    @blp.operation("resignSeat")
    @blp.no_body()
    @blp.response(201, LifecycleResultSchema)
    @blp.alt_response(401, **UNAUTHORIZED, description="a seat's token is needed")
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM, description="match-over, match-not-started, read-only")
    def post(self, match_id):
        """Resign: the match ends now; the other seats win unless the game says what a resignation means."""
        _loaded, seat = caller(_matches(), match_id, required=True)
        loaded, entry = _players().resign(match_id, seat)
        return _result(loaded, entry, seat)


@blp.route("/<match_id>/leave")
class Leave(MethodView):
    @blp.operation("leaveSeat")
    @blp.arguments(LeaveSchema())
    @blp.response(201, LifecycleResultSchema)
    @blp.alt_response(401, **UNAUTHORIZED, description="a seat's token is needed")
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM, description="match-over, match-not-started, seat-played-by-ai")
    @blp.alt_response(422, **PROBLEM, description="unknown-ai-level")
    def post(self, body, match_id):
        """Leave: an AI of ``level`` plays the seat for the rest of the match and this token stops working.

        Only the match's creator can give the seat back to a person
        (``POST .../seats/{seat}/reclaim`` with the admin token)."""
        matches = _matches()
        _loaded, seat = caller(matches, match_id, required=True)
        loaded, entry = _players().leave(match_id, seat, bearer_token(), body["level"])
        return _result(loaded, entry, seat)


@blp.route("/<match_id>/seats/<int:seat>/reclaim")
class Reclaim(MethodView):
    @blp.operation("reclaimSeat")
    @blp.no_body()
    @blp.response(201, SeatTokenSchema)
    @blp.alt_response(401, **UNAUTHORIZED, description="bad-admin-token")
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM, description="seat-not-left, match-over")
    def post(self, match_id, seat):
        """The creator (bearer: the admin token from creation) gives a left seat back to a person:
        returns the seat's new token (shown once)."""
        matches = _matches()
        loaded = matches.load(match_id)
        if not 0 <= seat < loaded.record.num_seats:
            raise NotFound(f"Match {match_id} has no seat {seat}.", code="no-such-seat")
        loaded, token = _players().reclaim(match_id, seat, bearer_token())
        return {"seat": seat, "token": token, "match": presenters.summary(matches, loaded)}


@blp.route("/<match_id>/seats/<int:seat>/release")
class Release(MethodView):
    @blp.operation("releaseSeat")
    @blp.no_body()
    @blp.response(201, LifecycleResultSchema)
    @blp.alt_response(401, **UNAUTHORIZED, description="bad-admin-token")
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM, description="seat-not-reserved, seat-taken")
    def post(self, match_id, seat):
        """Release a rematch's seat kept for a player who has not accepted (bearer: the admin token).

        The seat is open from then on: anyone may claim it (``POST .../seats/{seat}``), its
        player too, by accepting the rematch. For when a player does not come back."""
        loaded, entry = _players().release(match_id, seat, bearer_token())
        return _result(loaded, entry, None)


@blp.route("/<match_id>/rematch")
class Rematch(MethodView):
    @blp.operation("createRematch")
    @blp.no_body()
    @blp.response(201, RematchSchema)
    @blp.alt_response(401, **UNAUTHORIZED, description="a seat's token or the admin token is needed")
    @blp.alt_response(403, **PROBLEM, description="not-your-seat (an AI seat)")
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM, description="match-not-finished, seat-taken")
    def post(self, match_id):
        """After the end: the next match of the same game, options and seats.

        The first call creates it; each human seat that calls (accepts) gets
        its new token there, and AI seats keep their level. The creator's
        admin token may set it up without taking a seat. Calling again
        returns the same rematch, and to a seat that accepted, the same token
        there (a lost answer can be asked again); seat-taken once the seat is
        no longer its player's (released and claimed, or left)."""
        matches = _matches()
        token = bearer_token()
        if token is None:
            raise Unauthorized("This needs a seat's token or the admin token.", code="token-required")
        _loaded, seat, token_ok = matches.open(match_id, token)
        done = _players().rematch(match_id, seat if token_ok else None, token)
        return {
            "match": presenters.summary(matches, done["match"]),
            "seat": done["seat"],
            "token": done["token"],
        }
