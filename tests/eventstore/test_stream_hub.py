"""The stream hub: one Redis reader fans every new entry out to every subscriber, in order, without gaps."""

import threading

from gameroom.eventstore.hub import StreamHub

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
