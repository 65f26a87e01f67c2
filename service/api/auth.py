"""Who is calling: a seat's bearer token, or nobody (a spectator).

Tokens are compared only as SHA-256 hashes and are never logged.
"""
from __future__ import annotations

from flask import request

from ..errors import Unauthorized


def bearer_token(allow_query: bool = False) -> str | None:
    header = request.headers.get("Authorization")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("Use 'Authorization: Bearer <token>'.", code="bad-token")
        return token.strip()
    if allow_query:
        return request.args.get("token") or None
    return None


def caller_seat(matches, match_id: str, *, allow_query: bool = False, required: bool = False) -> int | None:
    """The caller's seat in ``match_id``; None for a spectator.

    An unknown token is 401 (not silently a spectator, so a client with a
    typo'd token notices). ``required``: spectators get 401 too.
    """
    matches.record(match_id)  # 404 before 401: unknown match first
    token = bearer_token(allow_query)
    if token is None:
        if required:
            raise Unauthorized("This needs a seat's bearer token.", code="token-required")
        return None
    seat = matches.records.seat_for_token(match_id, token)
    if seat is None:
        raise Unauthorized("The token is not valid for this match.", code="bad-token")
    return seat
