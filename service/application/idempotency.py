"""Idempotency keys of moves: what makes two requests the same, and the answer to a repeat.

A client's key is kept as ``seat:key`` atomically with what its first use did (the entry it
appended, or the sealed step it kept in the seat's draft). A repeat with the same request
(:func:`request_fingerprint`) is answered with that first use's result (:func:`prior`); the
same key with another request is refused (idempotency-key-reused). Undos keep their keys the
same way (see :mod:`gameroom.application.undo`).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, cast

from ..core import decider
from ..errors import ValidationFailed
from .loaded import Loaded, MoveResult, has_drafts

if TYPE_CHECKING:
    from .matches import Matches


def key_reused(what: str = "request") -> ValidationFailed:
    """The refusal of a key used before for a different ``what`` (request, claim, undo)."""
    return ValidationFailed(
        f"This Idempotency-Key was already used for a different request; use a new key for a new {what}.",
        code="idempotency-key-reused",
    )


def request_fingerprint(move: dict, expected_version: int | None) -> str:
    """What makes two requests with one Idempotency-Key the same request: the move and
    the expected version, canonically encoded and hashed (the seat is part of the key)."""
    canonical = json.dumps(
        {"move": move, "expected_version": expected_version},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def undo_fingerprint(steps: int, expected_version: int | None) -> str:
    """What makes two undos with one Idempotency-Key the same request (never equal to a move's:
    see :func:`request_fingerprint`)."""
    canonical = json.dumps(
        {"undo": {"steps": steps}, "expected_version": expected_version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def check_fingerprint(stored: str | None, fingerprint: str | None) -> None:
    if stored is not None and fingerprint is not None and stored != fingerprint:
        raise key_reused()


def replayed(
    matches: Matches, match_id: str, version: int, stored: str | None = None, fingerprint: str | None = None
) -> MoveResult:
    """The result of the append that first used an idempotency key; refused when
    the key is reused for a different request (``stored`` is that request's fingerprint)."""
    check_fingerprint(stored, fingerprint)
    entry = cast(dict, matches.store.entry(match_id, version))  # there: the key names its version
    return MoveResult(version, entry, matches.load(match_id), duplicate=True)


def prior(
    matches: Matches, match_id: str, seat: int, key: str, fingerprint: str, loaded: Loaded | None
) -> MoveResult | None:
    """The replay of the request that first used idempotency ``key``, from the log or from
    ``seat``'s draft; None when the key is new. A sealed step an undo dropped since replays
    as it was taken (the key stays with it: never taken again); a key an undo of the draft
    used is refused (idempotency-key-reused), as an undo's in the log is."""
    found = matches.records.idempotent(match_id, key)
    if found is not None:
        return replayed(matches, match_id, *found, fingerprint)
    record = loaded.record if loaded is not None else matches.records.get(match_id)
    if record is None or not has_drafts(matches.game(record)) or not isinstance(seat, int):
        return None
    draft = matches.store.draft(match_id, seat)
    if key not in draft.keys and key not in draft.dropped and key not in draft.undone:
        return None
    mine = matches.with_draft(matches.load(match_id), seat)
    if draft.base != decider.barrier(mine.folded):
        return None  # a stale draft's key: it no longer counts
    if key in draft.undone:
        raise key_reused()
    if key in draft.dropped:
        stored, step = draft.dropped[key]
    else:
        number, stored = draft.keys[key]
        if number > len(mine.draft):
            return None  # a stale draft's step: it no longer counts
        step = mine.draft[number - 1]
    check_fingerprint(stored, fingerprint)
    entry = {"kind": "move", "seat": seat, "move": step["move"], "events": step["events"]}
    return MoveResult(mine.version, entry | {"version": mine.version}, mine, duplicate=True, sealed=True)
