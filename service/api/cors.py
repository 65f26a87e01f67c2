"""Cross-origin requests (CORS): pages of the configured origins may call the API.

``GAMEROOM_CORS_ORIGINS`` lists the allowed origins (``https://a.example,
https://b.example``), or ``*`` for any; empty (the default) allows none, so
browsers keep other sites' pages away from the API. For an allowed origin,
every response (errors and streams included) carries
``Access-Control-Allow-Origin`` with that origin, and a preflight
(``OPTIONS`` with ``Access-Control-Request-Method``) is answered with 204 and
the methods and headers the API reads. A preflight from any other origin gets
403 problem+json ``origin-not-allowed``. No credentials (cookies) are
involved: seats are bearer tokens, so ``Allow-Credentials`` is never sent.
"""

from __future__ import annotations

from flask import Flask, Response, request

from ..errors import Forbidden

ALLOW_METHODS = "GET, POST, OPTIONS"
ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID"
EXPOSE_HEADERS = "ETag, Location, Retry-After, Gameroom-Replicas"
MAX_AGE = "600"


class OriginNotAllowed(Forbidden):
    code, title = "origin-not-allowed", "Origin not allowed"


def parse_origins(raw: str) -> frozenset[str]:
    return frozenset(o.strip().rstrip("/") for o in raw.split(",") if o.strip())


def init_app(app: Flask, origins: str) -> None:
    allowed = parse_origins(origins)
    any_origin = "*" in allowed

    def allows(origin: str | None) -> bool:
        return bool(origin) and (any_origin or origin in allowed)

    @app.before_request
    def preflight():
        if request.method != "OPTIONS" or "Access-Control-Request-Method" not in request.headers:
            return None
        origin = request.headers.get("Origin")
        if not allows(origin):
            raise OriginNotAllowed("This origin may not call the API (GAMEROOM_CORS_ORIGINS).")
        return Response(
            status=204,
            headers={
                "Access-Control-Allow-Methods": ALLOW_METHODS,
                "Access-Control-Allow-Headers": ALLOW_HEADERS,
                "Access-Control-Max-Age": MAX_AGE,
            },
        )

    if not allowed:
        return  # nothing varies by Origin: leave every other response alone

    @app.after_request
    def allow_origin(response):
        origin = request.headers.get("Origin")
        response.vary.add("Origin")
        if allows(origin):
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
        return response
