"""Persistence of match records, seat claims and seat tokens.

A match's record is one hash (``keys.meta``): the static part as JSON under
``record``, each seat under ``seat:<n>``, and a denormalised ``status`` and
``version`` for the lobby. Token hashes live in ``keys.tokens``. A seat is
claimed by one script (:data:`~.scripts.CLAIM_LUA`: HSETNX of the seat, then its token's
hash), so two clients racing for one seat cannot both win, and a claimed seat
always has its token (a process dying between two commands left a seat that
no token could play).

On a single Redis a match is created in one MULTI with its lobby entry. On a
Redis Cluster the lobby index lives in another slot than the match, and no
transaction spans slots, so creation is two steps: the lobby entry (and the
pending-AI mark) first, an intent, then the match's own keys in one MULTI in
its slot. A process that dies between the two leaves a lobby id with no
record, which every listing skips (as it skips unlisted matches); it never
leaves a match missing from the lobby, so no repair pass is needed.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import redis

from ..core.matches import MatchRecord, Seat, hash_token
from . import direct, interfaces, keys
from .connect import is_cluster
from .redis_streams import AppendResult, EventStore, decode_raw, parse_idempotency
from .scripts import (
    CLAIM_LUA,
    KEPT_UNDO_LUA,
    OPEN_UNDO_LUA,
    PENDING_UNDO_LUA,
    READ_PARTS_LUA,
    RELEASE_LUA,
    SAVE_UNDO_LUA,
)

#: How many settled undo requests a match keeps (to answer a late vote or look-up); older ones are
#: deleted, so asking again and again never grows a match's data.
UNDO_SETTLED_KEPT = 20

#: What :meth:`MatchRecords.release` returns.
NO_MATCH, SEAT_CLAIMED, RELEASED_BEFORE, RELEASED = -1, 0, 1, 2


#: What :meth:`MatchRecords.read_parts` asks for entries after the newest snapshot.
AFTER_SNAPSHOT = "snapshot"


class Parts(NamedTuple):
    """What :meth:`MatchRecords.read_parts` read (None: not asked, or not there)."""

    record: MatchRecord | None
    seat: int | None
    entries: list[dict] | None
    #: the newest snapshot, when the entries were asked for after it (they follow it)
    snapshot: dict | None = None


class SeatClaim(NamedTuple):
    """What :meth:`MatchRecords.claim` did: ``won`` the seat or not, and the match's record and
    log length right after (``record`` None: there is no such match)."""

    won: bool
    record: MatchRecord | None = None
    version: int = 0
    #: the claim filled the last seat and saved the lobby's status given to it (see :meth:`claim`)
    progress_saved: bool = False


class MatchRecords:
    def __init__(self, client: redis.Redis):
        self.redis = client
        self._claim = direct.script(client, CLAIM_LUA)
        self._read_parts = direct.script(client, READ_PARTS_LUA)
        self._release = direct.script(client, RELEASE_LUA)
        self._open_undo = direct.script(client, OPEN_UNDO_LUA)
        self._save_undo = direct.script(client, SAVE_UNDO_LUA)
        self._pending_undo = direct.script(client, PENDING_UNDO_LUA)
        self._kept_undo = direct.script(client, KEPT_UNDO_LUA)

    def create(self, record: MatchRecord, tokens: dict[int, str], admin_hash: str | None = None) -> None:
        cluster = is_cluster(self.redis)
        if cluster:
            self._index_first(record, None)
        pipe = self.redis.pipeline(transaction=True)
        self.queue_create(pipe, record, tokens, admin_hash, lobby=not cluster)
        direct.transaction(self.redis, pipe)

    def _index_first(self, record: MatchRecord, ai_seats: list[int] | None, clocks=None) -> None:
        """On a cluster: the cross-slot index entries of a match about to be created (intents)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(keys.lobby(), {record.id: record.created})
        for intent in EventStore.intents(record.id, ai_seats, clocks):
            pipe.execute_command(*intent)
        pipe.execute()

    def create_match(
        self,
        record: MatchRecord,
        tokens: dict[int, str],
        entry: dict,
        status: str | None = None,
        ai_seats: list[int] | None = None,
        admin_hash: str | None = None,
        clocks: dict[int, float] | None = None,
    ) -> AppendResult:
        """:meth:`create` and append ``entry`` as version 1 (as :meth:`EventStore.append` with
        ``status``, ``ai_seats`` and ``clocks``), all in one transaction: one round trip (two on a
        cluster: the lobby, pending-AI and pending-clock entries first, then the match's keys in one
        transaction in its slot)."""
        cluster = is_cluster(self.redis)
        if cluster:
            self._index_first(record, ai_seats, clocks)
        pipe = self.redis.pipeline(transaction=True)
        self.queue_create(pipe, record, tokens, admin_hash=admin_hash, lobby=not cluster)
        EventStore.queue_append(
            pipe, record.id, entry, 0, status=status, ai_seats=ai_seats, mark=not cluster, clocks=clocks
        )
        return EventStore.parse_append(direct.transaction(self.redis, pipe)[-1])

    def read_parts(
        self, match_id: str, record: bool, token_hash: str | None, after: int | str | None
    ) -> Parts:
        """What a load misses, in one round trip (one script).

        ``record``: read the match record (else None is returned for it);
        ``token_hash``: the seat of that token (None: not read, or no seat);
        ``after``: the entries after that version (None: not read; :data:`AFTER_SNAPSHOT`: the
        newest snapshot and the entries after it, or every entry if there is none).
        """
        found = self._read_parts(
            [keys.meta(match_id), keys.tokens(match_id), keys.events(match_id), keys.snapshot(match_id)],
            ["1" if record else "", token_hash or "", "" if after is None else str(after)],
        )
        meta, seat, entries, snapshot = found
        return Parts(
            self.parse_flat(meta) if record else None,
            self.parse_seat(seat or None) if token_hash is not None else None,
            decode_raw(entries) if after is not None else None,
            json.loads(snapshot) if snapshot else None,
        )

    @staticmethod
    def queue_create(
        pipe, record: MatchRecord, tokens: dict[int, str], admin_hash: str | None = None, lobby: bool = True
    ) -> None:
        """Queue :meth:`create`'s writes on ``pipe`` (a transaction, to write them with other steps at once).

        ``admin_hash``: the hash of the creator's admin token (kept in the record hash as ``admin``).
        ``lobby``: also add the lobby entry (False on a cluster, where it is written before)."""
        static = {
            "id": record.id,
            "game": record.game,
            "options": record.options,
            "seed": record.seed,
            "created": record.created,
            "num_seats": record.num_seats,
            "read_only": record.read_only,
            "forked_from": record.forked_from,
        }
        if record.seed_log:
            static["seed_log"] = record.seed_log
        if record.settings:
            static["settings"] = record.settings
        mapping = {"record": json.dumps(static), "status": "waiting", "version": 0}
        if admin_hash:
            mapping["admin"] = admin_hash
        for i, seat in enumerate(record.seats):
            if seat.filled:
                mapping[f"seat:{i}"] = json.dumps({"name": seat.name, "ai": seat.ai})
        pipe.hset(keys.meta(record.id), mapping=mapping)
        if tokens:
            pipe.hset(keys.tokens(record.id), mapping={hash_token(t): s for s, t in tokens.items()})
        if lobby:
            pipe.zadd(keys.lobby(), {record.id: record.created})

    def get(self, match_id: str) -> MatchRecord | None:
        return self.parse(self.redis.hgetall(keys.meta(match_id)))

    def seat_of(self, match_id: str, token_hash: str) -> int | None:
        """The seat of a token, given its :func:`hash_token`; None for a token of no seat."""
        return self.parse_seat(self.redis.hget(keys.tokens(match_id), token_hash))

    @staticmethod
    def parse_seat(raw) -> int | None:
        return int(raw) if raw is not None else None

    @classmethod
    def parse_flat(cls, meta: list) -> MatchRecord | None:
        """:meth:`parse` of the meta hash as a script returns it (``[field, value, ...]``)."""
        return cls.parse(dict(zip(meta[::2], meta[1::2], strict=True)))

    @staticmethod
    def parse(raw) -> MatchRecord | None:
        if not raw or b"record" not in raw:
            return None
        static = json.loads(raw[b"record"])
        settings = static.get("settings") or {}
        if settings.get("reserved"):  # a rematch: less the seats its creator released
            kept = [n for n in settings["reserved"] if f"released:{n}".encode() not in raw]
            if len(kept) != len(settings["reserved"]):
                settings = {**settings, "reserved": kept}
        seats = []
        for i in range(static["num_seats"]):
            claim = raw.get(f"seat:{i}".encode())
            seats.append(Seat(**json.loads(claim)) if claim else Seat())
        return MatchRecord(
            id=static["id"],
            game=static["game"],
            options=static["options"],
            seed=static["seed"],
            created=static["created"],
            seats=seats,
            read_only=static.get("read_only", False),
            forked_from=static.get("forked_from"),
            seed_log=static.get("seed_log"),
            settings=settings,
        )

    def claim(
        self,
        match_id: str,
        seat: int,
        name: str,
        token: str,
        num_seats: int = 0,
        when_full: tuple[str, int] | None = None,
    ) -> SeatClaim:
        """Claim an open seat and store its token's hash, at once (not won: someone holds it; no
        record: no such match, and nothing was written), in one round trip that also reads the
        record and the log's length after it.

        ``when_full``: the lobby's status (see :meth:`set_progress`) once all ``num_seats`` seats
        are filled, and the log's length it was judged at: saved if this claim fills the last
        seat while the log still has that length."""
        status, version = when_full or ("", 0)
        found: Any = self._claim(
            [keys.meta(match_id), keys.tokens(match_id), keys.events(match_id)],
            [
                f"seat:{seat}",
                json.dumps({"name": name, "ai": None}),
                hash_token(token),
                seat,
                num_seats,
                status,
                version,
            ],
        )
        if found[0] == -1:
            return SeatClaim(False)
        meta = found[1]
        record = self.parse_flat(meta)
        return SeatClaim(found[0] == 1, record, int(found[2]), found[3] == 1)

    def release(self, match_id: str, seat: int) -> int:
        """Release a rematch's reservation of ``seat`` (kept as ``released:<n>`` in the record hash,
        which :meth:`parse` takes out of ``settings["reserved"]``), unless the seat is claimed: one
        script, so a seat its player took is never released. Returns :data:`RELEASED`,
        :data:`RELEASED_BEFORE`, :data:`SEAT_CLAIMED` or :data:`NO_MATCH`."""
        return int(self._release([keys.meta(match_id)], [f"seat:{seat}", f"released:{seat}"]))

    def set_token(self, match_id: str, seat: int, token: str) -> None:
        """Make ``token`` (stored hashed) act for ``seat``, besides any token it had."""
        self.redis.hset(keys.tokens(match_id), hash_token(token), seat)

    def admin_hash(self, match_id: str) -> str | None:
        """The hash of the creator's admin token (see :meth:`queue_create`), or None."""
        raw: Any = self.redis.hget(keys.meta(match_id), "admin")  # bytes | None
        return raw.decode() if raw is not None else None

    def plan_rematch(self, match_id: str, planned: str) -> tuple[str, bool]:
        """The id of ``match_id``'s rematch: ``(planned, True)`` for the first caller,
        ``(the first caller's id, False)`` for every later or racing one."""
        if self.redis.hsetnx(keys.meta(match_id), "rematch", planned):
            return planned, True
        raw: Any = self.redis.hget(keys.meta(match_id), "rematch")
        return raw.decode(), False

    def take_rematch_lock(self, match_id: str, holder: str, seconds: int) -> bool:
        """Take the lock of creating ``match_id``'s rematch for ``seconds``; False if it is held."""
        return bool(self.redis.set(keys.rematch_lock(match_id), holder, nx=True, ex=seconds))

    def release_rematch_lock(self, match_id: str) -> None:
        self.redis.delete(keys.rematch_lock(match_id))

    def set_progress(self, match_id: str, status: str, version: int) -> None:
        self.redis.hset(keys.meta(match_id), mapping={"status": status, "version": version})

    def progress(self, match_id: str) -> tuple[str, int]:
        found: Any = self.redis.hmget(keys.meta(match_id), "status", "version")  # [bytes | None] * 2
        status, version = found
        return (status or b"waiting").decode(), int(version or 0)

    def idempotent_version(self, match_id: str, key: str) -> int | None:
        found = self.idempotent(match_id, key)
        return found[0] if found else None

    def idempotent(self, match_id: str, key: str) -> tuple[int, str | None] | None:
        """``(version, request fingerprint or None)`` recorded for ``key``, or None if unseen."""
        raw = self.redis.hget(keys.idempotency(match_id), key)
        return parse_idempotency(raw) if raw is not None else None

    # -- undo requests: one hash per match (id -> JSON request), an index of the pending ones
    # (seat -> id) and a short list of the settled ones, so no read costs more than the pending ones

    def open_undo_request(self, match_id: str, request: dict) -> bool:
        """Save ``request`` (pending) as its seat's pending request, unless the seat already has one
        (False: nothing written). Of racing callers for one seat, exactly one opens."""
        found = self._open_undo(
            self._undo_keys(match_id)[:2], [request["seat"], request["id"], json.dumps(request)]
        )
        return found == 1

    def save_undo_request(self, match_id: str, request: dict, was: dict | None = None) -> bool:
        """Write ``request`` over its earlier version; with ``was`` (the request as read), only if it
        is still that (False: it changed since, nothing written). A request no longer ``pending``
        leaves its seat's pending index; only the last :data:`UNDO_SETTLED_KEPT` settled requests of
        a match are kept."""
        found = self._save_undo(
            self._undo_keys(match_id),
            [
                request["id"],
                json.dumps(request),
                request["seat"],
                "1" if request["status"] != "pending" else "0",
                UNDO_SETTLED_KEPT,
                json.dumps(was) if was is not None else "",
            ],
        )
        return found == 1

    def undo_request(self, match_id: str, request_id: str) -> dict | None:
        """The stored undo request, or None when the match has no such request (or no longer keeps it)."""
        raw = self.redis.hget(keys.undo_requests(match_id), request_id)
        return json.loads(raw) if raw is not None else None

    def pending_undo_requests(self, match_id: str) -> list[dict]:
        """The match's pending undo requests (at most one a seat), in no particular order."""
        found: Any = self._pending_undo(self._undo_keys(match_id)[:2], [])
        return [json.loads(raw) for raw in found if raw is not None]

    def kept_undo_requests(self, match_id: str) -> list[dict]:
        """Every undo request the match keeps: the pending ones, then the last
        :data:`UNDO_SETTLED_KEPT` settled ones, newest first (a bounded few)."""
        found: Any = self._kept_undo(self._undo_keys(match_id), [])
        return [json.loads(raw) for raw in found if raw is not None]

    @staticmethod
    def _undo_keys(match_id: str) -> list[str]:
        return [keys.undo_requests(match_id), keys.undo_pending(match_id), keys.undo_settled(match_id)]

    def list(self, offset: int = 0, limit: int = 50) -> list[str]:
        """Match ids, newest first."""
        ids: Any = self.redis.zrevrange(keys.lobby(), offset, offset + limit - 1)  # list of bytes
        return [m.decode() for m in ids]


def _conforms(client: redis.Redis) -> None:
    """Never called: mypy checks here that :class:`MatchRecords` are :class:`~.interfaces.Records`."""
    _: interfaces.Records = MatchRecords(client)
