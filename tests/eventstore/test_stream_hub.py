"""The stream hub: one Redis reader fans every new entry out to every subscriber, in order, without gaps."""

import linecache
import logging
import re
import sys
import threading

from gameroom.eventstore import EventStore
from gameroom.eventstore import hub as hub_module
from gameroom.eventstore.embedded import EmbeddedRedis
from gameroom.eventstore.hub import StreamHub
from gameroom.testing.polling import wait_until

ENTRY = {"kind": "move", "events": []}


def _append(store, match_id, n):
    for _ in range(n):
        store.append(match_id, ENTRY, store.version(match_id))


def test_every_subscriber_gets_every_new_entry_once_in_order_over_one_reader(
    redis_server, redis_client, store
):
    hub = StreamHub(redis_client, redis_server.url, block_ms=1000)
    _append(store, "m1", 2)
    subs = [hub.subscribe("m1", f"client{i}") for i in range(50)] + [hub.subscribe("m2") for _ in range(5)]
    assert {s.backlog_upto for s in subs[:50]} == {2} and hub.open_streams == 55
    _append(store, "m1", 30)
    _append(store, "m2", 3)
    for sub, expected in [(s, list(range(3, 33))) for s in subs[:50]] + [(s, [1, 2, 3]) for s in subs[50:]]:
        got = []
        while len(got) < len(expected):
            batch = sub.get(5)
            assert batch, f"{sub.match_id}: got {got}"
            got += [e["version"] for e in batch]
        assert got == expected
    for sub in subs:
        sub.close()
    assert hub.open_streams == 0


def test_a_subscriber_joining_during_appends_misses_nothing(redis_server, redis_client, store):
    """What the hub has handed out before a subscription is its backlog (read from the store);
    everything after reaches its queue."""
    hub = StreamHub(redis_client, redis_server.url, block_ms=1000)
    early = hub.subscribe("m")
    writer = threading.Thread(target=_append, args=(store, "m", 200))
    writer.start()
    late = [hub.subscribe("m") for _ in range(20)]
    writer.join()
    for sub in late:
        seen = [e["version"] for e in store.read("m", 0, sub.backlog_upto)]
        while not seen or seen[-1] < 200:
            batch = sub.get(5)
            assert batch, seen[-3:]
            seen += [e["version"] for e in batch]
        assert seen == list(range(1, 201))
    early.close()
    for sub in late:
        sub.close()


def _versions(sub, upto):
    got = []
    while not got or got[-1] < upto:
        batch = sub.get(5)
        assert batch, got
        got += [e["version"] for e in batch]
    return got


def test_matches_left_and_watched_again_keep_their_own_entries(redis_server, redis_client, store):
    """The hub keeps its XREAD packed: leaving a match and watching others repacks its keys."""
    hub = StreamHub(redis_client, redis_server.url, block_ms=1000)
    first = hub.subscribe("a")
    _append(store, "a", 2)
    assert _versions(first, 2) == [1, 2]
    first.close()  # "a" is no longer watched
    _append(store, "a", 1)
    b, again = hub.subscribe("b"), hub.subscribe("a")
    assert again.backlog_upto == 3
    _append(store, "b", 2)
    _append(store, "a", 2)
    assert _versions(b, 2) == [1, 2]
    assert _versions(again, 5) == [4, 5]
    b.close()
    again.close()
    assert hub.open_streams == 0


def test_the_reader_reconnects_after_its_connection_is_killed_and_misses_nothing(
    redis_server, redis_client, store
):
    hub = StreamHub(redis_client, redis_server.url, block_ms=1000)
    sub = hub.subscribe("k")
    _append(store, "k", 1)
    assert _versions(sub, 1) == [1]
    blocked = [c for c in redis_client.client_list() if c["cmd"] == "xread"]
    assert blocked  # this hub's reader, blocked in its XREAD (and earlier tests' hubs)
    for client in blocked:
        redis_client.client_kill_filter(_id=client["id"])
    _append(store, "k", 3)  # while the reader is down or reconnecting (it waits 1 s after an error)
    assert _versions(sub, 4) == [2, 3, 4]
    sub.close()


def test_an_outage_is_logged_once_then_every_few_seconds_with_a_count_and_streams_resume(
    tmp_path, caplog, monkeypatch
):
    """No traceback a second while Redis is down: a line when it goes, one every LOG_EVERY
    seconds (here 1 s) with the count of failed reads, one when it is back; nothing is missed."""
    monkeypatch.setattr(hub_module, "LOG_EVERY", 1.0)
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        client = server.client()
        store = EventStore(client)
        hub = StreamHub(client, server.url, block_ms=1000)
        sub = hub.subscribe("o")
        _append(store, "o", 1)
        assert _versions(sub, 1) == [1]
        caplog.set_level(logging.INFO, logger="gameroom.eventstore.hub")
        caplog.clear()
        server.kill()
        reader = hub._thread.ident  # other tests' hubs live on in their threads

        def reports():
            return [
                r.getMessage()
                for r in caplog.records
                if r.name == "gameroom.eventstore.hub" and r.thread == reader and r.levelno == logging.ERROR
            ]

        # the outage lasts until the reader has reported it twice more, however long that takes
        wait_until(lambda: len(reports()) >= 3, 30, "two reports of the continuing outage")
        server.start()  # back on its files
        _append(EventStore(server.client()), "o", 2)
        assert _versions(sub, 3) == [2, 3]

        def until_back():
            found = [r for r in caplog.records if r.name == "gameroom.eventstore.hub" and r.thread == reader]
            return found if found and "Redis is back" in found[-1].getMessage() else None

        # The reader says it is back once it has handed the entries out.
        lines = wait_until(until_back, 5, "the reader to log that Redis is back")
        # Left subscribed, the reader would go on reading the stopped server after the test,
        # logging its outage into later tests' output: it idles once its last stream is gone.
        sub.close()
        wait_until(lambda: not hub._has_work.is_set(), 5, "the hub's reader to idle")
    finally:
        server.stop()
    assert not any(r.exc_info for r in lines)
    errors = [r.getMessage() for r in lines if r.levelno == logging.ERROR]
    assert "Redis unavailable" in errors[0]
    later = [re.search(r"still unavailable after (\d+) s \((\d+) failed reads", e) for e in errors[1:]]
    assert len(later) >= 2 and all(later), errors  # the first, then one every LOG_EVERY, counted
    assert [int(m[1]) for m in later] == sorted(int(m[1]) for m in later), errors  # time since the start
    assert all(int(m[2]) >= 1 for m in later), errors  # each after failed reads of its own


def test_the_end_of_an_outage_is_logged_when_redis_answers_not_a_blocking_read_later(tmp_path, caplog):
    """With the default block (10 s) and nothing appended, the reader's first read after an
    outage blocks for the whole block: "Redis is back" came up to 10 s after Redis did."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        hub = StreamHub(server.client(), server.url)  # the shipped block_ms
        sub = hub.subscribe("quiet")
        caplog.set_level(logging.INFO, logger="gameroom.eventstore.hub")
        probe = server.client()
        wait_until(
            lambda: any(c["cmd"] == "xread" for c in probe.client_list()), 10, "the reader to block in XREAD"
        )
        reader = hub._thread.ident
        server.kill()
        wait_until(
            lambda: any("Redis unavailable" in r.getMessage() for r in caplog.records if r.thread == reader),
            15,
            "the reader to log the outage",
        )
        server.start()
        back = wait_until(
            lambda: [r for r in caplog.records if r.thread == reader and "Redis is back" in r.getMessage()],
            5,  # under the 10 s block: only a reader that asks at once says so in time
            "the reader to log that Redis is back",
        )
        assert len(back) == 1
        sub.close()
    finally:
        server.stop()
    # Its last stream gone, the reader idles even with Redis away: no more reads, no more lines
    # (it kept reading a stopped server, and said Redis was back when it merely idled).
    wait_until(lambda: _parked(hub), 15, "the hub's reader to idle")
    said = len([r for r in caplog.records if r.thread == reader])
    assert not hub._has_work.is_set() and _parked(hub)  # waits for a stream: reads nothing till then
    assert len([r for r in caplog.records if r.thread == reader]) == said


def _parked(hub) -> bool:
    """Whether the hub's reader thread is blocked in its idle wait (``_has_work.wait()``), where
    it reads nothing and logs nothing until a stream is subscribed again."""
    frame = sys._current_frames().get(hub._thread.ident)
    while frame is not None and frame.f_code.co_name != "_run":
        frame = frame.f_back
    return frame is not None and "self._has_work.wait()" in linecache.getline(
        frame.f_code.co_filename, frame.f_lineno
    )
