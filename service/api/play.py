"""Playing: the caller's state, legal moves, submitting moves, history."""

from __future__ import annotations

import hashlib

from flask import current_app, request
from flask.views import MethodView

from gameroom.schemas import (
    EventPageSchema,
    HistoryArgsSchema,
    IncludeArgsSchema,
    LegalMovesSchema,
    MoveRequestSchema,
    MoveResponseSchema,
    StateArgsSchema,
    StateSchema,
)

from .. import jsoncodec
from ..core import lifecycle
from ..errors import NotFound, NotYourSeat
from . import idempotency, presenters
from .auth import bearer_token, caller, seat_of
from .blueprint import Blueprint
from .docs import ETAG, PROBLEM, UNAUTHORIZED

blp = Blueprint("play", __name__, url_prefix="/api/matches", description="Playing a match")


def _matches():
    return current_app.extensions["gameroom"]


def _digest(draft) -> str:
    """A short digest of a seat's draft steps (their moves decide their events)."""
    return hashlib.sha256(jsoncodec.dumps([step["move"] for step in draft])).hexdigest()[:16]


def state_tag(loaded, seat: int | None, include: str | None) -> str:
    """The ETag (unquoted) of ``seat``'s state of ``loaded``.

    One per (version, seat): seats see different views of one version; a seat's
    own draft steps change its view alone (and only its own ETag tells which they are).
    A match still waiting for players (``-w``) starts without a new version when its
    last seat is claimed (unless it has a clock): its status and active seats change.
    """
    draft = f"-d{_digest(loaded.draft)}" if loaded.draft else ""
    waiting = "" if loaded.record.full else "-w"
    return f"v{loaded.version}-s{'x' if seat is None else seat}{waiting}{draft}{'-l' if include else ''}"


@blp.route("/<match_id>/state")
class State(MethodView):
    @blp.operation("getState")
    @blp.arguments(StateArgsSchema(), location="query")
    @blp.header("If-None-Match", "an ETag this seat got before: 304 if the view is unchanged")
    @blp.response(200, StateSchema, headers=ETAG)
    @blp.alt_response(304, description="not modified (If-None-Match)", headers=ETAG)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, **PROBLEM, description="another seat's view before the match is over")
    @blp.alt_response(404, **PROBLEM)
    def get(self, args, match_id):
        """The caller's view (bearer token = seat; none = spectator), now or at ``version``."""
        matches = _matches()
        loaded, seat = caller(matches, match_id)
        loaded_seat = seat
        if args.get("seat") is not None and args["seat"] != seat:
            if not presenters.is_finished(matches, loaded):
                raise NotYourSeat("Other seats' views become public when the match is over.")
            if args["seat"] >= loaded.record.num_seats:
                raise NotFound(f"Match {match_id} has no seat {args['seat']}.", code="no-such-seat")
            seat = args["seat"]
        if args.get("version") is not None:
            loaded = matches.load(match_id, args["version"])  # the log's: no draft
        elif seat != loaded_seat:
            loaded = matches.with_draft(loaded, None)  # another seat's view of a finished match
        tag = state_tag(loaded, seat, args.get("include"))
        headers = {"ETag": f'"{tag}"'}
        if request.if_none_match.contains_weak(tag):  # RFC 9110 §13.1.2: weak comparison
            return "", 304, headers
        return presenters.json_response(
            presenters.state(
                matches, loaded, seat, args.get("include"), past=args.get("version") is not None
            ),
            200,
            headers,
        )


@blp.route("/<match_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.operation("getLegalMoves")
    @blp.response(200, LegalMovesSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **PROBLEM)
    def get(self, match_id):
        """The caller's legal atomic moves now; each can be POSTed back unchanged."""
        matches = _matches()
        loaded, seat = caller(matches, match_id)
        moves = []
        if (
            seat is not None
            and loaded.record.full
            and not lifecycle.ended(loaded.folded)
            and not lifecycle.taken_over(loaded.folded, seat)
        ):
            moves = matches.game(loaded.record).legal_moves(loaded.seen.state, seat)
        return presenters.json_response({"version": loaded.version, "seat": seat, "moves": moves})


@blp.route("/<match_id>/moves")
class Moves(MethodView):
    @blp.operation("submitMove")
    @blp.arguments(MoveRequestSchema())
    @blp.arguments(IncludeArgsSchema(), location="query")
    @blp.header(
        "Idempotency-Key",
        f"{idempotency.RULE}; a retry with the same key and body "
        "replays the first result (`duplicate: true`) instead of moving twice; the same key with "
        "another body is refused (422 idempotency-key-reused)",
        schema=idempotency.SCHEMA,
    )
    @blp.response(201, MoveResponseSchema)
    @blp.alt_response(400, **PROBLEM, description="malformed JSON, bad-idempotency-key")
    @blp.alt_response(401, **UNAUTHORIZED, description="missing or bad token")
    @blp.alt_response(403, **PROBLEM, description="not-your-turn / not-your-seat")
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(
        409,
        **PROBLEM,
        description="stale-version, match-over, match-not-started, seat-played-by-ai, out-of-time "
        "(the seat's clock ran out: the match's timeout policy was applied instead)",
    )
    @blp.alt_response(413, **PROBLEM)
    @blp.alt_response(
        422,
        **PROBLEM,
        description="illegal-move (with the game's rule code), unknown-move-field "
        "(a key the move's type does not take)",
    )
    def post(self, body, query, match_id):
        """Submit one move. ``Idempotency-Key`` makes retries safe.

        With ``?include=legal_moves`` the returned state lists the caller's next
        legal moves, so a client that acts again needs no extra request.
        """
        return presenters.json_response(
            submit_move(
                _matches(),
                match_id,
                body,
                bearer_token(),
                request.headers.get("Idempotency-Key"),
                query.get("include"),
            ),
            201,
        )


def submit_move(matches, match_id: str, body: dict, token, idempotency_key, include=None) -> dict:
    """One move of the caller (``token``) from its loaded request ``body``: the move response.

    Served by the view above and by the lean path (:mod:`gameroom.http.lean`).
    """
    # The append checks the version, so a cached fold will do (no read when warm).
    loaded, seat = seat_of(matches, match_id, token, required=True, fresh=False)
    if body.get("seat") is not None and body["seat"] != seat:
        raise NotYourSeat(f"Your token is for seat {seat}, not seat {body['seat']}.")
    idempotency_key = idempotency.checked_key(idempotency_key)
    result = matches.submit(
        match_id,
        seat,
        body["move"],
        expected_version=body["expected_version"],
        idempotency_key=idempotency_key,
        loaded=loaded,
        maybe_behind=True,
        token=token,
    )
    [entry] = matches.redact(result.loaded, [result.entry], seat)
    return {
        "version": result.version,
        "events": entry["events"],
        "text": entry["text"],
        "duplicate": result.duplicate,
        "state": presenters.state(matches, result.loaded, seat, include),
    }


@blp.route("/<match_id>/events")
class Events(MethodView):
    @blp.operation("listEvents")
    @blp.arguments(HistoryArgsSchema(), location="query")
    @blp.response(200, EventPageSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **PROBLEM)
    def get(self, args, match_id):
        """History after version ``after``, each entry redacted for the caller."""
        matches = _matches()
        loaded, seat = caller(matches, match_id)
        entries = matches.store.read_page(match_id, args["after"], args["limit"])
        return presenters.json_response(
            {"version": loaded.version, "entries": matches.redact(loaded, entries, seat)}
        )
