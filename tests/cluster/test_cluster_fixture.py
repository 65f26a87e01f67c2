"""The session's Redis Cluster is real: 3 masters, 3 replicas, every slot served, keys spread."""

import pytest
from redis.exceptions import RedisClusterException, ResponseError

from gameroom.testing.cluster import LocalCluster


def test_three_masters_three_replicas_cover_every_slot(redis_cluster: LocalCluster):
    assert len(redis_cluster.nodes) == 6
    assert len(redis_cluster.masters()) == 3
    assert len(redis_cluster.replicas()) == 3
    for node in redis_cluster.nodes:
        info = node.cluster_info()
        assert info["cluster_state"] == "ok"
        assert info["cluster_slots_assigned"] == "16384"
        assert info["cluster_known_nodes"] == "6"
    assert redis_cluster.url.startswith("redis+cluster://127.0.0.1:")


def test_keys_spread_over_masters_and_replicate(redis_cluster: LocalCluster, cluster_client):
    for i in range(60):
        cluster_client.set(f"k{i}", i)
    owners = {redis_cluster.master_of(f"k{i}").port for i in range(60)}
    assert len(owners) == 3, "60 keys should land on all three masters"
    node = redis_cluster.master_of("k7")
    with node.client() as direct:
        assert direct.get("k7") == b"7"
    # Every replica of that master has the key once replication caught up (WAIT 1 replica).
    assert (
        cluster_client.execute_command("WAIT", 1, 5000, target_nodes=cluster_client.get_node_from_key("k7"))
        >= 1
    )


def test_same_hash_tag_same_slot_and_crossslot_refused(cluster_client):
    assert cluster_client.keyslot("gameroom:{m1}:events") == cluster_client.keyslot("gameroom:{m1}:meta")
    pipe = cluster_client.pipeline()
    pipe.set("gameroom:{m1}:a", 1)
    pipe.set("gameroom:{m1}:b", 2)
    assert pipe.execute() == [True, True]
    # One command over two matches' keys is refused: what spans matches must be designed for it.
    with pytest.raises((RedisClusterException, ResponseError)):
        cluster_client.execute_command("MSET", "gameroom:{m1}:a", 1, "gameroom:{m2}:a", 2)
    assert cluster_client.get("gameroom:{m2}:a") is None


def test_failover_replica_takes_over_and_restart_rejoins(tmp_path):
    """Its own small cluster, so the session's stays untouched: kill a master, a replica takes
    over with the data, the old master comes back as a replica."""
    with LocalCluster(tmp_path / "c", node_timeout_ms=1000) as cluster:
        client = cluster.client()
        client.set("survivor", "yes")
        client.execute_command("WAIT", 1, 5000, target_nodes=client.get_node_from_key("survivor"))
        dead = cluster.kill_master(key="survivor")
        assert not dead.alive
        new = cluster.wait_failover(dead)
        assert new.port in dead.replica_ports
        assert new.role() == "master"
        client.close()
        client = cluster.client()
        assert client.get("survivor") == b"yes"
        cluster.restart(dead)
        assert dead.role() == "slave"
        assert len(cluster.masters()) == 3
        client.close()
    assert all(not n.alive for n in cluster.nodes)
