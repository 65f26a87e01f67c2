"""The lean path: a match's moves, plain state reads, seat claims and creation answered below Flask.

A move is the request a game server answers most, and a new match's creation,
claims and first state reads come with every game. Through Flask each pays for
a request context, URL routing, flask-smorest's and webargs' decorator layers
and the response object, which together cost more than the move itself (rules,
redaction, the Redis append). This WSGI middleware (Flask's documented way to
wrap ``app.wsgi_app``) answers these ordinary requests itself and hands every
other request to Flask unchanged.

It is the same endpoint, not a second one: the body is loaded with the same
``MoveRequestSchema``, the caller found with the same rules
(:func:`gameroom.api.auth.parse_bearer`), and the move made by the view's own
function (:func:`gameroom.api.play.submit_move`), and every problem
is built by :mod:`gameroom.api.problems`, the module Flask's error handlers
call. Anything unusual goes to Flask, which answers it as it always did:

- another path, method or match id shape, a query string other than none or
  ``include=legal_moves``, an ``Origin``
  header (CORS), a body that is not ``application/json`` with a
  ``Content-Length`` within the limit;
- a body that is not a JSON object, or that the schema refuses: the body
  already read is handed to Flask, so malformed JSON (400), the body limits
  (400) and schema errors (422) come from exactly the code they came from.

The plain state read (``GET /api/matches/{id}/state`` with no query, no
``If-None-Match`` and no ``Origin``: every client's first read of a match and
each spectator's) is taken the same way: the caller found by the same rules
(:func:`gameroom.api.auth.seat_of`, as the view's ``caller``), the state built
by :func:`gameroom.api.presenters.state` and tagged by
:func:`gameroom.api.play.state_tag`, exactly as the view does.

A seat claim (``POST /api/matches/{id}/seats/{n}``, no query) likewise: its
body loaded with the view's ``ClaimSeatSchema`` (anything it refuses goes to
Flask), the claim made by the view's own function
(:func:`gameroom.api.matches.claim_response`), answered with the bytes
flask-smorest's dump with ``SeatTokenSchema`` makes of it.

A creation (``POST /api/matches``, no query) too: the view's
``MatchCreateSchema`` and :func:`gameroom.api.matches.create_response`.

openapi.yaml still documents these endpoints through the Flask views in
:mod:`gameroom.api.play` and :mod:`gameroom.api.matches`, which serve the
requests handed on.
"""

from __future__ import annotations

import io
import re
from typing import Any

from marshmallow import ValidationError

from gameroom.schemas import ClaimSeatSchema, MatchCreateSchema, MoveRequestSchema

from .. import jsoncodec
from ..api import bodies, presenters, problems
from ..api.auth import parse_bearer, seat_of
from ..api.matches import claim_response, create_response
from ..api.play import state_tag, submit_move
from ..core.matches import MATCH_ID_PATTERN
from ..errors import BadRequest, GameroomError
from ..eventstore import UNAVAILABLE
from .framing import content_length

#: ``/api/matches/<id>/moves`` with an id of the shapes the server makes (others go to Flask).
_MOVES = re.compile(rf"/api/matches/({MATCH_ID_PATTERN})/moves")
_STATE = re.compile(rf"/api/matches/({MATCH_ID_PATTERN})/state")
#: A seat claim, with the seat as Flask's int converter writes it back (no sign, no leading zero).
_SEATS = re.compile(rf"/api/matches/({MATCH_ID_PATTERN})/seats/(0|[1-9][0-9]?)")
#: The query strings taken here, and the ``include`` that ``IncludeArgsSchema`` loads from each.
_QUERIES = {"": None, "include=legal_moves": "legal_moves"}
_JSON_TYPES = frozenset({"application/json", "application/json; charset=utf-8"})


class LeanRequests:
    """WSGI middleware: ``app.wsgi_app = LeanRequests(app.wsgi_app, matches, max_body, vary_origin,
    seats)``.

    ``vary_origin``: CORS origins are configured, so Flask adds ``Vary: Origin`` to every
    response (:mod:`gameroom.api.cors`); the answers made here carry it too.
    """

    def __init__(self, wsgi_app, matches, max_body: int, vary_origin: bool = False, seats=None):
        self.wsgi_app = wsgi_app
        self.matches = matches
        self.max_body = max_body
        self.vary_origin = vary_origin
        self.seats = seats  # None: creation is left to Flask
        #: The body schema of each request kind with a body (the Flask views' own).
        self._schemas = {
            "move": MoveRequestSchema(),
            "claim": ClaimSeatSchema(),
            "create": MatchCreateSchema(),
        }

    def __call__(self, environ, start_response):
        route = self._route(environ)
        if route is None:
            return self.wsgi_app(environ, start_response)
        kind, match_id, arg = route
        if kind == "state":
            return self._answer(lambda: self._state(match_id, environ), environ, start_response)
        try:
            body = self._body(environ, self._schemas[kind])
        except OSError:  # the client left, or stopped sending, before its body had come
            incomplete = BadRequest("The request's body did not arrive whole.")  # Flask's code for it too
            return problems.from_gameroom(incomplete)(environ, start_response)
        if body is None:  # Flask answers it (from the same bytes, if they were read)
            return self.wsgi_app(environ, start_response)
        if kind == "create":
            make = lambda: self._create(body, environ)  # noqa: E731
        elif kind == "claim":
            make = lambda: self._claim(match_id, arg, body, environ)  # noqa: E731
        else:
            make = lambda: ("201 CREATED", self._move(match_id, body, environ, arg), [])  # noqa: E731
        return self._answer(make, environ, start_response)

    def _route(self, environ) -> tuple[str, str, Any] | None:
        """What a request taken here is: ``("state", id, None)``, ``("create", "", None)``,
        ``("claim", id, seat)`` or ``("move", id, include)``; None for anything Flask answers."""
        if "HTTP_ORIGIN" in environ:  # CORS: Flask's
            return None
        method, path = environ.get("REQUEST_METHOD"), environ.get("PATH_INFO", "")
        query = environ.get("QUERY_STRING", "")
        route: tuple[str, str, Any] | None = None
        if method == "GET":
            found = _STATE.fullmatch(path)
            if found is not None and not query and "HTTP_IF_NONE_MATCH" not in environ:
                route = ("state", found.group(1), None)
        elif method == "POST":
            if path == "/api/matches":
                if not query and self.seats is not None:
                    route = ("create", "", None)
            elif (found := _MOVES.fullmatch(path)) is not None:
                if query in _QUERIES:
                    route = ("move", found.group(1), _QUERIES[query])
            elif (found := _SEATS.fullmatch(path)) is not None and not query:
                route = ("claim", found.group(1), int(found.group(2)))
        return None if route is None or route[1] == "import" else route

    def _body(self, environ, schema) -> dict | None:
        """The JSON body as ``schema`` loads it; None for anything Flask must answer (a body read
        here is handed back to it)."""
        length = content_length(environ.get("CONTENT_LENGTH") or "")
        if (
            length is None
            or not 0 < length <= self.max_body
            or environ.get("CONTENT_TYPE", "").lower() not in _JSON_TYPES
        ):
            return None
        data = environ["wsgi.input"].read(length)
        body = self._load(data, schema)
        if body is None:
            environ["wsgi.input"] = io.BytesIO(data)
            environ["CONTENT_LENGTH"] = str(len(data))
        return body

    def _answer(self, make, environ, start_response):
        """Answer with ``make()``'s ``(status, JSON body, more headers)``, or the problem that Flask's
        error handlers would make of what it raised. The headers come in Flask's order: the
        view's own (``Location``, ``ETag``) before the body's."""
        if self.vary_origin:
            start_response = _with_vary_origin(start_response)
        try:
            status, payload, headers = make()
        except GameroomError as exc:
            return problems.from_gameroom(exc)(environ, start_response)
        except UNAVAILABLE as exc:
            return problems.from_unavailable(exc)(environ, start_response)
        except Exception as exc:  # as Flask's handler of last resort: logged, 500
            return problems.from_unexpected(exc)(environ, start_response)
        start_response(
            status,
            [*headers, ("Content-Type", "application/json"), ("Content-Length", str(len(payload)))],
        )
        return [payload]

    @staticmethod
    def _load(data: bytes, schema) -> dict | None:
        """The request body as ``schema`` loads it, or None for anything Flask must answer."""
        try:
            raw = bodies.loads(data)  # the API's limits on any JSON body
            return schema.load(raw) if isinstance(raw, dict) else None
        except (ValueError, BadRequest, ValidationError):  # ValueError: not JSON
            return None

    def _move(self, match_id: str, body: dict, environ, include: str | None) -> bytes:
        token = parse_bearer(environ.get("HTTP_AUTHORIZATION"))
        return jsoncodec.dumps(
            submit_move(self.matches, match_id, body, token, environ.get("HTTP_IDEMPOTENCY_KEY"), include)
        )

    def _state(self, match_id: str, environ) -> tuple[str, bytes, list]:
        """The view's answer to a plain state read (see :class:`gameroom.api.play.State`)."""
        loaded, seat = seat_of(self.matches, match_id, parse_bearer(environ.get("HTTP_AUTHORIZATION")))
        tag = state_tag(loaded, seat, None)
        payload = jsoncodec.dumps(presenters.state(self.matches, loaded, seat, None, past=False))
        return "200 OK", payload, [("ETag", f'"{tag}"')]

    def _create(self, body: dict, environ) -> tuple[str, bytes, list]:
        """The view's answer to a creation (see :class:`gameroom.api.matches.MatchCollection`);
        the match's URL made as Flask's ``url_for`` makes it (the app's mount point, then the path)."""
        root = environ.get("SCRIPT_NAME", "")
        payload, headers = create_response(
            self.matches, self.seats, body, lambda match_id: f"{root}/api/matches/{match_id}"
        )
        return "201 CREATED", jsoncodec.dumps(payload), list(headers.items())

    def _claim(self, match_id: str, seat: int, body: dict, environ) -> tuple[str, bytes, list]:
        """The view's answer to a seat claim (see :class:`gameroom.api.matches.SeatClaim`), with
        Flask's newline after JSON. The view dumps it with its response schema, ``SeatTokenSchema``,
        whose dump of what :func:`claim_response` builds is that dict itself, key for key and in
        order (tests/http/test_lean.py compares this answer with Flask's byte for byte, and,
        for matches with lifecycle settings, with its own dump and Flask's keys); skipping it
        saves 25–55 µs of CPU per claim, measured in-process."""
        claimed = claim_response(self.matches, match_id, seat, body, environ.get("HTTP_IDEMPOTENCY_KEY"))
        return "201 CREATED", jsoncodec.dumps(claimed) + b"\n", []


def _with_vary_origin(start_response):
    def starting(status, headers, exc_info=None):
        return start_response(status, [*headers, ("Vary", "Origin")], exc_info)

    return starting
