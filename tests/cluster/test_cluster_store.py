"""What spans matches on a Redis Cluster: creation's two steps, the lobby, the stream hub, the queue."""

import threading

import pytest
import redis

from gameroom import create_app
from gameroom.core.matches import MatchRecord, Seat
from gameroom.eventstore import EventStore, keys
from gameroom.eventstore.connect import ClusterURLError, client_from_url
from gameroom.eventstore.hub import StreamHub
from gameroom.eventstore.records import MatchRecords

ENTRY = {"kind": "move", "events": []}


@pytest.fixture
def cluster(redis_cluster):
    redis_cluster.flushall()
    client = client_from_url(redis_cluster.url)
    yield client
    client.close()


def _record(match_id, created=1.0):
    return MatchRecord(
        id=match_id,
        game="nim",
        options={"piles": [1, 2]},
        seed="s",
        created=created,
        seats=[Seat("a"), Seat("b")],
    )


def _die_in_transactions(monkeypatch, client):
    """Make ``client``'s transactions fail: a process dying between creation's two writes."""
    original = client.pipeline

    def pipeline(transaction=None, **kw):
        pipe = original(transaction=transaction, **kw)
        if transaction:

            def die():
                raise redis.ConnectionError("the process died here")

            pipe.execute = die
        return pipe

    monkeypatch.setattr(client, "pipeline", pipeline)


def test_creation_on_a_cluster_writes_the_lobby_intent_before_the_match_keys(
    redis_cluster, cluster, monkeypatch
):
    """A creation that dies between its two writes leaves a lobby id with no record (skipped by the
    listing, no 5xx), never a match missing from the lobby."""
    _die_in_transactions(monkeypatch, cluster)
    dying = MatchRecords(cluster)
    with pytest.raises(redis.ConnectionError):
        dying.create_match(
            _record("unborn", 5.0), {0: "t0"}, {"kind": "setup"}, status="active", ai_seats=[1]
        )
    monkeypatch.undo()
    assert cluster.zscore(keys.lobby(), "unborn") == 5.0, "the intent is written first"
    assert cluster.zscore(keys.ai_pending(), "unborn") is not None, "so is the pending-AI mark"
    assert cluster.exists(keys.meta("unborn"), keys.events("unborn")) == 0
    records = MatchRecords(cluster)
    assert records.get("unborn") is None
    # A creation that completes (through the API, on the cluster) is in the lobby and whole.
    app = create_app({"redis_url": redis_cluster.url, "ai_mode": "off"})
    client = app.test_client()
    created = client.post("/api/matches", json={"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]})
    assert created.status_code == 201, created.get_json()
    born = created.get_json()["match"]["id"]
    assert set(records.list()) == {born, "unborn"}
    assert records.get(born) is not None and EventStore(cluster).version(born) == 1
    # The listing shows the born match and skips the unborn one.
    listed = client.get("/api/matches")
    assert listed.status_code == 200
    assert [m["id"] for m in listed.get_json()["matches"]] == [born]


def test_the_stream_hub_on_a_cluster_fans_out_matches_of_every_node(redis_cluster, cluster):
    store = EventStore(cluster)
    # Matches whose streams live on three different masters.
    ids, owners = [], set()
    for i in range(200):
        node = redis_cluster.master_of(keys.events(f"m{i}")).port
        if node not in owners:
            owners.add(node)
            ids.append(f"m{i}")
        if len(owners) == 3:
            break
    assert len(ids) == 3
    hub = StreamHub(cluster, redis_cluster.url, block_ms=1000)
    store.append(ids[0], ENTRY, 0)
    subs = {m: hub.subscribe(m) for m in ids}
    assert subs[ids[0]].backlog_upto == 1 and subs[ids[1]].backlog_upto == 0

    def write():
        for m in ids:
            for _ in range(5):
                store.append(m, ENTRY, store.version(m))

    writer = threading.Thread(target=write)
    writer.start()
    writer.join(30)
    for m, sub in subs.items():
        want = list(range(sub.backlog_upto + 1, store.version(m) + 1))
        got = []
        while len(got) < len(want):
            batch = sub.get(5)
            assert batch, (m, got)
            got += [e["version"] for e in batch]
        assert got == want
        sub.close()
    assert hub.open_streams == 0


def test_the_queue_must_not_be_the_cluster(redis_cluster):
    with pytest.raises(ClusterURLError, match="GAMEROOM_QUEUE_REDIS_URL"):
        create_app({"redis_url": redis_cluster.url, "ai_mode": "rq"})
    app = create_app(
        {"redis_url": redis_cluster.url, "ai_mode": "rq", "queue_redis_url": "redis://127.0.0.1:1"}
    )
    assert app.extensions["gameroom"] is not None


def test_the_reconciler_finds_a_lost_ai_turn_on_the_cluster_and_enqueues_it_on_the_queue_redis(
    cluster, queue_redis_server
):
    """An API process whose enqueue is lost (no scheduler at all): the worker's reconciler reads the
    pending-AI index and the match's marker on the cluster and enqueues the job on the queue Redis."""
    import time

    from gameroom.composition import matches_on
    from gameroom.core.rng import Seeding
    from gameroom.registry import build_registry
    from gameroom.workers.reconciler import FRESH, reconcile
    from gameroom.workers.scheduler import AIScheduler

    registry = build_registry()
    lost = matches_on(cluster, registry, seeding=Seeding.reproducible())
    ids = []
    for i in range(6):  # several matches, so the index's members live in several slots
        loaded, _ = lost.create("nim", [{"name": "Bot", "ai": "random"}, {"name": "Ana"}], seed=f"r{i}")
        if lost.ai_to_move(loaded.record, lost.game(loaded.record), loaded.folded):
            ids.append(loaded.record.id)
    assert ids, "no match had its AI seat to move first"
    assert set(ids) <= set(EventStore(cluster).ai_turns.members())
    with queue_redis_server.client() as queue:
        queue.flushall()
        scheduler = AIScheduler(queue, "gameroom-ai-cluster-test")
        upkeep = matches_on(cluster, registry, seeding=Seeding.reproducible())
        enqueued = reconcile(upkeep, scheduler, now=time.time() + FRESH + 1)
        assert sorted(enqueued) == sorted(keys.ai_job_id(m, 1, 0) for m in ids)
        for match_id in ids:
            assert queue.exists(f"rq:job:{keys.ai_job_id(match_id, 1, 0)}") == 1
        assert not any(k.startswith(b"gameroom:") for k in queue.keys("*")), "no events on the queue Redis"


def test_a_busy_cluster_pool_waits_for_a_connection_instead_of_failing(redis_cluster):
    """As on a single Redis (GAMEROOM_REDIS_POOL_TIMEOUT): more concurrent users than a node's
    connections wait their turn."""
    from gameroom.eventstore.connect import cluster_client

    client = cluster_client(redis_cluster.url, max_connections=1, pool_timeout=20, socket_timeout=5)
    assert {type(n.redis_connection.connection_pool) for n in client.get_nodes()} == {
        redis.BlockingConnectionPool
    }
    results, errors = [], []

    def hold():
        try:  # BLPOP on an empty list holds the node's only connection for its timeout
            results.append(client.execute_command("BLPOP", "gameroom:{pool}:nothing", 0.3))
        except redis.RedisError as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=hold) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == [] and results == [None] * 4
    client.close()
