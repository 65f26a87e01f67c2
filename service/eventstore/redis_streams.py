"""The event store: one Redis stream per match, appended by one Lua script.

Entry *n* of a match is stored at stream id ``n-0``, so a version is a stream
position and ``read(after, upto)`` is a plain ``XRANGE``. Streams are never
trimmed: the history is the system of record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis

from .. import jsoncodec
from ..errors import VersionConflict
from . import direct, interfaces, keys, replication
from .connect import is_cluster
from .direct import DirectScript
from .drafts import Draft, DraftFlush, DraftResult, Drafts
from .outbox import AI_TURNS, CLOCKS, AITurn, ClockDue, RedisOutbox, format_ai_seats, format_clocks
from .scripts import APPEND_LUA


def parse_idempotency(raw) -> tuple[int, str | None]:
    """An idempotency record as ``(version, fingerprint or None)``."""
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    version, _, fingerprint = text.partition(":")
    return int(version), fingerprint or None


@dataclass(frozen=True)
class AppendResult:
    version: int
    #: True when the idempotency key had been seen: nothing was appended.
    duplicate: bool = False
    #: For a duplicate: the fingerprint stored with the key (None if it had none).
    fingerprint: str | None = None


def _decode(items) -> list[dict]:
    return [json.loads(fields[b"entry"]) for _id, fields in items]


def decode_raw(items) -> list[dict]:
    """The entries of a raw XRANGE reply (``[[id, [field, value, ...]], ...]``, as a script or
    :class:`~gameroom.eventstore.direct.Direct` returns it: no redis-py callback)."""
    return [json.loads(fields[fields.index(b"entry") + 1]) for _id, fields in items]


def _append_keys(match_id: str, draft: DraftFlush | None = None) -> list[str]:
    found = [
        keys.events(match_id),
        keys.idempotency(match_id),
        keys.meta(match_id),
        keys.ai_turn(match_id),
        keys.clock_due(match_id),
    ]
    if draft is not None:
        found.append(keys.draft(match_id, draft.seat))
    return found


def _append_args(
    entry: dict,
    expected_version: int,
    idempotency_key: str | None,
    status: str | None,
    fingerprint: str | None = None,
    ai_seats=None,
    draft: DraftFlush | None = None,
    clocks: dict[int, float] | None = None,
) -> list:
    entry = {**entry, "version": expected_version + 1}
    args = [
        expected_version,
        idempotency_key or "",
        jsoncodec.dumps(entry),
        status or "",
        fingerprint or "",
        format_ai_seats(ai_seats),
        format_clocks(clocks),
    ]
    if draft is not None:
        args += [draft.base, draft.count]
    return args


class EventStore:
    """Append-only per-match streams on a redis-py client (``decode_responses=False``)."""

    def __init__(
        self,
        client: redis.Redis,
        blocking: redis.Redis | None = None,
        *,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 1000,
    ):
        """``blocking``: the client for :meth:`subscribe`'s blocking reads (default ``client``).

        The API gives ``client`` short socket timeouts, so that a frozen Redis
        cannot hold a request thread; a blocking read waits longer than that
        by design, so it goes through a client without them.

        ``wait_replicas`` > 0: every append is followed by ``WAIT wait_replicas
        wait_timeout_ms`` on the same connection (see :mod:`.replication`).
        """
        self.redis = client
        self.blocking = blocking if blocking is not None else client
        self._append = client.register_script(APPEND_LUA)
        # a plain client's appends skip redis-py's per-command layers (see .direct)
        self._append_direct = None if is_cluster(client) else DirectScript(client, APPEND_LUA)
        self._direct = None if is_cluster(client) else direct.of(client)
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        self._drafts = Drafts(client)
        #: the outbox of AI turns: the marker an append with ``ai_seats`` sets, and its index
        self.ai_turns: RedisOutbox[AITurn] = RedisOutbox(client, AI_TURNS)
        #: the outbox of clocks: the marker an append with ``clocks`` sets, and its index
        self.clocks: RedisOutbox[ClockDue] = RedisOutbox(client, CLOCKS)

    # -- drafts: a seat's sealed steps, kept out of the log until it confirms ----

    def draft(self, match_id: str, seat: int) -> Draft:
        """``seat``'s draft (see :mod:`gameroom.eventstore.drafts`); its ``base`` tells whether it is current."""
        return self._drafts.read(match_id, seat)

    def push_draft(
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
        """Add ``step`` to ``seat``'s draft as step ``count + 1``, atomically; see :meth:`Drafts.push`."""
        return self._drafts.push(
            match_id, seat, step, expected_version, base, count, idempotency_key, fingerprint
        )

    def pop_draft(
        self,
        match_id: str,
        seat: int,
        base: int,
        count: int,
        steps: int,
        idempotency_key: str | None = None,
        fingerprint: str | None = None,
    ) -> DraftResult:
        """Drop the last ``steps`` of ``seat``'s draft (undo); see :meth:`Drafts.pop`."""
        return self._drafts.pop(match_id, seat, base, count, steps, idempotency_key, fingerprint)

    def ping(self) -> None:
        """Raise (a :data:`gameroom.eventstore.UNAVAILABLE` error) unless the store answers now."""
        self.redis.ping()

    def append(
        self,
        match_id: str,
        entry: dict,
        expected_version: int,
        idempotency_key: str | None = None,
        status: str | None = None,
        fingerprint: str | None = None,
        ai_seats: list[int] | None = None,
        draft: DraftFlush | None = None,
        clocks: dict[int, float] | None = None,
    ) -> AppendResult:
        """Append ``entry`` as version ``expected_version + 1``.

        Raises :class:`VersionConflict` (carrying the current version) when the
        stream is not at ``expected_version``. A repeated ``idempotency_key``
        appends nothing and returns the version of the first append, with the
        ``fingerprint`` stored by that append (the caller compares). ``status``,
        when given, is written to the match record in the same atomic step.

        ``ai_seats``: the AI seats to move once this entry is appended. The
        match's AI-turn marker is set to them (or cleared) in the same atomic
        step, and the match is first added to the pending-AI index (the outbox
        :attr:`ai_turns`, see :mod:`gameroom.eventstore.outbox`).

        ``draft``: ``entry`` carries the sealed steps of ``draft.seat``'s draft (see
        :meth:`push_draft`); the append conflicts unless the draft holds exactly
        ``draft.count`` steps on ``draft.base``, and deletes it with the append.

        ``clocks``: the running clocks a person holds once this entry is appended,
        seat -> deadline. The match's clock marker is set to them (or cleared) in the
        same atomic step, and the match is first added to the pending-clock index (the
        outbox :attr:`clocks`).
        """
        args = _append_args(
            entry, expected_version, idempotency_key, status, fingerprint, ai_seats, draft, clocks
        )
        keys_ = _append_keys(match_id, draft)
        marks = self.intents(match_id, ai_seats, clocks)
        if self.wait_replicas > 0:
            return self._append_and_wait(match_id, keys_, args, marks)
        if not marks:
            if self._append_direct is not None:
                return self.parse_append(self._append_direct(keys_, args))
            return self.parse_append(self._append(keys=keys_, args=args))
        if is_cluster(self.redis):
            # The indexes live in other slots: mark them first, in their own round trips.
            for mark in marks:
                self.redis.execute_command(*mark)
            return self.parse_append(self._append(keys=keys_, args=args))
        # One round trip, the indexes written first. EVAL with the text, as in queue_append: a
        # registered script in a pipeline costs a SCRIPT EXISTS round trip on every execute.
        if self._direct is not None:
            replies = self._direct.pipeline(*marks, ("EVAL", APPEND_LUA, len(keys_), *keys_, *args))
            return self.parse_append(replies[-1])
        pipe = self.redis.pipeline(transaction=False)
        for mark in marks:
            pipe.execute_command(*mark)
        pipe.eval(APPEND_LUA, len(keys_), *keys_, *args)
        return self.parse_append(pipe.execute()[-1])

    def _append_and_wait(self, match_id: str, keys_: list[str], args: list, marks: list) -> AppendResult:
        """:meth:`append`, then WAIT for replicas on the same connection (one round trip)."""
        client = replication.client_of(self.redis, keys.events(match_id))
        pipe = client.pipeline(transaction=False)
        for mark in marks:  # the indexes first; on a cluster they live in other slots
            (pipe if client is self.redis else self.redis).execute_command(*mark)
        pipe.eval(APPEND_LUA, len(keys_), *keys_, *args)
        pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
        *_marked, appended, acked = replication.execute(pipe, self.redis)
        result = self.parse_append(appended)
        if not result.duplicate:
            replication.acknowledged(match_id, result.version, int(acked), self.wait_replicas)
        return result

    @staticmethod
    def intents(match_id: str, ai_seats=None, clocks=None) -> list[tuple]:
        """The index marks an append with ``ai_seats`` and ``clocks`` writes before its entry."""
        marks = []
        if ai_seats:
            marks.append(AI_TURNS.mark(match_id))
        if clocks:
            marks.append(CLOCKS.mark(match_id))
        return marks

    # -- the outboxes' steps the application layer takes outside an append --

    @staticmethod
    def queue_append(
        pipe,
        match_id: str,
        entry: dict,
        expected_version: int,
        status: str | None = None,
        ai_seats: list[int] | None = None,
        mark: bool = True,
        clocks: dict[int, float] | None = None,
    ) -> None:
        """Queue :meth:`append` on ``pipe``; turn its result into an AppendResult with :meth:`parse_append`.

        ``mark``: with ``ai_seats`` or ``clocks``, also add the match to the pending-AI or
        pending-clock index first (False when the caller did it before: on a cluster the indexes
        are in other slots than ``pipe``'s MULTI).

        Sent as EVAL with the script's text, not EVALSHA: inside a transaction a
        missing script could not be loaded and retried (Redis caches the
        compiled script by its text either way).
        """
        keys_ = _append_keys(match_id)
        if mark:
            for intent in EventStore.intents(match_id, ai_seats, clocks):
                pipe.execute_command(*intent)
        # execute_command, not pipe.eval: redis-py's cluster pipeline refuses its eval() method.
        pipe.execute_command(
            "EVAL",
            APPEND_LUA,
            len(keys_),
            *keys_,
            *_append_args(entry, expected_version, None, status, ai_seats=ai_seats, clocks=clocks),
        )

    @staticmethod
    def parse_append(raw) -> AppendResult:
        """What the append script returned, as an AppendResult; VersionConflict on a conflict."""
        outcome, version = raw
        outcome = outcome.decode() if isinstance(outcome, bytes) else outcome
        if outcome == "conflict":
            raise VersionConflict(int(version))
        if outcome == "dup":
            prior, fingerprint = parse_idempotency(version)
            return AppendResult(prior, duplicate=True, fingerprint=fingerprint)
        return AppendResult(int(version))

    def read(self, match_id: str, after: int = 0, upto: int | None = None) -> list[dict]:
        """Entries with ``after < version <= upto`` (``upto`` None: to the end), in order."""
        end = f"{upto}-0" if upto is not None else "+"
        if upto is not None and upto <= after:
            return []
        if self._direct is not None:
            return decode_raw(self._direct("XRANGE", keys.events(match_id), f"{after + 1}-0", end))
        return _decode(self.redis.xrange(keys.events(match_id), f"{after + 1}-0", end))

    def read_page(self, match_id: str, after: int, limit: int) -> list[dict]:
        return _decode(self.redis.xrange(keys.events(match_id), f"{after + 1}-0", "+", count=limit))

    def entry(self, match_id: str, version: int) -> dict | None:
        found = self.read(match_id, version - 1, version)
        return found[0] if found else None

    def version(self, match_id: str) -> int:
        """The match's current version (0 for an unknown match)."""
        return int(self.redis.xlen(keys.events(match_id)))

    def subscribe(self, match_id: str, after: int, block_ms: int = 15_000) -> list[dict]:
        """Entries after ``after``, waiting up to ``block_ms`` for the first one (``[]`` on timeout)."""
        # redis-py types a reply as every shape RESP allows; with RESP2 it is a list of [key, items].
        found: Any = self.blocking.xread({keys.events(match_id): f"{after}-0"}, block=block_ms)
        if not found:
            return []
        return _decode(found[0][1])

    # -- snapshots: a cache, safe to drop ------------------------------------

    def save_snapshot(self, match_id: str, version: int, snapshot: dict) -> None:
        """Keep ``snapshot`` (the match folded to ``version``); several versions are kept,
        so that reading any past version folds at most one snapshot interval."""
        self.redis.hset(keys.snapshot(match_id), str(version), jsoncodec.dumps(snapshot))

    def load_snapshot(self, match_id: str, at_most: int | None = None) -> dict | None:
        """The newest snapshot at or before version ``at_most`` (None: the newest of all)."""
        versions = sorted((int(v) for v in self.redis.hkeys(keys.snapshot(match_id))), reverse=True)
        for version in versions:
            if at_most is None or version <= at_most:
                raw = self.redis.hget(keys.snapshot(match_id), str(version))
                if raw:
                    return json.loads(raw)
        return None


def _conforms(client: redis.Redis) -> None:
    """Never called: mypy checks here that an :class:`EventStore` is an :class:`~.interfaces.Store`."""
    _: interfaces.Store = EventStore(client)
