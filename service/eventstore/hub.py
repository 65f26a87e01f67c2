"""One Redis reader per process, fanning new entries out to every open live stream.

A live stream (SSE) used to block in its own ``XREAD`` on its own Redis
connection: one connection and one waiting thread per open stream. The hub
instead keeps one reader that blocks in a single ``XREAD`` over the streams
of every match that has a subscriber in this process, decodes each new entry
once and hands it to each subscriber's queue. A subscriber waits on its own
event (a greenlet under gevent, a thread under gthread), so open streams cost
memory, not Redis connections.

Ordering without gaps: the hub keeps a cursor per watched match (the last
version it handed out). :meth:`StreamHub.subscribe` registers the subscriber
under the hub's lock and returns that cursor; everything after it reaches the
subscriber's queue, everything up to it the subscriber reads itself
(:meth:`Subscription.backlog_upto`). A match watched for the first time
starts at its current length, read under the lock, and wakes the reader
(an ``XADD`` to this hub's wake stream, one of the keys it blocks on) so that
its next ``XREAD`` includes the new match.

The reader's connection has a socket timeout longer than its block, so an
idle period never surfaces as a read timeout (redis-py 8's default socket
timeout is 5 s).

The blocking ``XREAD`` names every watched match and is sent again after
each delivery (under load, once per move). redis-py packs its arguments in
Python, one by one: with 2,000 streams over 200 matches that was a third of
the API worker's time. The hub therefore keeps the command packed (RESP):
the keys change only when a match is first watched or last left, and one
cursor changes per delivery; it is written to the reader's connection as is.

Redis Cluster: one ``XREAD`` may only name keys of one slot, and every
match has a slot of its own, so no single blocking read covers them. On a
cluster the reader instead polls: every ``poll_ms`` (100 ms) one pipelined,
non-blocking ``XREAD`` per watched match, which redis-py's cluster pipeline
sends as one batch per node (a round trip per node, not per match). A new
subscriber wakes it at once (an in-process event; the wake stream is not
used). An entry reaches a stream at most ``poll_ms`` later than on a single
Redis, and an idle hub with no subscriber sends nothing.

Outages: a read that fails because Redis is down, frozen or failing over is
tried again every second, and logged as one line when the outage starts,
one every :data:`LOG_EVERY` seconds while it lasts (with the count of failed
reads) and one when Redis is back, as the API logs refused requests. Streams
resume where they were (the cursors are the hub's), keep-alives flow meanwhile.

One module, though just over 400 lines: the reader, its cursors and its subscribers share one
lock, and the ordering argument above holds only if they are read together.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
import uuid
from typing import Any

import redis
from redis.exceptions import ClusterDownError, SlotNotCoveredError, TryAgainError

from . import keys
from .connect import client_from_url, is_cluster_url

log = logging.getLogger(__name__)

#: Seconds between two log lines of one outage.
LOG_EVERY = 10.0
#: Seconds between two reads while Redis is unavailable.
RETRY_EVERY = 1.0
#: What a read raises while Redis is down, frozen, loading, or while a cluster fails over.
_OUTAGE = (redis.ConnectionError, redis.TimeoutError, ClusterDownError, TryAgainError, SlotNotCoveredError)


class StreamLimit(Exception):
    """No more open streams for this process (``per_client`` False) or this client address."""

    def __init__(self, per_client: bool, limit: int):
        super().__init__(f"{limit} open streams")
        self.per_client = per_client
        self.limit = limit


class Subscription:
    """One open stream's queue of entries of one match."""

    def __init__(self, hub: StreamHub, match_id: str, client: str):
        self.hub = hub
        self.match_id = match_id
        self.client = client
        #: Entries up to this version are not handed out by the hub: read them from the store.
        self.backlog_upto = 0
        self._entries: collections.deque = collections.deque()
        self._ready = threading.Event()
        #: Closed: its slot under the caps is free, and :meth:`get` no longer waits.
        self.closed = False

    def _put(self, entries: list[dict]) -> None:
        self._entries.extend(entries)
        self._ready.set()

    def get(self, timeout: float) -> list[dict]:
        """Entries handed out since the last call, waiting up to ``timeout`` seconds for one."""
        if not self._entries and not self.closed:
            self._ready.wait(timeout)
        self._ready.clear()
        taken = []
        while self._entries:
            taken.append(self._entries.popleft())
        return taken

    def close(self) -> None:
        """Give the slot back and wake a :meth:`get` that waits (idempotent)."""
        self.closed = True
        self.hub.unsubscribe(self)
        self._ready.set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class StreamHub:
    """The per-process fan-out of new match entries to open streams.

    ``max_streams`` caps open subscriptions in this process and
    ``max_per_client`` those of one client address (0: no cap).
    """

    def __init__(
        self,
        client: redis.Redis,
        url: str,
        *,
        block_ms: int = 10_000,
        max_streams: int = 0,
        max_per_client: int = 0,
        poll_ms: int = 100,
    ):
        self._cluster = is_cluster_url(url)
        if self._cluster:
            # Non-blocking reads, batched per node (see the module docstring).
            self._reader = client_from_url(url, socket_timeout=block_ms / 1000 + 10)
        else:
            # The reader's own connection (to ``url``, the server of ``client``) blocks up to
            # block_ms: its socket must wait longer than that.
            self._reader = redis.Redis.from_url(url, socket_timeout=block_ms / 1000 + 10, max_connections=1)
        self.poll_ms = poll_ms
        self._poke = threading.Event()
        self._client = client
        self.block_ms = block_ms
        self.max_streams = max_streams
        self.max_per_client = max_per_client
        self._wake_key = keys.hub_wake(uuid.uuid4().hex)
        self._wake_cursor = "0-0"
        self._lock = threading.Lock()
        self._watched: dict[str, int] = {}  # match id -> last version handed out
        self._packed_keys: bytes | None = None  # the watched matches' keys, packed; None: to pack
        self._packed_cursors: dict[str, bytes] = {}  # match id -> its cursor, packed
        self._connection: Any = None  # the reader's connection (a plain Redis)
        self._subs: dict[str, set[Subscription]] = {}
        self._per_client: collections.Counter = collections.Counter()
        self._open = 0
        self._has_work = threading.Event()
        self._thread: threading.Thread | None = None

    # -- subscribers ---------------------------------------------------------

    @property
    def open_streams(self) -> int:
        return self._open

    def subscribe(self, match_id: str, client: str = "") -> Subscription:
        """Register a stream of ``match_id``; raises :class:`StreamLimit` beyond a cap."""
        sub = Subscription(self, match_id, client)
        wake = False
        with self._lock:
            if self.max_streams and self._open >= self.max_streams:
                raise StreamLimit(False, self.max_streams)
            if self.max_per_client and self._per_client[client] >= self.max_per_client:
                raise StreamLimit(True, self.max_per_client)
            if match_id not in self._watched:
                self._watched[match_id] = int(self._client.xlen(keys.events(match_id)))
                self._subs[match_id] = set()
                self._packed_keys = None
                wake = True
            sub.backlog_upto = self._watched[match_id]
            self._subs[match_id].add(sub)
            self._per_client[client] += 1
            self._open += 1
            self._start()
        if wake:
            self._wake()
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            subs = self._subs.get(sub.match_id)
            if subs is None or sub not in subs:
                return
            subs.discard(sub)
            self._open -= 1
            self._per_client[sub.client] -= 1
            if not self._per_client[sub.client]:
                del self._per_client[sub.client]
            if not subs:  # the reader drops the match from its next XREAD
                del self._subs[sub.match_id]
                del self._watched[sub.match_id]
                self._packed_cursors.pop(sub.match_id, None)
                self._packed_keys = None

    def end_all(self) -> int:
        """Close every open subscription (the process is stopping, :mod:`gameroom.http.draining`): each
        stream's :meth:`Subscription.get` returns at once and its response ends; returns how many."""
        with self._lock:
            subs = [sub for group in self._subs.values() for sub in group]
        for sub in subs:
            sub.close()
        return len(subs)

    def _wake(self) -> None:
        if self._cluster:
            self._poke.set()
            return
        pipe = self._client.pipeline(transaction=False)
        pipe.xadd(self._wake_key, {"w": 1}, maxlen=1)
        pipe.pexpire(self._wake_key, 3_600_000)
        pipe.execute()

    # -- the reader ----------------------------------------------------------

    def _start(self) -> None:
        self._has_work.set()
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="gameroom-stream-hub", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        outage = _Outage()
        while True:
            self._has_work.wait()
            try:
                if outage.since is not None and not self._cluster and self._watched:
                    # back? Say so now, not once a whole blocking read (block_ms) has ended
                    self._ask(_PING)
                    outage.over()
                if not self._read_once():
                    continue  # no stream left to read for: idle, whether Redis is back or not
            except _OUTAGE as exc:
                outage.failed(exc)
                threading.Event().wait(RETRY_EVERY)
                continue
            except Exception:  # a bug: the reader must live on, or every stream stops
                log.exception("stream hub: reading Redis failed; retrying in %g s", RETRY_EVERY)
                threading.Event().wait(RETRY_EVERY)
                continue
            outage.over()

    def _read_once(self) -> bool:
        """One read for every watched match (False, having read nothing: none is watched)."""
        with self._lock:
            if not self._watched:
                self._has_work.clear()
                return False
            if self._cluster:
                streams: Any = {keys.events(m): f"{v}-0" for m, v in self._watched.items()}
            else:
                command = self._packed_xread()
        if self._cluster:
            self._poll_once(streams)
            return True
        found = self._ask(command)  # RESP2: [[key, [[id, [field, value, ...]], ...]], ...]; RESP3: a map
        for key, items in found.items() if isinstance(found, dict) else found or []:
            key = key.decode() if isinstance(key, bytes) else key
            if key == self._wake_key:
                last = items[-1][0]
                self._wake_cursor = last.decode() if isinstance(last, bytes) else last
                continue
            entries = [json.loads(_field(fields, b"entry")) for _id, fields in items]
            self._deliver(keys.match_of_events(key), entries)
        return True

    def _packed_xread(self) -> bytes:
        """``XREAD COUNT 1000 BLOCK <block_ms> STREAMS <keys> <wake key> <cursors> <wake cursor>``,
        packed; called under the lock."""
        if self._packed_keys is None:
            self._packed_keys = b"".join(_bulk(keys.events(m)) for m in self._watched)
        cursors = self._packed_cursors
        for match_id, version in self._watched.items():
            if match_id not in cursors:
                cursors[match_id] = _bulk(f"{version}-0")
        head = [b"XREAD", b"COUNT", b"1000", b"BLOCK", str(self.block_ms).encode(), b"STREAMS"]
        return b"".join(
            [
                b"*%d\r\n" % (len(head) + 2 * (len(self._watched) + 1)),
                *map(_bulk, head),
                self._packed_keys,
                _bulk(self._wake_key),
                *[cursors[m] for m in self._watched],
                _bulk(self._wake_cursor),
            ]
        )

    def _ask(self, command: bytes) -> Any:
        """Send a packed command on the reader's own connection and read its reply; a broken
        connection is dropped (the next command reconnects) and the error raised."""
        if self._connection is None:
            self._connection = self._reader.connection_pool.make_connection()
        try:
            self._connection.send_packed_command([command], check_health=False)
            return self._connection.read_response()
        except redis.RedisError:
            self._connection.disconnect()
            raise

    def _poll_once(self, streams: dict) -> None:
        """On a cluster: one non-blocking XREAD per watched stream, pipelined (one batch per node);
        waits ``poll_ms`` (or until a new subscriber pokes it) when nothing was new."""
        self._poke.clear()
        pipe = self._reader.pipeline(transaction=False)
        for key, cursor in streams.items():
            pipe.xread({key: cursor}, count=1000)
        found_any = False
        for found in pipe.execute():
            for key, items in found or []:
                key = key.decode() if isinstance(key, bytes) else key
                entries = [json.loads(fields[b"entry"]) for _id, fields in items]
                if entries:
                    found_any = True
                    self._deliver(keys.match_of_events(key), entries)
        if not found_any:
            self._poke.wait(self.poll_ms / 1000)

    def _deliver(self, match_id: str, entries: list[dict]) -> None:
        with self._lock:
            cursor = self._watched.get(match_id)
            if cursor is None:
                return  # nobody listens any more
            entries = [e for e in entries if e["version"] > cursor]
            if not entries:
                return
            self._watched[match_id] = entries[-1]["version"]
            self._packed_cursors.pop(match_id, None)
            subs = list(self._subs[match_id])
        for sub in subs:
            sub._put(entries)


class _Outage:
    """The reader's log of one Redis outage: a line when it starts, one every :data:`LOG_EVERY`
    seconds while it lasts, one when it ends; no traceback."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.logged = 0.0
        self.failed_reads = 0

    def failed(self, exc: Exception) -> None:
        now = time.monotonic()
        self.failed_reads += 1
        if self.since is None:
            self.since, self.logged, self.failed_reads = now, now, 0
            log.error(
                "stream hub: Redis unavailable, live streams wait (retrying every %g s): %s: %s",
                RETRY_EVERY,
                type(exc).__name__,
                exc,
            )
        elif now - self.logged >= LOG_EVERY:
            log.error(
                "stream hub: Redis still unavailable after %.0f s (%d failed reads since the last report): %s: %s",
                now - self.since,
                self.failed_reads,
                type(exc).__name__,
                exc,
            )
            self.logged, self.failed_reads = now, 0

    def over(self) -> None:
        if self.since is not None:
            log.warning(
                "stream hub: Redis is back after %.0f s; live streams resume", time.monotonic() - self.since
            )
            self.since = None


_PING = b"*1\r\n$4\r\nPING\r\n"


def _bulk(text: str | bytes) -> bytes:
    """``text`` as a RESP bulk string."""
    data = text.encode() if isinstance(text, str) else text
    return b"$%d\r\n%s\r\n" % (len(data), data)


def _field(fields: Any, name: bytes) -> bytes:
    """The value of field ``name`` of a stream entry as the reply gives it (a flat list in RESP2,
    a map in RESP3)."""
    if isinstance(fields, dict):
        return fields[name]
    return dict(zip(fields[::2], fields[1::2], strict=True))[name]
