"""Who is calling: a seat's bearer token, or nobody (a spectator).

Tokens are compared only as SHA-256 hashes and are never logged.
"""

from __future__ import annotations

from flask import request

from ..errors import BadRequest, Unauthorized


def parse_bearer(header: str | None) -> str | None:
    """The token of an ``Authorization`` header's value (None for no header); 401 for any other scheme."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("Use 'Authorization: Bearer <token>'.", code="bad-token")
    return token.strip()


def bearer_token(allow_query: bool = False) -> str | None:
    """The caller's token: the ``Authorization`` header's, or with ``allow_query`` (the live stream,
    which EventSource opens without headers) ``?token=``'s. Both, naming different tokens: 400."""
    header = request.headers.get("Authorization")
    query = (request.args.get("token") or None) if allow_query else None
    if not header:
        return query
    token = parse_bearer(header)
    if query is not None and query != token:
        raise BadRequest(
            "The Authorization header and ?token= name different tokens: send one.", code="conflicting-tokens"
        )
    return token


def caller(matches, match_id: str, *, allow_query: bool = False, required: bool = False, fresh: bool = True):
    """The latest match and the caller's seat in it (None for a spectator).

    404 for an unknown match comes before 401. An unknown token is 401 (not
    silently a spectator, so a client with a typo'd token notices).
    ``required``: spectators get 401 too. ``fresh=False``: the match may come
    from this process's cache without a read (see ``Matches.open``).
    """
    return seat_of(matches, match_id, bearer_token(allow_query), required=required, fresh=fresh)


def seat_of(matches, match_id: str, token: str | None, *, required: bool = False, fresh: bool = True):
    """:func:`caller` for a token already read from the request."""
    loaded, seat, token_ok = matches.open(match_id, token, fresh=fresh)
    if token is None and required:
        raise Unauthorized("This needs a seat's bearer token.", code="token-required")
    if not token_ok:
        raise Unauthorized("The token is not valid for this match.", code="bad-token")
    return loaded, seat


def caller_seat(matches, match_id: str, *, allow_query: bool = False, required: bool = False) -> int | None:
    """Only the caller's seat (see :func:`caller`)."""
    return caller(matches, match_id, allow_query=allow_query, required=required)[1]
