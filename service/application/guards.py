"""Checks the players' actions share (:mod:`~gameroom.application.absence`,
:mod:`~gameroom.application.rematch`): the match's status, and the creator's admin token."""

from __future__ import annotations

import hmac

from ..core.matches import ACTIVE, FINISHED, hash_token, status_of
from ..errors import Conflict, Unauthorized
from .loaded import Loaded
from .matches import Matches


def status(matches: Matches, loaded: Loaded) -> str:
    return status_of(loaded.record, matches.game(loaded.record), loaded.folded.state, loaded.folded)


def require_active(matches: Matches, loaded: Loaded) -> None:
    """Refuse unless the match is running: not a read-only import, not over, every seat taken."""
    if loaded.record.read_only:
        raise Conflict("This match is a read-only import.", code="read-only")
    now = status(matches, loaded)
    if now == FINISHED:
        raise Conflict("The match is over.", code="match-over")
    if now != ACTIVE:
        raise Conflict("The match has open seats and has not started.", code="match-not-started")


def check_admin(matches: Matches, match_id: str, admin_token: str | None) -> None:
    """Refuse unless ``admin_token`` is the match creator's admin token."""
    matches.record(match_id)
    stored = matches.records.admin_hash(match_id)
    if not admin_token or stored is None or not hmac.compare_digest(stored, hash_token(admin_token)):
        raise Unauthorized(
            "This needs the match's admin token (returned when it was created).", code="bad-admin-token"
        )
