"""The ``Idempotency-Key`` header: one rule for every route that honours it (moves, seat
claims, undo), so a key one of them takes is taken by all and refused by all alike."""

from __future__ import annotations

import re

from ..errors import BadRequest

#: An Idempotency-Key: visible ASCII and space (no control character, nothing a header
#: decoded as latin-1 could smuggle in), at most 128 of them.
IDEMPOTENCY_KEY_PATTERN = "^[ -~]{1,128}$"
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)

#: The header's schema in the OpenAPI document.
SCHEMA = {"type": "string", "minLength": 1, "maxLength": 128, "pattern": IDEMPOTENCY_KEY_PATTERN}
#: What each route's documentation of the header begins with.
RULE = "1-128 printable ASCII characters (space to tilde)"


def checked_key(raw: str | None) -> str | None:
    """The header's value, refused with 400 bad-idempotency-key unless it follows the rule."""
    if raw is not None and not _IDEMPOTENCY_KEY.fullmatch(raw):
        raise BadRequest(
            "Idempotency-Key must be 1–128 printable ASCII characters.", code="bad-idempotency-key"
        )
    return raw
