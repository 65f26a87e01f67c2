"""The contract every event store backend must pass, as a class of pytest tests.

Modelled on the python eventsourcing library's recorder test cases: the tests
use only the interface typed in :mod:`gameroom.eventstore.interfaces` (a
:class:`~gameroom.eventstore.interfaces.Store` and a
:class:`~gameroom.eventstore.interfaces.Records` on one backend; the fixtures
below are annotated with them), so a new backend (Redis Cluster, say) proves
itself by subclassing :class:`EventStoreContract` and overriding one fixture::

    class TestClusterStore(EventStoreContract):
        @pytest.fixture
        def backend(self, cluster_client):
            return Backend(EventStore(cluster_client), MatchRecords(cluster_client))

``backend`` must give an empty store for each test, and
:meth:`EventStoreContract.other_client` a second, independent connection to
the same data (used to race writers and to wake a blocked reader).

One module, though long: it is one pytest class, whose tests a backend's test
module inherits all at once, in the order of the interface (log, idempotency,
markers, drafts, reads, records, undo requests, outboxes, rematches).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import NamedTuple

import pytest

from ..core.matches import MatchRecord, Seat, hash_token
from ..errors import VersionConflict
from ..eventstore import keys
from ..eventstore.drafts import Draft, DraftFlush
from ..eventstore.interfaces import Outbox, Records, Store
from ..eventstore.records import (
    AFTER_SNAPSHOT,
    NO_MATCH,
    RELEASED,
    RELEASED_BEFORE,
    SEAT_CLAIMED,
    UNDO_SETTLED_KEPT,
)


class Backend(NamedTuple):
    store: Store
    records: Records
    #: builds another (store, records) pair on new connections to the same data
    reconnect: Callable[[], Backend] | None = None


class OutboxCase(NamedTuple):
    """One outbox under test (see :meth:`EventStoreContract.outbox`)."""

    box: Outbox
    #: the store's other outbox, which marking this one leaves alone
    other: Outbox
    #: the ``append`` keywords that mark this outbox, varied by ``n``
    marks: Callable[[int], dict]
    #: the marker an append at ``version`` with ``marks(n)`` sets
    marker: Callable[[int, int], object]


def _turn(version: int, n: int) -> tuple:
    return (version, [n % 3, 3])


def _due(version: int, n: int) -> tuple:
    return (version, {n % 3: 10.0 + n})


def _record(match_id: str, created: float = 1.0, seats: int = 2, filled: int = 1) -> MatchRecord:
    return MatchRecord(
        id=match_id,
        game="nim",
        options={"heaps": [1, 2]},
        seed="s33d",
        created=created,
        seats=[Seat(name=f"p{i}") if i < filled else Seat() for i in range(seats)],
        settings={"unlisted": False},
    )


class EventStoreContract:
    """Tests over the store interface; subclass and override :meth:`backend`."""

    @pytest.fixture
    def backend(self) -> Backend:
        raise NotImplementedError("a backend's test module overrides the `backend` fixture")

    @pytest.fixture
    def store(self, backend: Backend) -> Store:
        return backend.store

    @pytest.fixture
    def records(self, backend: Backend) -> Records:
        return backend.records

    def other(self, backend: Backend) -> Backend:
        """A second pair on new connections (for races); the same pair if the backend gives none."""
        return backend.reconnect() if callable(backend.reconnect) else backend

    # -- append: versions and conflicts --------------------------------------

    def test_append_numbers_entries_from_one_and_reads_them_back_in_order(self, store: Store):
        assert store.version("m") == 0
        for n in range(4):
            result = store.append("m", {"n": n}, n)
            assert (result.version, result.duplicate) == (n + 1, False)
        assert store.version("m") == 4
        assert [(e["n"], e["version"]) for e in store.read("m")] == [(0, 1), (1, 2), (2, 3), (3, 4)]

    def test_append_at_a_stale_or_future_version_conflicts_and_appends_nothing(self, store: Store):
        store.append("m", {}, 0)
        store.append("m", {}, 1)
        for expected in (0, 1, 3):
            with pytest.raises(VersionConflict) as caught:
                store.append("m", {"late": True}, expected)
            assert caught.value.current_version == 2
        assert store.version("m") == 2
        assert not any(e.get("late") for e in store.read("m"))

    def test_matches_are_independent_streams(self, store: Store):
        store.append("a", {"x": "a1"}, 0)
        store.append("b", {"x": "b1"}, 0)
        store.append("a", {"x": "a2"}, 1)
        assert [e["x"] for e in store.read("a")] == ["a1", "a2"]
        assert [e["x"] for e in store.read("b")] == ["b1"]

    def test_racing_writers_at_one_version_have_exactly_one_winner(self, backend: Backend):
        backend.store.append("race", {}, 0)
        stores = [self.other(backend).store for _ in range(8)]
        barrier = threading.Barrier(len(stores))
        outcomes: list = []

        def write(i, store):
            barrier.wait()
            try:
                outcomes.append(store.append("race", {"writer": i}, 1).version)
            except VersionConflict as conflict:
                outcomes.append(("conflict", conflict.current_version))

        threads = [threading.Thread(target=write, args=(i, s)) for i, s in enumerate(stores)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(outcomes, key=str) == sorted([2] + [("conflict", 2)] * 7, key=str)
        assert backend.store.version("race") == 2

    # -- append: idempotency ------------------------------------------------

    def test_a_repeated_idempotency_key_replays_the_first_result_with_its_fingerprint(
        self, store: Store, records: Records
    ):
        first = store.append("m", {"a": 1}, 0, idempotency_key="k", fingerprint="f1")
        again = store.append("m", {"a": 1}, 0, idempotency_key="k", fingerprint="f1")
        other = store.append("m", {"a": 2}, 1, idempotency_key="k", fingerprint="f2")
        assert (first.version, first.duplicate) == (1, False)
        assert (again.version, again.duplicate, again.fingerprint) == (1, True, "f1")
        # The key wins even at another expected version: the caller compares the fingerprints.
        assert (other.version, other.duplicate, other.fingerprint) == (1, True, "f1")
        assert store.version("m") == 1
        assert records.idempotent("m", "k") == (1, "f1")
        assert records.idempotent_version("m", "k") == 1
        assert records.idempotent("m", "unseen") is None

    def test_an_idempotency_key_without_fingerprint_replays_with_none(self, store: Store, records: Records):
        store.append("m", {}, 0, idempotency_key="k")
        assert store.append("m", {}, 0, idempotency_key="k").fingerprint is None
        assert records.idempotent("m", "k") == (1, None)

    def test_idempotency_keys_are_per_match(self, store: Store):
        store.append("a", {}, 0, idempotency_key="k")
        assert store.append("b", {}, 0, idempotency_key="k").duplicate is False
        assert store.version("b") == 1

    def test_a_conflicting_append_records_no_idempotency_key(self, store: Store, records: Records):
        store.append("m", {}, 0)
        with pytest.raises(VersionConflict):
            store.append("m", {}, 0, idempotency_key="k", fingerprint="f")
        assert records.idempotent("m", "k") is None
        assert store.append("m", {}, 1, idempotency_key="k").version == 2

    # -- append: status and AI-turn marker, in the same atomic step ------------

    def test_append_writes_the_lobby_status_with_the_entry(self, store: Store, records: Records):
        records.create(_record("m"), {})
        assert records.progress("m") == ("waiting", 0)
        store.append("m", {}, 0, status="active")
        assert records.progress("m") == ("active", 1)
        store.append("m", {}, 1)  # no status: the record is left alone
        assert records.progress("m") == ("active", 1)
        with pytest.raises(VersionConflict):
            store.append("m", {}, 0, status="finished")
        assert records.progress("m") == ("active", 1)

    def test_append_sets_and_clears_the_ai_turn_marker(self, store: Store):
        assert store.ai_turns.marker("m") is None
        store.append("m", {}, 0, ai_seats=[1, 3])
        assert store.ai_turns.marker("m") == (1, [1, 3])
        store.append("m", {}, 1, ai_seats=[0])
        assert store.ai_turns.marker("m") == (2, [0])
        store.append("m", {}, 2)
        assert store.ai_turns.marker("m") is None
        store.ai_turns.set("m", 3, [2])
        assert store.ai_turns.marker("m") == (3, [2])
        store.ai_turns.set("m", 4, [0, 1])  # the same, as the application layer calls it
        assert store.ai_turns.marker("m") == (4, [0, 1])

    def test_a_duplicate_or_conflicting_append_leaves_the_ai_turn_marker(self, store: Store):
        store.append("m", {}, 0, idempotency_key="k", ai_seats=[1])
        store.append("m", {}, 0, idempotency_key="k")
        assert store.ai_turns.marker("m") == (1, [1])
        with pytest.raises(VersionConflict):
            store.append("m", {}, 0)
        assert store.ai_turns.marker("m") == (1, [1])

    def test_append_sets_and_clears_the_clock_marker_with_exact_deadlines(self, store: Store):
        assert store.clocks.marker("m") is None
        store.append("m", {}, 0, clocks={1: 1_700_000_012.345678, 0: 1_700_000_003.0})
        assert store.clocks.marker("m") == (1, {0: 1_700_000_003.0, 1: 1_700_000_012.345678})
        store.append("m", {}, 1, clocks={0: 1_700_000_020.5}, ai_seats=[1])
        assert store.clocks.marker("m") == (2, {0: 1_700_000_020.5}) and store.ai_turns.marker("m") == (
            2,
            [1],
        )
        store.append("m", {}, 2)  # no clock a person holds runs any more
        assert store.clocks.marker("m") is None

    def test_a_duplicate_or_conflicting_append_leaves_the_clock_marker(self, store: Store):
        store.append("m", {}, 0, idempotency_key="k", clocks={0: 5.0})
        store.append("m", {}, 0, idempotency_key="k", clocks={1: 9.0})
        assert store.clocks.marker("m") == (1, {0: 5.0})
        with pytest.raises(VersionConflict):
            store.append("m", {}, 0, clocks={1: 9.0})
        assert store.clocks.marker("m") == (1, {0: 5.0})

    def test_a_draft_flush_sets_the_clock_marker_too(self, store: Store):
        store.append("m", {}, 0)
        store.push_draft("m", 0, {"n": 1}, 1, base=1, count=0)
        store.append("m", {"sealed": [{"n": 1}]}, 1, draft=DraftFlush(0, 1, 1), clocks={1: 7.5})
        assert store.clocks.marker("m") == (2, {1: 7.5}) and store.draft("m", 0) == Draft()

    # -- drafts: a seat's sealed steps beside the log (see eventstore/drafts.py) --

    def test_draft_steps_are_kept_per_seat_out_of_the_log_and_read_back_in_order(self, store: Store):
        store.append("m", {}, 0)
        assert store.draft("m", 0) == Draft()
        assert store.push_draft("m", 0, {"n": 1}, 1, base=1, count=0).count == 1
        assert store.push_draft("m", 0, {"n": 2}, 1, base=1, count=1).count == 2
        store.push_draft("m", 1, {"n": 9}, 1, base=1, count=0)
        assert store.version("m") == 1  # nothing reached the log
        assert store.draft("m", 0).base == 1 and store.draft("m", 0).steps == [{"n": 1}, {"n": 2}]
        assert store.draft("m", 0).current(1) == [{"n": 1}, {"n": 2}]
        assert store.draft("m", 0).current(2) == []  # written against another barrier: stale
        assert store.draft("m", 1).steps == [{"n": 9}]

    def test_a_draft_push_conflicts_unless_the_log_and_the_draft_are_as_the_writer_saw(self, store: Store):
        store.append("m", {}, 0)
        store.push_draft("m", 0, {"n": 1}, 1, base=1, count=0)
        for version, count in ((0, 1), (2, 1), (1, 0), (1, 2)):
            with pytest.raises(VersionConflict) as caught:
                store.push_draft("m", 0, {"late": True}, version, base=1, count=count)
            assert caught.value.current_version == 1
        assert store.draft("m", 0).steps == [{"n": 1}]

    def test_a_draft_on_another_base_is_replaced_by_the_next_push(self, store: Store):
        store.append("m", {}, 0)
        store.push_draft("m", 0, {"old": 1}, 1, base=1, count=0, idempotency_key="k")
        store.append("m", {}, 1)  # say a reveal: the barrier is now version 2
        assert store.push_draft("m", 0, {"new": 1}, 2, base=2, count=0, idempotency_key="k").count == 1
        assert store.draft("m", 0) == Draft(2, [{"new": 1}], {"k": (1, None)})

    def test_racing_draft_pushes_of_one_seat_have_exactly_one_winner(self, backend: Backend):
        backend.store.append("race", {}, 0)
        stores = [self.other(backend).store for _ in range(8)]
        barrier = threading.Barrier(len(stores))
        outcomes: list = []

        def push(i, store):
            barrier.wait()
            try:
                outcomes.append(store.push_draft("race", 0, {"writer": i}, 1, base=1, count=0).count)
            except VersionConflict:
                outcomes.append("conflict")

        threads = [threading.Thread(target=push, args=(i, s)) for i, s in enumerate(stores)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(outcomes, key=str) == sorted([1] + ["conflict"] * 7, key=str)
        assert len(backend.store.draft("race", 0).steps) == 1

    def test_a_repeated_draft_idempotency_key_replays_its_step_with_its_fingerprint(self, store: Store):
        store.append("m", {}, 0)
        first = store.push_draft("m", 0, {"n": 1}, 1, 1, 0, idempotency_key="0:k", fingerprint="f")
        again = store.push_draft("m", 0, {"n": 1}, 1, 1, 1, idempotency_key="0:k", fingerprint="f")
        assert (first.count, first.duplicate) == (1, False)
        assert (again.duplicate, again.step, again.version, again.fingerprint) == (True, 1, None, "f")
        assert store.draft("m", 0).steps == [{"n": 1}] and store.draft("m", 0).keys == {"0:k": (1, "f")}

    def test_an_append_carrying_a_draft_deletes_it_and_keeps_its_idempotency_keys(
        self, store: Store, records: Records
    ):
        store.append("m", {}, 0)
        store.push_draft("m", 0, {"n": 1}, 1, 1, 0, idempotency_key="0:a", fingerprint="fa")
        store.push_draft("m", 0, {"n": 2}, 1, 1, 1, idempotency_key="0:b")
        store.push_draft("m", 1, {"n": 9}, 1, 1, 0)
        result = store.append("m", {"sealed": [{"n": 1}, {"n": 2}]}, 1, draft=DraftFlush(0, 1, 2))
        assert result.version == 2 and store.draft("m", 0) == Draft()
        assert store.draft("m", 1).steps == [{"n": 9}]  # another seat's draft stays
        assert records.idempotent("m", "0:a") == (2, "fa") and records.idempotent("m", "0:b") == (2, None)
        replay = store.push_draft("m", 0, {"n": 1}, 2, 1, 0, idempotency_key="0:a", fingerprint="fa")
        assert (replay.duplicate, replay.version, replay.fingerprint) == (True, 2, "fa")
        assert store.draft("m", 0) == Draft()

    def test_an_append_carrying_a_draft_conflicts_unless_the_draft_is_as_seen(self, store: Store):
        store.append("m", {}, 0)
        store.push_draft("m", 0, {"n": 1}, 1, 1, 0)
        for flush in (DraftFlush(0, 1, 0), DraftFlush(0, 1, 2), DraftFlush(0, 2, 1), DraftFlush(1, 1, 1)):
            with pytest.raises(VersionConflict):
                store.append("m", {"sealed": "?"}, 1, draft=flush)
        assert store.version("m") == 1 and store.draft("m", 0).steps == [{"n": 1}]
        # a stale draft (another base) counts as none
        store.append("m", {}, 1)
        assert store.append("m", {}, 2, draft=DraftFlush(0, 3, 0)).version == 3
        assert store.draft("m", 0) == Draft()

    def test_popping_a_draft_drops_its_last_steps_and_keeps_their_keys_with_them(self, store: Store):
        store.append("m", {}, 0)
        for n in range(3):
            store.push_draft("m", 0, {"n": n}, 1, 1, n, idempotency_key=f"0:k{n}", fingerprint=f"f{n}")
        assert store.pop_draft("m", 0, base=1, count=3, steps=2).count == 1
        dropped = {"0:k1": ("f1", {"n": 1}), "0:k2": ("f2", {"n": 2})}
        assert store.draft("m", 0) == Draft(1, [{"n": 0}], {"0:k0": (1, "f0")}, dropped=dropped)
        for base, count, steps in ((2, 1, 1), (1, 3, 1), (1, 1, 2)):
            with pytest.raises(VersionConflict):
                store.pop_draft("m", 0, base=base, count=count, steps=steps)
        assert store.draft("m", 0).steps == [{"n": 0}]
        # a dropped step's key replays it (with its fingerprint) instead of adding a step
        replay = store.push_draft("m", 0, {"n": 5}, 1, 1, 1, idempotency_key="0:k1", fingerprint="f1")
        assert (replay.duplicate, replay.dropped, replay.fingerprint) == (True, {"n": 1}, "f1")
        assert store.draft("m", 0).steps == [{"n": 0}]

    def test_moves_and_undos_of_a_draft_share_its_keys(self, store: Store):
        store.append("m", {}, 0)
        store.push_draft("m", 0, {"n": 0}, 1, 1, 0, idempotency_key="0:step", fingerprint="fs")
        store.push_draft("m", 0, {"n": 1}, 1, 1, 1, idempotency_key="0:gone")
        store.pop_draft("m", 0, 1, 2, 1, idempotency_key="0:undo", fingerprint="fu")
        for key in ("0:step", "0:gone"):  # a step's key, kept or dropped, drops nothing
            assert store.pop_draft("m", 0, 1, 1, 1, idempotency_key=key).reused is True
        pushed = store.push_draft("m", 0, {"n": 2}, 1, 1, 1, idempotency_key="0:undo")
        assert (pushed.duplicate, pushed.reused, pushed.fingerprint) == (True, True, "fu")
        assert store.draft("m", 0).steps == [{"n": 0}]

    def test_an_append_carrying_a_draft_keeps_the_keys_of_its_undone_steps_and_undos(
        self, store: Store, records: Records
    ):
        store.append("m", {}, 0)
        store.push_draft("m", 0, {"n": 0}, 1, 1, 0, idempotency_key="0:gone", fingerprint="fg")
        store.pop_draft("m", 0, 1, 1, 1, idempotency_key="0:undo", fingerprint="fu")
        store.push_draft("m", 0, {"n": 1}, 1, 1, 0, idempotency_key="0:kept")
        store.append("m", {"sealed": [{"n": 1}]}, 1, draft=DraftFlush(0, 1, 1))
        assert records.idempotent("m", "0:gone") == (2, "fg")
        assert records.idempotent("m", "0:undo") == (2, "fu")
        assert records.idempotent("m", "0:kept") == (2, None)

    def test_a_repeated_draft_pop_key_drops_nothing_more(self, store: Store):
        store.append("m", {}, 0)
        for n in range(3):
            store.push_draft("m", 0, {"n": n}, 1, 1, n)
        first = store.pop_draft("m", 0, 1, 3, 1, idempotency_key="0:u", fingerprint="f")
        assert (first.count, first.duplicate) == (2, False)
        assert store.draft("m", 0).undone == {"0:u": (2, "f")}
        for count in (3, 2):  # as seen before the first pop, or after it
            again = store.pop_draft("m", 0, 1, count, 1, idempotency_key="0:u", fingerprint="f")
            assert (again.count, again.duplicate, again.fingerprint) == (2, True, "f")
        assert store.draft("m", 0).steps == [{"n": 0}, {"n": 1}]
        with pytest.raises(VersionConflict):  # a stale draft (another base) has no key to replay
            store.pop_draft("m", 0, 2, 2, 1, idempotency_key="0:u", fingerprint="f")

    # -- reads --------------------------------------------------------------

    def test_read_ranges_pages_and_single_entries(self, store: Store):
        for n in range(6):
            store.append("m", {"n": n}, n)
        assert [e["version"] for e in store.read("m", after=2)] == [3, 4, 5, 6]
        assert [e["version"] for e in store.read("m", after=1, upto=3)] == [2, 3]
        assert store.read("m", after=3, upto=3) == []
        assert store.read("m", after=4, upto=2) == []
        assert store.read("m", after=6) == []
        assert [e["version"] for e in store.read_page("m", 1, 2)] == [2, 3]
        assert [e["version"] for e in store.read_page("m", 5, 10)] == [6]
        assert store.entry("m", 4)["n"] == 3
        assert store.entry("m", 7) is None
        assert store.read("unknown") == []

    def test_entries_round_trip_json_values(self, store: Store):
        entry = {"events": [{"t": "x", "cards": [1, 2], "none": None, "ok": True, "f": 0.5}], "who": "é✓"}
        store.append("m", entry, 0)
        assert store.read("m") == [entry | {"version": 1}]

    # -- subscribe ------------------------------------------------------------

    def test_subscribe_times_out_empty_then_wakes_on_an_append(self, backend: Backend):
        store = backend.store
        store.append("m", {"x": 1}, 0)
        assert store.subscribe("m", 1, block_ms=50) == []
        assert [e["x"] for e in store.subscribe("m", 0, block_ms=50)] == [1]
        got: list = []
        waiter = threading.Thread(target=lambda: got.extend(store.subscribe("m", 1, block_ms=10_000)))
        waiter.start()
        self.other(backend).store.append("m", {"x": 2}, 1)
        waiter.join(15)
        assert [e["x"] for e in got] == [2]

    # -- snapshots ------------------------------------------------------------

    def test_snapshots_load_the_newest_at_or_before_a_version(self, store: Store):
        assert store.load_snapshot("m") is None
        store.save_snapshot("m", 10, {"at": 10})
        store.save_snapshot("m", 30, {"at": 30})
        store.save_snapshot("m", 20, {"at": 20})
        assert store.load_snapshot("m") == {"at": 30}
        assert store.load_snapshot("m", at_most=25) == {"at": 20}
        assert store.load_snapshot("m", at_most=10) == {"at": 10}
        assert store.load_snapshot("m", at_most=9) is None
        assert store.load_snapshot("other") is None

    # -- match records --------------------------------------------------------

    def test_create_then_get_returns_the_record(self, records: Records):
        record = _record("m", seats=3, filled=1)
        records.create(record, {0: "tok0"})
        got = records.get("m")
        assert got == record
        assert records.get("unknown") is None
        assert records.progress("m") == ("waiting", 0)
        assert records.progress("unknown") == ("waiting", 0)

    def test_a_seat_is_claimed_once_and_its_token_is_stored_hashed(self, backend: Backend, records: Records):
        records.create(_record("m", seats=2, filled=1), {0: "tok0"})
        clients = [self.other(backend).records for _ in range(8)]
        barrier = threading.Barrier(len(clients))
        won: list = []

        def claim(i, recs):
            barrier.wait()
            if recs.claim("m", 1, f"n{i}", f"token-{i}").won:
                won.append(i)

        threads = [threading.Thread(target=claim, args=(i, r)) for i, r in enumerate(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(won) == 1
        assert records.get("m").seats[1] == Seat(name=f"n{won[0]}")
        assert records.get("m").full
        # A token is found by its hash, never stored in clear.
        assert records.seat_of("m", hash_token(f"token-{won[0]}")) == 1
        assert records.seat_of("m", hash_token("tok0")) == 0
        assert records.seat_of("m", "tok0") is None
        assert [records.seat_of("m", hash_token(f"token-{i}")) for i in range(8) if i != won[0]] == [None] * 7
        late = records.claim("m", 0, "late", "t")
        assert not late.won and late.record == records.get("m") and late.version == 0
        assert records.seat_of("m", hash_token("t")) is None

    def test_a_claim_returns_the_record_and_the_log_length_right_after_it(
        self, store: Store, records: Records
    ):
        records.create(_record("m", seats=3, filled=1), {0: "tok0"})
        store.append("m", {}, 0)
        store.append("m", {}, 1)
        got = records.claim("m", 2, "Cy", "tok2")
        assert got.won and got.version == 2
        assert got.record == records.get("m")
        assert [s.name for s in got.record.seats] == ["p0", None, "Cy"] and not got.record.full

    def test_the_claim_that_fills_the_last_seat_saves_the_lobby_status_it_was_given(
        self, store: Store, records: Records
    ):
        records.create(_record("m", seats=3, filled=1), {0: "tok0"})
        store.append("m", {}, 0)
        first = records.claim("m", 1, "Bo", "tok1", 3, ("active", 1))
        assert first.won and not first.progress_saved and records.progress("m") == ("waiting", 0)
        stale = records.claim("m", 2, "Cy", "tok2", 3, ("active", 0))  # judged on a shorter log
        assert stale.won and stale.record.full and not stale.progress_saved
        assert records.progress("m") == ("waiting", 0)
        records.create(_record("n", seats=2, filled=1), {0: "tok0"})
        store.append("n", {}, 0)
        last = records.claim("n", 1, "Bo", "tok1", 2, ("active", 1))
        assert last.won and last.progress_saved and records.progress("n") == ("active", 1)
        taken = records.claim("n", 1, "Cy", "tok9", 2, ("finished", 1))
        assert not taken.won and not taken.progress_saved and records.progress("n") == ("active", 1)

    def test_a_claim_in_a_match_that_does_not_exist_writes_nothing(self, records: Records):
        assert records.claim("ghost", 0, "Ana", "tok") == (False, None, 0, False)
        assert records.get("ghost") is None
        assert records.redis.exists(keys.meta("ghost"), keys.tokens("ghost")) == 0  # no stray keys
        assert records.seat_of("ghost", hash_token("tok")) is None
        assert records.list() == []

    def test_the_lobby_lists_match_ids_newest_first_in_pages(self, records: Records):
        for n, created in enumerate([5.0, 1.0, 3.0, 4.0, 2.0]):
            records.create(_record(f"m{n}", created=created), {})
        assert records.list() == ["m0", "m3", "m2", "m4", "m1"]
        assert records.list(0, 2) == ["m0", "m3"]
        assert records.list(2, 2) == ["m2", "m4"]
        assert records.list(4, 10) == ["m1"]
        assert records.list(5, 10) == []

    def test_progress_is_written_and_read_back(self, records: Records):
        records.create(_record("m"), {})
        records.set_progress("m", "finished", 12)
        assert records.progress("m") == ("finished", 12)
        assert records.get("m") == _record("m")  # the static record is untouched

    def test_undo_requests_are_opened_once_a_seat_saved_and_listed_while_pending(self, records: Records):
        assert records.undo_request("m", "r1") is None
        assert records.pending_undo_requests("m") == []
        request = {"id": "r1", "seat": 0, "votes": {"1": None}, "status": "pending"}
        assert records.open_undo_request("m", request)
        assert not records.open_undo_request("m", request | {"id": "r2"})  # seat 0 has one pending
        assert records.undo_request("m", "r2") is None
        assert records.open_undo_request("m", {"id": "r3", "seat": 1, "votes": {}, "status": "pending"})
        voted = request | {"votes": {"1": True}}
        assert records.save_undo_request("m", voted)
        assert records.undo_request("m", "r1") == voted
        assert sorted(r["id"] for r in records.pending_undo_requests("m")) == ["r1", "r3"]
        assert records.save_undo_request("m", voted | {"status": "approved"})
        assert records.undo_request("m", "r1") == voted | {"status": "approved"}
        assert [r["id"] for r in records.pending_undo_requests("m")] == ["r3"]
        assert records.open_undo_request("m", request | {"id": "r4"})  # settled: seat 0 may ask again
        assert records.pending_undo_requests("other") == []

    def test_an_undo_request_saved_with_was_is_written_only_if_unchanged_since(self, records: Records):
        request = {"id": "r1", "seat": 0, "votes": {"1": None, "2": None}, "status": "pending"}
        records.open_undo_request("m", request)
        first = request | {"votes": {"1": True, "2": None}}
        assert records.save_undo_request("m", first, was=request)
        assert not records.save_undo_request("m", request | {"status": "refused"}, was=request)
        assert records.undo_request("m", "r1") == first
        assert [r["id"] for r in records.pending_undo_requests("m")] == ["r1"]

    def test_settling_a_replaced_request_leaves_its_seats_new_one_pending(self, records: Records):
        old = {"id": "r1", "seat": 0, "votes": {}, "status": "pending"}
        records.open_undo_request("m", old)
        records.save_undo_request("m", old | {"status": "withdrawn"}, was=old)
        records.open_undo_request("m", old | {"id": "r2"})
        records.save_undo_request("m", old | {"status": "approved"})  # r1 again, settled
        assert [r["id"] for r in records.pending_undo_requests("m")] == ["r2"]

    def test_only_the_last_settled_undo_requests_are_kept(self, records: Records):
        n = UNDO_SETTLED_KEPT + 5
        for i in range(n):
            request = {"id": f"r{i}", "seat": 0, "votes": {}, "status": "pending"}
            assert records.open_undo_request("m", request)
            assert records.save_undo_request("m", request | {"status": "withdrawn"}, was=request)
        kept = [i for i in range(n) if records.undo_request("m", f"r{i}") is not None]
        assert kept == list(range(5, n))
        assert records.redis.hlen(keys.undo_requests("m")) == UNDO_SETTLED_KEPT

    def test_racing_openers_of_one_seats_undo_request_have_exactly_one_winner(
        self, backend: Backend, records: Records
    ):
        clients = [self.other(backend).records for _ in range(8)]
        barrier = threading.Barrier(len(clients))
        won: list = []

        def open_(i, recs):
            barrier.wait()
            if recs.open_undo_request("m", {"id": f"r{i}", "seat": 0, "votes": {}, "status": "pending"}):
                won.append(i)

        threads = [threading.Thread(target=open_, args=(i, r)) for i, r in enumerate(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(won) == 1
        assert [r["id"] for r in records.pending_undo_requests("m")] == [f"r{won[0]}"]
        assert [records.undo_request("m", f"r{i}") is not None for i in range(8)].count(True) == 1

    def test_create_match_writes_the_record_and_the_first_entry_together(
        self, store: Store, records: Records
    ):
        result = records.create_match(
            _record("m"), {0: "tok0"}, {"setup": 1}, status="active", ai_seats=[1], admin_hash="h"
        )
        assert (result.version, result.duplicate) == (1, False)
        assert records.get("m") == _record("m")
        assert store.read("m") == [{"setup": 1, "version": 1}]
        assert records.progress("m") == ("active", 1)
        assert store.ai_turns.marker("m") == (1, [1])
        assert "m" in store.ai_turns.members()
        assert store.clocks.marker("m") is None and store.clocks.members() == []
        assert records.admin_hash("m") == "h"
        assert records.seat_of("m", hash_token("tok0")) == 0
        assert records.list() == ["m"]

    def test_create_match_with_a_running_clock_records_its_deadline_with_the_first_entry(
        self, store, records
    ):
        records.create_match(_record("m", filled=2), {0: "tok0", 1: "tok1"}, {"setup": 1}, clocks={0: 42.0})
        assert store.clocks.marker("m") == (1, {0: 42.0})
        assert store.clocks.members() == ["m"]

    def test_read_parts_reads_what_a_load_misses_at_once(self, store: Store, records: Records):
        records.create(_record("m"), {0: "tok0"})
        for n in range(3):
            store.append("m", {"n": n}, n)
        record, seat, entries, _ = records.read_parts(
            "m", record=True, token_hash=hash_token("tok0"), after=1
        )
        assert (record, seat) == (_record("m"), 0)
        assert [e["version"] for e in entries or []] == [2, 3]
        assert records.read_parts("m", record=False, token_hash=None, after=None) == (None, None, None, None)
        assert records.read_parts("m", record=False, token_hash=hash_token("x"), after=3) == (
            None,
            None,
            [],
            None,
        )
        assert records.read_parts("unknown", record=True, token_hash=None, after=0) == (None, None, [], None)

    def test_read_parts_reads_the_newest_snapshot_and_the_entries_after_it(
        self, store: Store, records: Records
    ):
        records.create(_record("m"), {0: "tok0"})
        for n in range(5):
            store.append("m", {"n": n}, n)
        none = records.read_parts("m", record=False, token_hash=None, after=AFTER_SNAPSHOT)
        assert (none.snapshot, [e["version"] for e in none.entries or []]) == (None, [1, 2, 3, 4, 5])
        for version in (2, 3):
            store.save_snapshot("m", version, {"at": version})
        store.save_snapshot("m", 1, {"at": 1})
        parts = records.read_parts("m", record=True, token_hash=hash_token("tok0"), after=AFTER_SNAPSHOT)
        assert (parts.record, parts.seat, parts.snapshot) == (_record("m"), 0, {"at": 3})
        assert [e["version"] for e in parts.entries or []] == [4, 5]
        store.save_snapshot("m", 12, {"at": 12})  # newer than the log (numbers, not text, are compared)
        assert records.read_parts("m", record=False, token_hash=None, after=AFTER_SNAPSHOT)[2:] == (
            [],
            {"at": 12},
        )

    # -- the outboxes (AI turns and clocks): one shape, one set of tests ------

    @pytest.fixture(params=["ai_turns", "clocks"])
    def outbox(self, request: pytest.FixtureRequest, store: Store) -> OutboxCase:
        """Each outbox of the store, with what an append that marks it passes and the marker it sets."""
        if request.param == "ai_turns":
            return OutboxCase(store.ai_turns, store.clocks, lambda n: {"ai_seats": [n % 3, 3]}, _turn)
        return OutboxCase(store.clocks, store.ai_turns, lambda n: {"clocks": {n % 3: 10.0 + n}}, _due)

    def test_the_pending_index_collects_marked_matches_once(self, store: Store, outbox: OutboxCase):
        assert outbox.box.members() == []
        outbox.box.note("a")
        store.append("b", {}, 0, **outbox.marks(0))
        outbox.box.note("a")
        store.append("c", {}, 0)  # nothing due: not marked
        assert sorted(outbox.box.members()) == ["a", "b"]
        assert outbox.other.members() == []  # the other outbox's index is another one

    def test_pending_lists_each_member_with_its_mark_and_marker_in_every_batch(
        self, store: Store, outbox: OutboxCase
    ):
        before = time.time()
        outbox.box.note("a")  # an intent with no marker (yet)
        store.append("b", {}, 0, **outbox.marks(1))
        for i in range(5):
            store.append(f"c{i}", {}, 0, **outbox.marks(i))
        store.append("c4", {}, 1)  # nothing due any more: the member stays, its marker is gone
        pending = list(outbox.box.pending(batch=2))
        assert [p.match_id for p in pending][:2] == ["a", "b"]  # oldest mark first
        assert sorted(p.match_id for p in pending) == ["a", "b", "c0", "c1", "c2", "c3", "c4"]
        by_id = {p.match_id: p for p in pending}
        assert by_id["a"].marker is None and by_id["c4"].marker is None
        assert by_id["b"].marker == outbox.marker(1, 1) and by_id["c3"].marker == outbox.marker(1, 3)
        assert all(before - 1 <= p.marked_at <= time.time() + 1 for p in pending)
        assert outbox.box.marker("b") == outbox.marker(1, 1) and outbox.box.marker("c4") is None
        assert outbox.other.members() == []

    def test_drop_removes_a_member_unless_marked_again_since(self, store: Store, outbox: OutboxCase):
        store.append("a", {}, 0, **outbox.marks(0))
        [seen] = list(outbox.box.pending())
        assert not outbox.box.drop("a", seen.marked_at - 10)  # marked after what the caller saw
        assert outbox.box.members() == ["a"]
        assert outbox.box.drop("a", seen.marked_at)
        assert outbox.box.members() == [] and list(outbox.box.pending()) == []
        assert not outbox.box.drop("a", seen.marked_at)  # already gone

    def test_a_token_set_for_a_seat_acts_for_it_beside_its_first(self, records: Records):
        records.create(_record("m", seats=2, filled=2), {0: "tok0", 1: "tok1"})
        records.set_token("m", 1, "new1")
        assert records.seat_of("m", hash_token("new1")) == 1
        assert records.seat_of("m", hash_token("tok1")) == 1
        assert records.seat_of("other", hash_token("new1")) is None

    def test_the_admin_hash_is_kept_with_the_record(self, records: Records):
        records.create(_record("m"), {})
        records.create(_record("a"), {}, admin_hash="h4sh")
        assert records.admin_hash("m") is None
        assert records.admin_hash("a") == "h4sh"
        assert records.admin_hash("unknown") is None
        assert records.get("a") == _record("a")

    def test_one_rematch_id_wins_and_its_creation_lock_is_exclusive(self, backend: Backend, records: Records):
        records.create(_record("m"), {})
        others = [self.other(backend).records for _ in range(6)]
        barrier = threading.Barrier(len(others))
        plans: list = []

        def plan(i, recs):
            barrier.wait()
            plans.append(recs.plan_rematch("m", f"next{i}"))

        threads = [threading.Thread(target=plan, args=(i, r)) for i, r in enumerate(others)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        winners = [p for p in plans if p[1]]
        assert len(winners) == 1
        assert {p[0] for p in plans} == {winners[0][0]}
        assert records.plan_rematch("m", "late") == (winners[0][0], False)
        assert records.take_rematch_lock("m", "a", 30) is True
        assert records.take_rematch_lock("m", "b", 30) is False
        assert records.take_rematch_lock("other", "b", 30) is True
        records.release_rematch_lock("m")
        assert records.take_rematch_lock("m", "b", 30) is True

    def test_a_reserved_seat_is_released_once_unless_claimed_and_the_record_shows_it(self, records: Records):
        reserved = _record("m", seats=3, filled=0)
        reserved.settings["reserved"] = [0, 1, 2]
        records.create(reserved, {})
        assert records.claim("m", 1, "Bo", "tok1").won
        assert records.release("m", 0) == RELEASED
        assert records.release("m", 0) == RELEASED_BEFORE
        assert records.release("m", 1) == SEAT_CLAIMED
        assert records.get("m").settings == {"unlisted": False, "reserved": [1, 2]}
        assert records.claim("m", 2, "Cy", "tok2").record.settings["reserved"] == [1, 2]
        assert records.release("ghost", 0) == NO_MATCH
        assert records.redis.exists(keys.meta("ghost")) == 0

    # -- health ---------------------------------------------------------------

    def test_ping_answers_when_the_backend_is_up(self, store: Store):
        assert store.ping() is None


__all__ = ["Backend", "EventStoreContract"]
