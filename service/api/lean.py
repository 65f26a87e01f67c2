"""The lean move path: ``POST /api/matches/{id}/moves`` answered below Flask.

A move is the request a game server answers most. Through Flask it pays for a
request context, URL routing, flask-smorest's and webargs' decorator layers
and the response object, which together cost more than the move itself (rules,
redaction, the Redis append). This WSGI middleware (Flask's documented way to
wrap ``app.wsgi_app``) answers the ordinary move request itself and hands
every other request to Flask unchanged.

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

openapi.yaml still documents the endpoint through the Flask view in
:mod:`gameroom.api.play`, which serves the requests handed on.
"""

from __future__ import annotations

import io
import re

from marshmallow import ValidationError

from gameroom.schemas import MoveRequestSchema

from .. import jsoncodec
from ..core.matches import MATCH_ID_PATTERN
from ..errors import BadRequest, GameroomError
from ..eventstore import UNAVAILABLE
from . import bodies, problems
from .auth import parse_bearer
from .play import submit_move

#: ``/api/matches/<id>/moves`` with an id of the shapes the server makes (others go to Flask).
_MOVES = re.compile(rf"/api/matches/({MATCH_ID_PATTERN})/moves")
#: The query strings taken here, and the ``include`` that ``IncludeArgsSchema`` loads from each.
_QUERIES = {"": None, "include=legal_moves": "legal_moves"}
_JSON_TYPES = frozenset({"application/json", "application/json; charset=utf-8"})


class LeanMoves:
    """WSGI middleware: ``app.wsgi_app = LeanMoves(app.wsgi_app, matches, max_body)``."""

    def __init__(self, wsgi_app, matches, max_body: int):
        self.wsgi_app = wsgi_app
        self.matches = matches
        self.max_body = max_body
        self.schema = MoveRequestSchema()

    def __call__(self, environ, start_response):
        query = environ.get("QUERY_STRING", "")
        if environ.get("REQUEST_METHOD") != "POST" or "HTTP_ORIGIN" in environ or query not in _QUERIES:
            return self.wsgi_app(environ, start_response)
        found = _MOVES.fullmatch(environ.get("PATH_INFO", ""))
        if found is None or found.group(1) == "import":
            return self.wsgi_app(environ, start_response)
        length = environ.get("CONTENT_LENGTH")
        if (
            not length
            or not length.isdigit()
            or not 0 < int(length) <= self.max_body
            or environ.get("CONTENT_TYPE", "").lower() not in _JSON_TYPES
        ):
            return self.wsgi_app(environ, start_response)
        data = environ["wsgi.input"].read(int(length))
        body = self._load(data)
        if body is None:  # Flask answers it, from the same bytes
            environ["wsgi.input"] = io.BytesIO(data)
            environ["CONTENT_LENGTH"] = str(len(data))
            return self.wsgi_app(environ, start_response)
        try:
            payload = self._move(found.group(1), body, environ, _QUERIES[query])
        except GameroomError as exc:
            return problems.from_gameroom(exc)(environ, start_response)
        except UNAVAILABLE as exc:
            return problems.from_unavailable(exc)(environ, start_response)
        except Exception as exc:  # as Flask's handler of last resort: logged, 500
            return problems.from_unexpected(exc)(environ, start_response)
        start_response(
            "201 CREATED", [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))]
        )
        return [payload]

    def _load(self, data: bytes) -> dict | None:
        """The move request as the schema loads it, or None for anything Flask must answer."""
        try:
            raw = bodies.loads(data)  # the API's limits on any JSON body
            return self.schema.load(raw) if isinstance(raw, dict) else None
        except (ValueError, BadRequest, ValidationError):  # ValueError: not JSON
            return None

    def _move(self, match_id: str, body: dict, environ, include: str | None) -> bytes:
        token = parse_bearer(environ.get("HTTP_AUTHORIZATION"))
        return jsoncodec.dumps(
            submit_move(self.matches, match_id, body, token, environ.get("HTTP_IDEMPOTENCY_KEY"), include)
        )
