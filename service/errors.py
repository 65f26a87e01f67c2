"""The exception hierarchy, mapped to problem+json in one place (gameroom.api.problems).

Every error has a stable machine-readable ``code`` and an HTTP ``status``.
Messages never contain hidden information or secrets.
"""

from __future__ import annotations

import re


class GameroomError(Exception):
    """Base of every error the server reports to a client."""

    status = 500
    code = "internal-error"
    title = "Internal error"

    def __init__(self, detail: str = "", *, code: str | None = None, **extra):
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        if code:
            self.code = code
        self.extra = extra


class BadRequest(GameroomError):
    status, code, title = 400, "bad-request", "Bad request"


class UnsupportedMediaType(GameroomError):
    status, code, title = 415, "unsupported-media-type", "Unsupported media type"


class ValidationFailed(GameroomError):
    status, code, title = 422, "validation-error", "Invalid request"


class Unauthorized(GameroomError):
    status, code, title = 401, "bad-token", "Unknown or invalid token"


class Forbidden(GameroomError):
    status, code, title = 403, "forbidden", "Forbidden"


class NotYourTurn(Forbidden):
    code, title = "not-your-turn", "Not your turn"


class NotYourSeat(Forbidden):
    code, title = "not-your-seat", "Not your seat"


class NotFound(GameroomError):
    status, code, title = 404, "not-found", "Not found"


#: A match id as the server makes them, and a little more (see ``MATCH_ID_PATTERN``).
_SHOWN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def unknown_match(match_id: str) -> NotFound:
    """404 ``unknown-match``, naming the id only when it has the shape of one: whatever else a
    client put in the URL (3,000 characters, a NUL, a right-to-left override) is not echoed."""
    named = f" {match_id}" if _SHOWN_ID.fullmatch(match_id) else " with that id"
    return NotFound(f"No match{named}.", code="unknown-match")


class Conflict(GameroomError):
    status, code, title = 409, "conflict", "Conflict"


class VersionConflict(Conflict):
    """The match moved past the version a writer expected."""

    code, title = "stale-version", "Stale version"

    def __init__(self, current_version: int, detail: str = ""):
        super().__init__(
            detail or f"The match is at version {current_version}.",
            current_version=current_version,
        )
        self.current_version = current_version


class RuleViolation(GameroomError):
    """A move the game's rules refuse (from ``IllegalMove``)."""

    status, code, title = 422, "illegal-move", "Illegal move"

    def __init__(self, rule: str, detail: str):
        super().__init__(detail, rule=rule)
        self.rule = rule


class PluginError(Exception):
    """A game plugin is broken (raised at start-up, not reported to clients)."""
