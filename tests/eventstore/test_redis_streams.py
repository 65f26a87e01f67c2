"""The event store against a real redis-server."""

import threading

import pytest

from gameroom.errors import VersionConflict
from gameroom.eventstore import EventStore, keys
from gameroom.eventstore.embedded import EmbeddedRedis


def test_versions_are_stream_positions(store):
    for v in range(5):
        assert store.append("m", {"n": v}, v).version == v + 1
    assert store.version("m") == 5
    assert [e["n"] for e in store.read("m")] == [0, 1, 2, 3, 4]
    assert [e["version"] for e in store.read("m", after=1, upto=3)] == [2, 3]
    assert store.read("m", after=3, upto=3) == []
    assert store.entry("m", 4)["n"] == 3
    assert store.entry("m", 9) is None
    assert store.version("unknown") == 0


def test_append_at_a_stale_version_conflicts_with_the_current_version(store):
    store.append("m", {}, 0)
    store.append("m", {}, 1)
    with pytest.raises(VersionConflict) as caught:
        store.append("m", {"late": True}, 1)
    assert caught.value.current_version == 2
    assert store.version("m") == 2


def test_repeated_idempotency_key_returns_first_result_and_appends_nothing(store):
    first = store.append("m", {"a": 1}, 0, idempotency_key="k1")
    again = store.append("m", {"a": 1}, 0, idempotency_key="k1")
    # Even at a later expected version the key wins: the retry is recognised, not re-applied.
    later = store.append("m", {"a": 1}, 1, idempotency_key="k1")
    assert (first.version, first.duplicate) == (1, False)
    assert (again.version, again.duplicate) == (1, True)
    assert (later.version, later.duplicate) == (1, True)
    assert store.version("m") == 1


def test_keys_of_one_match_share_a_hash_slot():
    tags = {
        k.split("{")[1].split("}")[0]
        for k in (
            keys.events("abc"),
            keys.meta("abc"),
            keys.idempotency("abc"),
            keys.tokens("abc"),
            keys.snapshot("abc"),
        )
    }
    assert tags == {"abc"}


def test_subscribe_returns_new_entries_or_times_out(store):
    assert store.subscribe("m", 0, block_ms=50) == []
    store.append("m", {"x": 1}, 0)
    got = []
    waiter = threading.Thread(target=lambda: got.extend(store.subscribe("m", 1, block_ms=5000)))
    waiter.start()
    store.append("m", {"x": 2}, 1)
    waiter.join(10)
    assert [e["x"] for e in got] == [2]


def test_concurrent_appenders_leave_a_gap_free_duplicate_free_stream(redis_server, redis_client):
    """16 threads × 200 appends racing on one match: exactly one winner per version."""
    threads, per_thread = 16, 200
    conflicts = [0] * threads
    other_errors = []

    def writer(t):
        store = EventStore(redis_server.client())
        done = 0
        while done < per_thread:
            seen = store.version("race")
            try:
                store.append("race", {"t": t, "i": done}, seen)
                done += 1
            except VersionConflict as exc:
                assert exc.current_version > seen
                conflicts[t] += 1
            except Exception as exc:  # pragma: no cover - would fail the test below
                other_errors.append(exc)
                return

    workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert not other_errors
    entries = EventStore(redis_client).read("race")
    assert [e["version"] for e in entries] == list(range(1, threads * per_thread + 1))
    assert sorted((e["t"], e["i"]) for e in entries) == [
        (t, i) for t in range(threads) for i in range(per_thread)
    ]
    assert sum(conflicts) > 0, "the threads never raced; the test proves nothing"


def test_acknowledged_appends_survive_sigkill_with_the_default_fsync(tmp_path):
    """SIGKILL redis-server right after appends: the AOF replay keeps every acknowledged one."""
    server = EmbeddedRedis(tmp_path / "data")  # the embedded default: appendfsync always
    server.start()
    try:
        store = EventStore(server.client())
        for v in range(500):
            store.append("crash", {"n": v}, v, idempotency_key=f"k{v}")
        server.kill()
        server.start()
        store = EventStore(server.client())
        assert store.version("crash") == 500
        assert [e["n"] for e in store.read("crash")] == list(range(500))
        assert store.append("crash", {"n": 0}, 0, idempotency_key="k0").duplicate
    finally:
        server.stop()


def test_a_second_server_on_the_same_folder_is_refused(tmp_path):
    from gameroom.eventstore.embedded import EmbeddedRedisError

    with EmbeddedRedis(tmp_path / "d"):
        with pytest.raises(EmbeddedRedisError, match="already running"):
            EmbeddedRedis(tmp_path / "d").start()
