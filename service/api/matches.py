"""Matches: create, list, join, and read a match's public summary."""

from __future__ import annotations

import logging

from flask import current_app, request, url_for
from flask.views import MethodView
from werkzeug.routing import BaseConverter, IntegerConverter

from gameroom.schemas import (
    ClaimSeatSchema,
    MatchCreatedSchema,
    MatchCreateSchema,
    MatchListArgsSchema,
    MatchSummarySchema,
    SeatTokenSchema,
)
from gameroom.schemas.matches import MatchListSchema

from ..core.matches import hash_token, new_token
from . import idempotency, presenters
from .blueprint import Blueprint
from .docs import LOCATION, PROBLEM

log = logging.getLogger(__name__)

blp = Blueprint("matches", __name__, url_prefix="/api/matches", description="Matches and seats")


class MatchIdConverter(BaseConverter):
    """A match id in ``/api/matches/<id>``: any segment but ``import``, so that
    ``/api/matches/import`` (POST only) answers 405 with ``Allow: POST`` to other
    methods instead of being read as the match named "import"."""

    regex = r"(?!import(?![^/]))[^/]+"


class AsciiIntegerConverter(IntegerConverter):
    """Werkzeug's ``int`` converter, but for ASCII digits only: its ``\\d+`` also matches other
    scripts' digits, so ``/seats/１`` (full-width) claimed seat 1. Installed as the app's ``int``;
    documented as an integer still (flask-smorest maps converters through their classes)."""

    regex = r"[0-9]+"


def match_id_param_schema(converter) -> dict:
    """How the converter's parameter is documented in the OpenAPI document."""
    return {"type": "string"}


def _matches():
    return current_app.extensions["gameroom"]


@blp.route("")
class MatchCollection(MethodView):
    @blp.operation("createMatch")
    @blp.arguments(MatchCreateSchema(), example={"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
    @blp.response(201, MatchCreatedSchema, headers=LOCATION)
    @blp.alt_response(404, **PROBLEM, description="unknown game")
    @blp.alt_response(422, **PROBLEM, description="invalid seats or options")
    def post(self, body):
        """Create a match. Returns one secret token per human seat it filled, and the opening state
        as a spectator sees it."""
        payload, headers = create_response(
            _matches(),
            current_app.extensions["gameroom_seats"],
            body,
            lambda match_id: url_for("matches.MatchResource", match_id=match_id),
        )
        return presenters.json_response(payload, 201, headers)

    @blp.operation("listMatches")
    @blp.arguments(MatchListArgsSchema(), location="query")
    @blp.response(200, MatchListSchema)
    def get(self, args):
        """The lobby: matches, newest first, filterable by game and status. Unlisted (private)
        matches are never listed; a match created with ``hide_names`` is listed without seat names."""
        matches = _matches()
        found, offset = [], args["offset"]
        # Filters are applied to the newest matches page by page; the lobby is small.
        while len(found) < args["limit"]:
            ids = matches.records.list(offset, 100)
            if not ids:
                break
            offset += len(ids)
            for match_id in ids:
                record = matches.records.get(match_id)
                if record is None or record.game not in matches.registry or record.settings.get("unlisted"):
                    continue
                if args.get("game") and record.game != args["game"]:
                    continue
                status, _ = matches.records.progress(match_id)
                if args.get("status") and status != args["status"]:
                    continue
                try:
                    found.append(presenters.lobby_summary(matches, matches.load(match_id)))
                except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                    # One match whose log does not fold must not take the lobby down for everyone
                    # (Redis being away still does: that is a 503, not a shorter lobby).
                    log.exception("match %s left out of the lobby: its log cannot be read", match_id)
                    continue
                if len(found) == args["limit"]:
                    break
        return {"matches": found}


@blp.route("/<match_id:match_id>")
class MatchResource(MethodView):
    @blp.operation("getMatch")
    @blp.response(200, MatchSummarySchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, match_id):
        """Public summary: game, status, version, seats, active seats, outcome."""
        matches = _matches()
        return presenters.summary(matches, matches.load(match_id))


@blp.route("/<match_id>/seats/<int:seat>")
class SeatClaim(MethodView):
    @blp.operation("claimSeat")
    @blp.arguments(ClaimSeatSchema())
    @blp.header(
        "Idempotency-Key",
        f"{idempotency.RULE}; a repeat of a claim that won the seat, with the same key and body, "
        "gets the same seat and token again (201) instead of seat-taken; the same key with another "
        "name is refused (422 idempotency-key-reused). The token is derived from the key, so the "
        "key is as secret as the token: use a new random key for each claim",
        schema=idempotency.SCHEMA,
    )
    @blp.response(201, SeatTokenSchema)
    @blp.alt_response(400, **PROBLEM, description="malformed JSON, bad-idempotency-key")
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(
        409, **PROBLEM, description="seat-taken, seat-reserved (a rematch's seat kept for its player)"
    )
    @blp.alt_response(422, **PROBLEM, description="an invalid body, idempotency-key-reused")
    def post(self, body, match_id, seat):
        """Claim an open seat; returns that seat's token (shown only once, unless the claim is
        repeated with its ``Idempotency-Key``)."""
        return claim_response(_matches(), match_id, seat, body, request.headers.get("Idempotency-Key"))


def create_response(matches, seats, body: dict, location) -> tuple[dict, dict]:
    """Create the match ``body`` asks for: the response's body and headers (also called by
    :mod:`gameroom.http.lean`). ``location``: the URL of a match, given its id."""
    settings = seats.settings(body)
    admin = new_token()
    loaded, tokens = matches.create(
        body["game"],
        body["seats"],
        body["options"],
        body["seed"],
        settings=settings,
        admin_hash=hash_token(admin),
    )
    payload = {
        "match": presenters.summary(matches, loaded),
        "tokens": {str(k): v for k, v in tokens.items()},
        "admin_token": admin,
        "state": presenters.state(matches, loaded, None),
    }
    return payload, {"Location": location(loaded.record.id)}


def claim_response(matches, match_id: str, seat: int, body: dict, idempotency_key: str | None = None) -> dict:
    """Claim ``seat`` for ``body["name"]``: the response before its schema's dump (also called
    by :mod:`gameroom.http.lean`). ``idempotency_key``: the request's header, unchecked."""
    key = idempotency.checked_key(idempotency_key)
    loaded, token = matches.claim_seat(match_id, seat, body["name"], idempotency_key=key)
    return {"seat": seat, "token": token, "match": presenters.summary(matches, loaded)}
