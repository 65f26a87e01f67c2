"""The outbox: work an append leaves to be done, recorded with the entry, and the index that finds it.

Two kinds of work follow an append in a round trip of its own, which a crash
(or a Redis blip, or an idempotent retry answered from its key) can lose: the
enqueue of an AI seat's move and the scheduling of a clock's timeout. So each
is recorded *with the append that made it due*, as an outbox of one shape,
:class:`RedisOutbox` on a :class:`Shape`:

- **The marker** (``keys.ai_turn(match)``, ``keys.clock_due(match)``):
  ``<version>:<what is due>``, in the match's hash slot, set or cleared by the
  append script (:data:`~.scripts.APPEND_LUA`) in the same atomic step as the
  entry. It is the truth, and it is Cluster-safe.
- **The index** (``keys.ai_pending()``, ``keys.clock_pending()``): one sorted
  set of match ids scored by the time of the last mark, so the reconciler need
  not scan every key. It spans matches (another slot), so the script cannot
  write it: it is marked *before* the append (:meth:`Shape.mark`, an intent;
  in the same pipeline on a single Redis, a round trip earlier on Cluster), and
  is therefore a superset of the matches with a marker. Members are dropped
  only by a compare-and-delete (:data:`~.scripts.DROP_PENDING_LUA`), never
  while a writer marked them again.

The reconciler that reads and trims them is :mod:`gameroom.workers.reconciler`
(the policy); this module holds the Redis commands.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

import redis

from . import interfaces, keys
from .scripts import DROP_PENDING_LUA

M = TypeVar("M")

#: An AI-turn marker: ``(version, the AI seats to move)``.
AITurn = tuple[int, list[int]]
#: A clock marker: ``(version, {seat: deadline})``, the running clocks a person holds.
ClockDue = tuple[int, dict[int, float]]


def _text(raw) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def parse_ai_turn(raw) -> AITurn | None:
    """The value of :func:`keys.ai_turn`, as ``(version, seats)``; None when absent."""
    if not raw:
        return None
    version, _, seats = _text(raw).partition(":")
    return int(version), [int(s) for s in seats.split(",") if s]


def format_ai_seats(seats) -> str:
    """The AI-turn marker's seats (without the version), ``"1,3"``; "" for none."""
    return ",".join(str(s) for s in seats or ())


def format_clocks(clocks: dict[int, float] | None) -> str:
    """The clock marker's deadlines (without the version), ``"1=1700000012.5,3=..."``; "" for none."""
    return ",".join(f"{seat}={float(due)!r}" for seat, due in sorted((clocks or {}).items()))


def parse_clock_due(raw) -> ClockDue | None:
    """The value of :func:`keys.clock_due`, as ``(version, {seat: deadline})``; None when absent."""
    if not raw:
        return None
    version, _, clocks = _text(raw).partition(":")
    pairs = (pair.partition("=") for pair in clocks.split(",") if pair)
    return int(version), {int(seat): float(due) for seat, _, due in pairs}


class Pending(NamedTuple, Generic[M]):
    """A member of an outbox's index: the match, when it was marked (epoch seconds) and its
    marker, or None when it has none (an intent whose append has not come, or work done)."""

    match_id: str
    marked_at: float
    marker: M | None


@dataclass(frozen=True)
class Shape(Generic[M]):
    """One outbox's keys and marker format (no client: the append script and the creation of a
    match queue its intent in their own pipelines)."""

    #: the index's key (a sorted set spanning matches)
    index: Callable[[], str]
    #: the key of a match's marker
    marker_key: Callable[[str], str]
    #: a marker's value (bytes or str) as the marker; None when absent
    parse: Callable[[Any], M | None]
    #: what is due, as the marker stores it after ``<version>:``
    format: Callable[[Any], str]

    def mark(self, match_id: str) -> tuple:
        """The command that adds ``match_id`` to the index (idempotent; the score is the time of
        the mark)."""
        return ("ZADD", self.index(), time.time(), match_id)


#: The outbox of AI turns: the AI seats to move after an entry (``append(ai_seats=...)``).
AI_TURNS: Shape[AITurn] = Shape(keys.ai_pending, keys.ai_turn, parse_ai_turn, format_ai_seats)
#: The outbox of clocks: the running clocks a person holds after an entry (``append(clocks=...)``).
CLOCKS: Shape[ClockDue] = Shape(keys.clock_pending, keys.clock_due, parse_clock_due, format_clocks)


class RedisOutbox(Generic[M]):
    """One outbox (:data:`AI_TURNS` or :data:`CLOCKS`) on a redis-py client."""

    def __init__(self, client: redis.Redis, shape: Shape[M]):
        self.redis = client
        self.shape = shape
        self._drop = client.register_script(DROP_PENDING_LUA)

    def note(self, match_id: str) -> None:
        """Add ``match_id`` to the index now, on its own (the intent before a step that may leave
        work due, such as a claim that completes a match)."""
        self.redis.execute_command(*self.shape.mark(match_id))

    def marker(self, match_id: str) -> M | None:
        """The match's marker, or None."""
        return self.shape.parse(self.redis.get(self.shape.marker_key(match_id)))

    def set(self, match_id: str, version: int, due) -> None:
        """Set the marker outside an append (a claim that completed a match whose AI moves first)."""
        self.redis.set(self.shape.marker_key(match_id), f"{version}:{self.shape.format(due)}")

    def members(self) -> list[str]:
        """The ids in the index, oldest mark first."""
        found: Any = self.redis.zrange(self.shape.index(), 0, -1)  # list of bytes
        return [m.decode() for m in found]

    def pending(self, batch: int = 200) -> Iterator[Pending[M]]:
        """Every member of the index with its mark's time and its match's marker (None: no
        marker), oldest mark first; ``batch`` members per round trip of each kind.

        Read in pages while the caller works: a member dropped meanwhile may shift the next page
        (the reconciler runs again in a few seconds and sees what it missed).
        """
        start = 0
        while True:
            members: Any = self.redis.zrange(self.shape.index(), start, start + batch - 1, withscores=True)
            if not members:
                return
            start += batch
            pipe = self.redis.pipeline(transaction=False)
            for member, _score in members:
                pipe.get(self.shape.marker_key(member.decode()))
            for (member, score), raw in zip(members, pipe.execute()):
                yield Pending(member.decode(), score, self.shape.parse(raw))

    def drop(self, match_id: str, marked_at: float) -> bool:
        """Remove ``match_id`` from the index unless a writer marked it after ``marked_at`` (the
        time :meth:`pending` gave); True if removed."""
        return bool(self._drop(keys=[self.shape.index()], args=[match_id, marked_at]))


def _conforms(client: redis.Redis) -> None:
    """Never called: mypy checks here that a :class:`RedisOutbox` is an :class:`~.interfaces.Outbox`."""
    _: interfaces.Outbox[AITurn] = RedisOutbox(client, AI_TURNS)
    __: interfaces.Outbox[ClockDue] = RedisOutbox(client, CLOCKS)
