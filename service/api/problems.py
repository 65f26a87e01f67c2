"""Every error leaves the server as application/problem+json (RFC 9457), from here only."""

from __future__ import annotations

import logging

from flask import Flask
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from .. import jsoncodec
from ..errors import GameroomError
from ..eventstore import UNAVAILABLE
from .throttle import ThrottledLog

log = logging.getLogger(__name__)

TYPE_BASE = "https://gameroom.dev/problems/"
MEDIA_TYPE = "application/problem+json"

# Stable codes for the HTTP errors raised by Flask, Werkzeug and webargs.
_HTTP_CODES = {
    400: "bad-request",
    401: "bad-token",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    409: "conflict",
    412: "precondition-failed",
    413: "body-too-large",
    415: "unsupported-media-type",
    422: "validation-error",
    429: "too-many-requests",
}


def problem_body(status: int, code: str, title: str, detail: str, **extra) -> bytes:
    """The problem+json document (RFC 9457); also what the serving layer sends itself
    for a request no app sees (:class:`gameroom.http.framing.Refused`)."""
    body = {"type": TYPE_BASE + code, "title": title, "status": status, "detail": detail, "code": code}
    body.update({k: v for k, v in extra.items() if v is not None})
    return jsoncodec.dumps(body)


def problem(status: int, code: str, title: str, detail: str, **extra):
    return Flask.response_class(
        problem_body(status, code, title, detail, **extra), status=status, mimetype=MEDIA_TYPE
    )


def from_gameroom(exc: GameroomError):
    response = problem(exc.status, exc.code, exc.title, exc.detail, **exc.extra)
    if exc.status == 401:  # RFC 9110 §11.6.1: a 401 names the scheme that would work
        response.headers["WWW-Authenticate"] = _challenge(exc.code)
    return response


def _challenge(code: str) -> str:
    """The ``WWW-Authenticate`` value of a 401 (RFC 6750 §3: ``invalid_token`` for a token that is wrong)."""
    if code == "token-required":
        return 'Bearer realm="gameroom"'
    return 'Bearer realm="gameroom", error="invalid_token"'


def from_http(exc: HTTPException):
    status = exc.code or 500
    data = getattr(exc, "data", None) or {}
    messages = data.get("messages")
    code = _HTTP_CODES.get(status, "http-error")
    detail = exc.description or exc.name
    if status == 400 and messages and "json" in messages:
        code, detail = "malformed-json", "The request body is not valid JSON."
        messages = None
    elif status == 422 and messages:
        # webargs nests by location ("json", "query"); clients want field -> messages.
        flat = {}
        for loc_messages in messages.values():
            flat.update(loc_messages if isinstance(loc_messages, dict) else {"_": loc_messages})
        messages = flat
        detail = "The request does not match its schema: " + ", ".join(sorted(flat))
    elif status == 413:
        detail = "The request body is too large."
    response = problem(status, code, exc.name, detail, errors=messages)
    for name, value in (data.get("headers") or {}).items():
        response.headers[name] = value
    if isinstance(exc, MethodNotAllowed) and exc.valid_methods:  # RFC 9110 §15.5.6: 405 lists what is allowed
        response.headers["Allow"] = ", ".join(sorted(exc.valid_methods))  # one order in every process
    if status == 401:
        response.headers["WWW-Authenticate"] = _challenge(code)
    return response


#: Seconds a client is told to wait (Retry-After) when Redis is unavailable.
RETRY_AFTER = 2
#: One line when Redis becomes unavailable, then at most one every 10 s with a count.
_outage_log = ThrottledLog(log, logging.ERROR)


def from_unavailable(exc: Exception):
    """Redis is down, frozen past the timeout or loading: 503 with Retry-After, and no traceback.

    Logged as one line, then at most once every 10 seconds with
    the count of requests refused meanwhile, not once per request.
    """
    _outage_log("Redis unavailable, answering 503: %s: %s", type(exc).__name__, exc)
    response = problem(
        503, "redis-unavailable", "Service Unavailable", "The match store is unavailable; retry shortly."
    )
    response.headers["Retry-After"] = str(RETRY_AFTER)
    return response


def from_unexpected(exc: Exception):
    log.exception("unhandled error")
    return problem(500, "internal-error", "Internal Server Error", "The server failed; the error was logged.")


def init_app(app: Flask) -> None:
    """Register the handlers; call after flask-smorest's Api so these win."""
    app.register_error_handler(GameroomError, from_gameroom)
    app.register_error_handler(HTTPException, from_http)
    for unavailable in UNAVAILABLE:
        app.register_error_handler(unavailable, from_unavailable)
    app.register_error_handler(Exception, from_unexpected)
