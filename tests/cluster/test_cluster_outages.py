"""A cluster that loses a node: processes live through it and recover.

Each test runs a real cluster of its own (3 masters + 3 replicas, ``cluster-node-timeout``
2 s), so the session's stays whole; the app on its shipped defaults.
"""

from __future__ import annotations

import logging
import time

from gameroom import create_app
from gameroom.eventstore import keys
from gameroom.testing.cluster import LocalCluster

ENTRY = {"kind": "move", "events": []}


def _versions_until(sub, version: int, timeout: float) -> list[int]:
    got: list[int] = []
    deadline = time.monotonic() + timeout
    while (not got or got[-1] < version) and time.monotonic() < deadline:
        got += [e["version"] for e in sub.get(0.2)]
    return got


def test_live_streams_go_on_when_the_stream_readers_default_node_fails_over(tmp_path, caplog):
    """redis-py asks its default node where XREAD's keys are; that node dying used to stop every
    live stream of the process until it came back, long after its replica had taken over."""
    caplog.set_level(logging.INFO)
    with LocalCluster(tmp_path / "cluster") as cluster:
        app = create_app({"redis_url": cluster.url, "ai_mode": "off"})
        hub, store = app.extensions["gameroom_hub"], app.extensions["gameroom"].store
        default = hub._reader.get_default_node()
        victim = cluster.node(int(default.port))
        match_id = next(
            m for m in (f"m{i}" for i in range(500)) if cluster.master_of(keys.events(m)) != victim
        )
        # The blocking reads' client (store.subscribe) has the same default node.
        store.blocking.replace_default_node(store.blocking.get_node(default.host, default.port))
        store.append(match_id, ENTRY, 0)
        sub = hub.subscribe(match_id)
        store.append(match_id, ENTRY, 1)
        assert _versions_until(sub, 2, 5) == [2]

        cluster.kill(victim)
        cluster.wait_failover(victim)
        store.append(match_id, ENTRY, 2)
        assert _versions_until(sub, 3, 5) == [3], (
            "the stream did not get the entry appended after the failover"
        )
        assert [e["version"] for e in store.subscribe(match_id, 2, block_ms=1000)] == [3]
        sub.close()
        # Another command whose keys redis-py asks a server for: another node is asked.
        store.blocking.zadd("{z}:from", {"x": 1})
        assert store.blocking.execute_command("ZUNIONSTORE", "{z}:to", 1, "{z}:from") == 1

    hub_log = [r for r in caplog.records if r.name == "gameroom.eventstore.hub"]
    assert not any(r.exc_info for r in hub_log), "a traceback for an outage"
    assert len([r for r in hub_log if r.levelno >= logging.ERROR]) <= 1, [r.getMessage() for r in hub_log]
