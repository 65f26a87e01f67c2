"""GAMEROOM_REDIS_WAIT_REPLICAS on a real Redis Cluster: the WAIT goes to the match's master."""

from __future__ import annotations

from gameroom.eventstore import EventStore, keys, replication
from gameroom.eventstore.connect import client_from_url


def _replica_of(cluster, master):
    [replica] = [
        n for n in cluster.nodes if n.alive and n.role() == "slave" and _master_port(n) == master.port
    ]
    return replica


def _master_port(node) -> int:
    return int(node.info("replication")["master_port"])


def test_an_append_waits_for_the_replica_of_its_match_master(redis_cluster):
    redis_cluster.flushall()
    store = EventStore(client_from_url(redis_cluster.url, socket_timeout=30), wait_replicas=1)
    # matches on every master: each append waits on its own master, whose replica then has it
    seen_masters = set()
    for i in range(12):
        match_id = f"wait-{i}"
        replication.reset()
        result = store.append(match_id, {"kind": "move"}, 0, ai_seats=[1] if i % 2 else None)
        assert (result.version, replication.outcome()) == (1, (1, 1))
        master = redis_cluster.master_of(keys.events(match_id))
        seen_masters.add(master.port)
        with _replica_of(redis_cluster, master).client() as replica:
            replica.execute_command("READONLY")
            assert replica.xlen(keys.events(match_id)) == 1
    assert len(seen_masters) == 3


def test_a_frozen_replica_is_reported_and_the_append_stands(redis_cluster):
    redis_cluster.flushall()
    store = EventStore(
        client_from_url(redis_cluster.url, socket_timeout=30), wait_replicas=1, wait_timeout_ms=200
    )
    match_id = "wait-frozen"
    master = redis_cluster.master_of(keys.events(match_id))
    replica = _replica_of(redis_cluster, master)
    redis_cluster.pause(replica)
    try:
        replication.reset()
        result = store.append(match_id, {"kind": "move"}, 0)
    finally:
        redis_cluster.resume(replica)
    assert (result.version, replication.outcome()) == (1, (0, 1))
    with master.client() as client:
        assert client.xlen(keys.events(match_id)) == 1
    redis_cluster.wait_ok()
