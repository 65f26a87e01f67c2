"""Undo (direct or by request), fork, export and import."""

from __future__ import annotations

from flask import current_app, request, url_for
from flask.views import MethodView

from gameroom.schemas.history import (
    ExportSchema,
    ForkSchema,
    ImportResultSchema,
    ImportSchema,
    UndoRequestBodySchema,
    UndoRequestListSchema,
    UndoRequestSchema,
    UndoResultSchema,
    VoteResultSchema,
    VoteSchema,
)
from gameroom.schemas.matches import MatchCreatedSchema

from . import idempotency, presenters
from .auth import caller, caller_seat
from .blueprint import Blueprint
from .docs import LOCATION, PROBLEM, UNAUTHORIZED

blp = Blueprint("history", __name__, url_prefix="/api/matches", description="Undo, fork, export, import")


def _both():
    return current_app.extensions["gameroom"], current_app.extensions["gameroom_history"]


def _entry(matches, loaded, entry, seat):
    return matches.redact(loaded, [entry], seat)[0] if entry else None


@blp.route("/<match_id>/undo")
class Undo(MethodView):
    @blp.operation("undo")
    @blp.arguments(UndoRequestBodySchema())
    @blp.header(
        "Idempotency-Key",
        f"{idempotency.RULE}; a retry with the same key and body answers what the first one did "
        "(its undo, 201, or its request as it stands now, 202) instead of undoing again; the same "
        "key with another body is refused (422 idempotency-key-reused). A seat's moves and undos "
        "share its keys",
        schema=idempotency.SCHEMA,
    )
    @blp.response(201, UndoResultSchema, description="undone at once")
    @blp.alt_response(
        202,
        schema=UndoResultSchema,
        description="other seats must approve (a request; your seat's one pending request, the same one if you ask again)",
    )
    @blp.alt_response(400, **PROBLEM, description="malformed JSON, bad-idempotency-key")
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(
        409,
        **PROBLEM,
        description="undo-crosses-reveal, undo-crosses-confirm, nothing-to-undo, "
        "bad-undo-steps (more steps than can be undone), match-over, stale-version "
        "(not at `expected_version`, or the match moved meanwhile)",
    )
    @blp.alt_response(422, **PROBLEM, description="an invalid body, idempotency-key-reused")
    def post(self, body, match_id):
        """Undo your own last step(s): at once, by request when others acted since (at once again where
        the game declares your steps independent of theirs), never across a reveal or your confirm.

        A seat has at most one request pending: asking again for the same steps before anyone moved
        returns that request (202, same id), and asking for other steps withdraws it for a new one.
        ``expected_version`` and ``Idempotency-Key`` make a retry safe, as for moves."""
        matches, history = _both()
        seat = caller_seat(matches, match_id, required=True)
        status, result = history.undo(
            match_id,
            seat,
            body["steps"],
            expected_version=body["expected_version"],
            idempotency_key=idempotency.checked_key(request.headers.get("Idempotency-Key")),
        )
        loaded = matches.with_draft(matches.load(match_id), seat)
        out = {"status": status, "state": presenters.state(matches, loaded, seat)}
        if status == "applied":
            if result is not None:  # None: the undone steps were in the seat's draft, not the log
                out["entry"] = _entry(matches, loaded, result, seat)
            return out, 201
        out["request"] = result
        return out, 202


@blp.route("/<match_id>/undo-requests")
class UndoRequests(MethodView):
    @blp.operation("listUndoRequests")
    @blp.response(200, UndoRequestListSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, match_id):
        """The undo requests waiting for votes, at most one a seat (how another seat learns that it is asked)."""
        matches, history = _both()
        matches.record(match_id)
        return {"requests": history.pending(match_id)}


@blp.route("/<match_id>/undo-requests/<request_id>")
class UndoRequest(MethodView):
    @blp.operation("getUndoRequest")
    @blp.response(200, UndoRequestSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, match_id, request_id):
        """An undo request and its votes (a new move withdraws it)."""
        matches, history = _both()
        matches.record(match_id)
        return history.request(match_id, request_id)

    @blp.operation("voteOnUndoRequest")
    @blp.arguments(VoteSchema())
    @blp.response(200, VoteResultSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(
        409,
        **PROBLEM,
        description="not-a-voter, vote-already-cast (a seat's vote is final), or the request is no "
        "longer pending (undo-request-approved, undo-request-refused, undo-request-withdrawn)",
    )
    def post(self, body, match_id, request_id):
        """Approve or refuse another seat's undo request; the last approval applies it."""
        matches, history = _both()
        seat = caller_seat(matches, match_id, required=True)
        request, entry = history.vote(match_id, request_id, seat, body["approve"])
        loaded = matches.load(match_id)
        out = {"request": request, "state": presenters.state(matches, loaded, seat)}
        if entry:
            out["entry"] = _entry(matches, loaded, entry, seat)
        return out


@blp.route("/<match_id>/fork")
class Fork(MethodView):
    @blp.operation("forkMatch")
    @blp.arguments(ForkSchema())
    @blp.response(201, MatchCreatedSchema, headers=LOCATION)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM, description="match-not-finished")
    @blp.alt_response(422, **PROBLEM)
    def post(self, body, match_id):
        """Start a new match from a finished match's first ``version`` entries ("what if")."""
        matches, history = _both()
        loaded, tokens = history.fork(match_id, body["version"], body["seats"])
        headers = {"Location": url_for("matches.MatchResource", match_id=loaded.record.id)}
        return (
            {
                "match": presenters.summary(matches, loaded),
                "tokens": {str(k): v for k, v in tokens.items()},
                "state": presenters.state(matches, loaded, None),
            },
            201,
            headers,
        )


@blp.route("/<match_id>/export")
class Export(MethodView):
    @blp.operation("exportMatch")
    @blp.response(200, ExportSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **PROBLEM)
    def get(self, match_id):
        """The match as a self-describing document: complete once over, else redacted for the caller."""
        matches, history = _both()
        _, seat = caller(matches, match_id)
        return history.export(match_id, seat)


def import_max_body(config, registry) -> int:
    """The largest import accepted: the complete log of the longest match any installed game allows
    (``import_max_steps`` entries for a game with no bound on its length)."""
    longest = max(
        (installed.game.info.max_steps or config.import_max_steps for installed in registry), default=0
    )
    return config.max_body + config.import_step_bytes * (longest + 1)


@blp.before_request
def _import_body_limit():
    """An export is as long as its match: only the import gets the larger limit (Flask ≥ 3.1)."""
    if request.endpoint == "history.Import":
        request.max_content_length = current_app.extensions["gameroom_import_max_body"]


@blp.route("/import")
class Import(MethodView):
    @blp.operation("importMatch")
    @blp.arguments(ImportSchema())
    @blp.response(201, ImportResultSchema, headers=LOCATION)
    @blp.alt_response(404, **PROBLEM, description="unknown-game")
    @blp.alt_response(413, **PROBLEM, description="longer than the longest match the installed games allow")
    @blp.alt_response(
        422, **PROBLEM, description="tampered-log (with the first bad version), export-incomplete"
    )
    def post(self, doc):
        """Re-check every step of an exported log against the rules and store it as a read-only match."""
        matches, history = _both()
        loaded = history.import_(doc)
        headers = {"Location": url_for("matches.MatchResource", match_id=loaded.record.id)}
        return {"match": presenters.summary(matches, loaded)}, 201, headers
