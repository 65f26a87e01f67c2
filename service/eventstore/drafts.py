"""Drafts: a seat's sealed steps, kept beside the log until the seat confirms.

Where a game declares a seat's steps sealed (``Game.sealed_steps``: private
until the seat confirms, as in Look at the Stars' simultaneous turn, H2), each
such step would leak *how many* steps the seat took if it were an entry of its
own: every version number, ETag, SSE id and history page counts entries. So a
sealed step goes to the seat's draft instead (one hash per match and seat, in
the match's slot, ``keys.draft``), which only that seat's token reads; the
seat's confirming step then appends the whole draft and itself as one entry
(``sealed`` in the entry), in the append script that deletes the draft
(:meth:`EventStore.append` with a :class:`DraftFlush`).

A draft is written against a *base*: the version of the match's last barrier
(a draw, a reveal or a lifecycle entry) when its first step was taken. A
draft whose base is not the match's current barrier is stale (a takeover or a
resignation came between) and counts as empty; the next push replaces it.

Every write is one Lua script that checks what the writer saw (the log's
version for a push, the draft's base and length for both), so racing writers
of one seat cannot both add a step on the same draft, and an idempotency key
replays its step instead of adding it twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import redis

from .. import jsoncodec
from ..errors import VersionConflict
from . import keys
from .scripts import POP_LUA, PUSH_LUA


@dataclass(frozen=True)
class Draft:
    """A seat's draft as stored: ``base`` (None: there is none) and its steps, oldest first."""

    base: int | None = None
    steps: list = field(default_factory=list)
    #: idempotency key -> (its step's number, the fingerprint stored with it or None)
    keys: dict = field(default_factory=dict)
    #: idempotency key of an undo of draft steps -> (the steps it left, its fingerprint or None)
    undone: dict = field(default_factory=dict)
    #: idempotency key of a step an undo dropped -> (its fingerprint or None, the step)
    dropped: dict = field(default_factory=dict)

    def current(self, barrier: int) -> list:
        """The steps, if the draft was written against ``barrier`` (else none: it is stale)."""
        return list(self.steps) if self.base == barrier else []


@dataclass(frozen=True)
class DraftFlush:
    """What an append that carries a seat's draft expects of it (see ``EventStore.append``)."""

    seat: int
    base: int
    count: int


@dataclass(frozen=True)
class DraftResult:
    """The outcome of a push or a pop: the draft's new length, or a replay of an idempotency key.

    ``duplicate``: the key was seen; for a push, ``step`` is its step's number in the draft, or
    ``version`` the entry that carries it once the draft was flushed, or ``dropped`` the step
    itself once an undo dropped it; for a pop, ``count`` the steps its first use left;
    ``fingerprint`` is the one stored with the key (None if none). ``reused``: the key is the
    other kind's (a push found an undo's, a pop a step's): nothing was done, and the caller
    refuses the request (idempotency-key-reused).
    """

    count: int = 0
    duplicate: bool = False
    step: int | None = None
    version: int | None = None
    fingerprint: str | None = None
    dropped: dict | None = None
    reused: bool = False


def _dropped(raw) -> tuple[str | None, dict]:
    fingerprint, _, step = _text(raw).partition(":")
    return fingerprint or None, json.loads(step)


def _text(raw) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _split(raw) -> tuple[int, str | None]:
    number, _, fingerprint = _text(raw).partition(":")
    return int(number), fingerprint or None


class Drafts:
    """The draft scripts on one redis-py client (``decode_responses=False``)."""

    def __init__(self, client: redis.Redis):
        self.redis = client
        self._push = client.register_script(PUSH_LUA)
        self._pop = client.register_script(POP_LUA)

    def read(self, match_id: str, seat: int) -> Draft:
        found = {_text(k): v for k, v in self.redis.hgetall(keys.draft(match_id, seat)).items()}
        if "base" not in found:
            return Draft()
        count = int(found.get("n", 0))
        steps = [json.loads(found[f"s:{i}"]) for i in range(1, count + 1)]
        seen = {k[2:]: _split(v) for k, v in found.items() if k.startswith("k:")}
        undone = {k[2:]: _split(v) for k, v in found.items() if k.startswith("u:")}
        dropped = {k[2:]: _dropped(v) for k, v in found.items() if k.startswith("d:")}
        return Draft(int(found["base"]), steps, seen, undone, dropped)

    def push(
        self,
        match_id: str,
        seat: int,
        step: dict,
        expected_version: int,
        base: int,
        count: int,
        idempotency_key: str | None = None,
        fingerprint: str | None = None,
    ) -> DraftResult:
        """Add ``step`` as step ``count + 1`` of ``seat``'s draft on ``base``.

        Raises :class:`VersionConflict` unless the log is at ``expected_version`` and
        the draft holds ``count`` steps on ``base`` (a draft on another base is
        replaced when ``count`` is 0). A seen ``idempotency_key`` adds nothing and
        returns a duplicate result (``reused`` if an undo of the draft used it).
        """
        outcome, value = self._push(
            keys=[keys.draft(match_id, seat), keys.events(match_id), keys.idempotency(match_id)],
            args=[
                expected_version,
                base,
                count,
                jsoncodec.dumps(step),
                idempotency_key or "",
                fingerprint or "",
            ],
        )
        outcome = _text(outcome)
        if outcome == "conflict":
            raise VersionConflict(int(value))
        if outcome == "dup":
            version, stored = _split(value)
            return DraftResult(duplicate=True, version=version, fingerprint=stored)
        if outcome == "dupstep":
            number, stored = _split(value)
            return DraftResult(duplicate=True, step=number, fingerprint=stored)
        if outcome == "dropped":
            stored, dropped = _dropped(value)
            return DraftResult(duplicate=True, dropped=dropped, fingerprint=stored)
        if outcome == "undokey":
            return DraftResult(duplicate=True, reused=True, fingerprint=_split(value)[1])
        return DraftResult(int(value))

    def pop(
        self,
        match_id: str,
        seat: int,
        base: int,
        count: int,
        steps: int,
        idempotency_key: str | None = None,
        fingerprint: str | None = None,
    ) -> DraftResult:
        """Drop the last ``steps`` steps of a draft that holds ``count`` on ``base``; returns how
        many are left (``count``). :class:`VersionConflict` if the draft is not as the caller saw it.
        ``idempotency_key``: the undo's, kept in the draft with the pop (:attr:`Draft.undone`); a
        draft that has it drops nothing and returns a duplicate result (with the fingerprint), as
        does one where a step used it (``reused``)."""
        outcome, value = self._pop(
            keys=[keys.draft(match_id, seat), keys.events(match_id)],
            args=[base, count, steps, idempotency_key or "", fingerprint or ""],
        )
        outcome = _text(outcome)
        if outcome == "conflict":
            raise VersionConflict(int(value))
        if outcome == "dup":
            left, stored = _split(value)
            return DraftResult(left, duplicate=True, fingerprint=stored)
        if outcome == "movekey":
            return DraftResult(duplicate=True, reused=True)
        return DraftResult(int(value))
