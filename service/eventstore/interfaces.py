"""The event store's contract as types: what a backend provides, and what the rest of gameroom may call.

Each :class:`typing.Protocol` below is one part of the store; the behaviour
behind each method is stated in its docstring and tested, on every backend, by
the contract suite :class:`gameroom.testing.store_contract.EventStoreContract`,
whose fixtures are typed with these Protocols. mypy checks that the Redis
implementations provide them (``_conforms`` at the end of
:mod:`.redis_streams`, :mod:`.records` and :mod:`.outbox`), so a method renamed
or re-typed on one side and not on the other fails ``make lint``.

- :class:`Store` (one :class:`~.redis_streams.EventStore`): the :class:`EventLog`,
  a seat's :class:`DraftStore` and the two :class:`Outboxes`.
- :class:`Records` (one :class:`~.records.MatchRecords`): the
  :class:`MatchRecordStore` and the :class:`UndoRequests`.

Nothing here imports Redis: the value types named in the signatures are
imported for the type checker only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from ..core.matches import MatchRecord
    from .drafts import Draft, DraftFlush, DraftResult
    from .outbox import AITurn, ClockDue, Pending
    from .records import Parts, SeatClaim
    from .redis_streams import AppendResult

M = TypeVar("M")


class EventLog(Protocol):
    """One append-only log per match; versions count from 1."""

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
        """One atomic step that (a) replays the first result of an already seen
        ``idempotency_key`` (``duplicate=True`` with the stored ``fingerprint``; nothing
        written), (b) raises :class:`~gameroom.errors.VersionConflict` unless the log is at
        ``expected_version``, (c) appends ``entry`` (with ``version`` added), records the key and
        fingerprint, writes ``status`` and the version to the match record (lobby) when given,
        sets the AI-turn marker to ``ai_seats`` or clears it, and the clock marker to ``clocks``
        (seat -> deadline) or clears it; the outboxes' indexes are marked first.

        With ``draft=DraftFlush(seat, base, count)`` the entry carries ``seat``'s draft (its
        sealed steps): it conflicts unless the draft holds exactly ``count`` steps on ``base``,
        deletes it and moves its idempotency keys to the match's, in the same atomic step."""
        ...

    def read(self, match_id: str, after: int = 0, upto: int | None = None) -> list[dict]:
        """Entries with ``after < version <= upto`` (``upto`` None: to the end), in order."""
        ...

    def read_page(self, match_id: str, after: int, limit: int) -> list[dict]:
        """At most ``limit`` entries after ``after``, in order."""
        ...

    def entry(self, match_id: str, version: int) -> dict | None:
        """The entry at ``version``, or None."""
        ...

    def version(self, match_id: str) -> int:
        """The match's current version (0 for an unknown match)."""
        ...

    def subscribe(self, match_id: str, after: int, block_ms: int = 15_000) -> list[dict]:
        """Entries after ``after``, waiting up to ``block_ms`` for the first; ``[]`` on timeout."""
        ...

    def save_snapshot(self, match_id: str, version: int, snapshot: dict) -> None:
        """Keep ``snapshot`` (the match folded to ``version``): a cache, safe to drop."""
        ...

    def load_snapshot(self, match_id: str, at_most: int | None = None) -> dict | None:
        """The newest snapshot at or before version ``at_most`` (None: the newest of all)."""
        ...

    def ping(self) -> None:
        """Raise one of :data:`gameroom.eventstore.UNAVAILABLE` unless the backend answers."""
        ...


class DraftStore(Protocol):
    """A seat's private steps beside the log (see :mod:`gameroom.eventstore.drafts`): every write
    checks what the writer saw (a conflict otherwise), a repeated key replays (a pop keeps its key
    in the draft: ``Draft.undone``, and the keys of the steps it drops with them:
    ``Draft.dropped``), and a push and a pop never share a key (``DraftResult.reused``)."""

    def draft(self, match_id: str, seat: int) -> Draft:
        """``seat``'s draft; its ``base`` tells whether it is current."""
        ...

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
        """Add ``step`` to ``seat``'s draft as step ``count + 1``, atomically."""
        ...

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
        """Drop the last ``steps`` of ``seat``'s draft (an undo)."""
        ...


class Outbox(Protocol[M]):
    """Work an append leaves to be done (see :mod:`gameroom.eventstore.outbox`): a marker per
    match, ``(version, what is due)``, written with the entry, and an index of the matches that
    may have one, marked before it (a superset), which the reconciler
    (:mod:`gameroom.workers.reconciler`) reads and trims."""

    def note(self, match_id: str) -> None:
        """Add ``match_id`` to the index now (an intent; idempotent, the mark's time refreshed)."""
        ...

    def marker(self, match_id: str) -> M | None:
        """The match's marker, or None."""
        ...

    def set(self, match_id: str, version: int, due: Any) -> None:
        """Set the marker outside an append."""
        ...

    def members(self) -> list[str]:
        """The ids in the index, oldest mark first."""
        ...

    def pending(self, batch: int = 200) -> Iterator[Pending[M]]:
        """Every member with its mark's time and marker (None: none), oldest mark first, read in
        pages of ``batch``."""
        ...

    def drop(self, match_id: str, marked_at: float) -> bool:
        """Remove ``match_id`` from the index unless it was marked after ``marked_at``; True if
        removed."""
        ...


class Outboxes(Protocol):
    """The store's two outboxes, and the steps the application layer takes on them outside an
    append."""

    @property
    def ai_turns(self) -> Outbox[AITurn]:
        """The AI seats to move: ``(version, seats)``, set by ``append(ai_seats=...)``."""
        ...

    @property
    def clocks(self) -> Outbox[ClockDue]:
        """The running clocks a person holds: ``(version, {seat: deadline})``, set by
        ``append(clocks=...)``."""
        ...


class Store(EventLog, DraftStore, Outboxes, Protocol):
    """What one event store provides: the log, the drafts and the outboxes of every match."""


class MatchRecordStore(Protocol):
    """What is known of a match besides its log."""

    def create(self, record: MatchRecord, tokens: dict[int, str], admin_hash: str | None = None) -> None:
        """Save a new match's record, its seats' tokens (hashed) and its lobby entry."""
        ...

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
        """:meth:`create` and the append of ``entry`` as version 1, atomically."""
        ...

    def get(self, match_id: str) -> MatchRecord | None:
        """The record, or None when unknown."""
        ...

    def admin_hash(self, match_id: str) -> str | None:
        """The hash of the creator's admin token, or None."""
        ...

    def read_parts(
        self, match_id: str, record: bool, token_hash: str | None, after: int | str | None
    ) -> Parts:
        """The record, a token's seat and the entries after a version (or the newest snapshot and
        the entries after it), in one step (a load's cache misses)."""
        ...

    def claim(
        self,
        match_id: str,
        seat: int,
        name: str,
        token: str,
        num_seats: int = 0,
        when_full: tuple[str, int] | None = None,
    ) -> SeatClaim:
        """Claim an open seat and store its token's hash: exactly one of racing claimants wins."""
        ...

    def release(self, match_id: str, seat: int) -> int:
        """Release a rematch's reservation of ``seat`` unless it is claimed."""
        ...

    def seat_of(self, match_id: str, token_hash: str) -> int | None:
        """The seat of a token (tokens are stored hashed only), or None."""
        ...

    def set_token(self, match_id: str, seat: int, token: str) -> None:
        """Make ``token`` act for ``seat``, besides any token it had."""
        ...

    def set_progress(self, match_id: str, status: str, version: int) -> None:
        """Write the lobby's status and version."""
        ...

    def progress(self, match_id: str) -> tuple[str, int]:
        """The lobby's status and version."""
        ...

    def idempotent(self, match_id: str, key: str) -> tuple[int, str | None] | None:
        """``(version, fingerprint or None)`` of a seen idempotency key, or None."""
        ...

    def idempotent_version(self, match_id: str, key: str) -> int | None:
        """The version of a seen idempotency key, or None."""
        ...

    def plan_rematch(self, match_id: str, planned: str) -> tuple[str, bool]:
        """``(planned, True)`` for the first caller, ``(the first caller's id, False)`` after."""
        ...

    def take_rematch_lock(self, match_id: str, holder: str, seconds: int) -> bool:
        """Take the lock of creating the rematch for ``seconds``; False if it is held."""
        ...

    def release_rematch_lock(self, match_id: str) -> None:
        """Release it."""
        ...

    def list(self, offset: int = 0, limit: int = 50) -> list[str]:
        """Match ids, newest first."""
        ...


class UndoRequests(Protocol):
    """A match's undo requests: one pending a seat, the last few settled kept; no read costs more
    than the pending requests."""

    def open_undo_request(self, match_id: str, request: dict) -> bool:
        """Save ``request`` as its seat's pending one unless the seat has one (exactly one of racing
        openers wins)."""
        ...

    def save_undo_request(self, match_id: str, request: dict, was: dict | None = None) -> bool:
        """Write ``request`` over; with ``was``, only if unchanged since read (settled ones leave
        the pending index)."""
        ...

    def undo_request(self, match_id: str, request_id: str) -> dict | None:
        """The stored request, or None."""
        ...

    def pending_undo_requests(self, match_id: str) -> list[dict]:
        """The pending requests (at most one a seat)."""
        ...

    def kept_undo_requests(self, match_id: str) -> list[dict]:
        """The pending requests, then the last few settled ones, newest first."""
        ...


class Records(MatchRecordStore, UndoRequests, Protocol):
    """What one match-records store provides."""


__all__ = [
    "DraftStore",
    "EventLog",
    "MatchRecordStore",
    "Outbox",
    "Outboxes",
    "Records",
    "Store",
    "UndoRequests",
]
