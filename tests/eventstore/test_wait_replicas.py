"""GAMEROOM_REDIS_WAIT_REPLICAS: a move is acknowledged once replicas have it (WAIT), on a real
primary with a real replica; a replica that does not confirm in time is reported, not hidden."""

from __future__ import annotations

import logging

import pytest

from gameroom import create_app
from gameroom.config import Config
from gameroom.eventstore import EventStore, keys

pytest_plugins = ["gameroom.testing.replicated"]

TAKE = {"type": "take", "pile": 0, "count": 1}


@pytest.fixture
def primary(replicated_redis):
    client = replicated_redis.primary_client()
    client.flushall()
    replicated_redis.wait_synced()
    yield client
    client.close()


def _client(replicated_redis, registry, **settings):
    app = create_app({"redis_url": replicated_redis.primary_url, "ai_mode": "off", **settings}, registry)
    app.config["TESTING"] = True
    return app.test_client()


def _new_match(client) -> tuple[str, dict]:
    """A nim match of two humans: its id and its seats' tokens."""
    created = client.post("/api/matches", json={"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
    assert created.status_code == 201, created.get_json()
    return created.get_json()["match"]["id"], created.get_json()["tokens"]


def _move(client, match_id, tokens):
    """One move of whoever is to move."""
    [seat] = client.get(f"/api/matches/{match_id}").get_json()["active_seats"]
    headers = {"Authorization": f"Bearer {tokens[str(seat)]}"}
    return client.post(f"/api/matches/{match_id}/moves", json={"move": TAKE}, headers=headers)


def _waits_sent(primary) -> int:
    return int(primary.info("commandstats").get("cmdstat_wait", {}).get("calls", 0))


def test_waiting_is_off_by_default():
    assert (Config().redis_wait_replicas, Config().redis_wait_timeout_ms) == (0, 1000)
    config = Config.from_env({"GAMEROOM_REDIS_WAIT_REPLICAS": "1", "GAMEROOM_REDIS_WAIT_TIMEOUT_MS": "250"})
    assert (config.redis_wait_replicas, config.redis_wait_timeout_ms) == (1, 250)


def test_the_default_sends_no_wait_and_no_header(replicated_redis, primary, registry):
    client = _client(replicated_redis, registry)
    match_id, tokens = _new_match(client)
    before = _waits_sent(primary)
    response = _move(client, match_id, tokens)
    assert response.status_code == 201
    assert "Gameroom-Replicas" not in response.headers
    assert _waits_sent(primary) == before


def test_a_move_is_acknowledged_once_the_replica_has_it(replicated_redis, primary, registry):
    client = _client(replicated_redis, registry, redis_wait_replicas=1)
    [replica] = replicated_redis.replica_clients()
    match_id, tokens = _new_match(client)
    before = _waits_sent(primary)
    for _ in range(3):
        response = _move(client, match_id, tokens)
        assert response.status_code == 201, response.get_json()
        assert response.headers["Gameroom-Replicas"] == "1/1"
        # the replica had the entry before the client was told: it is there at once
        assert replica.xlen(keys.events(match_id)) == response.get_json()["version"]
    assert _waits_sent(primary) - before == 3
    assert replica.xlen(keys.events(match_id)) == primary.xlen(keys.events(match_id))


def test_a_replica_that_does_not_confirm_in_time_is_reported_and_the_move_still_stands(
    replicated_redis, primary, registry, caplog
):
    """WAIT cannot undo the primary's write: the move is accepted (201), the header and a
    WARNING say that no replica confirmed it (the replica is frozen with SIGSTOP)."""
    client = _client(replicated_redis, registry, redis_wait_replicas=1, redis_wait_timeout_ms=200)
    match_id, tokens = _new_match(client)
    replicated_redis.pause_replica()
    try:
        with caplog.at_level(logging.WARNING, logger="gameroom.eventstore.replication"):
            response = _move(client, match_id, tokens)
    finally:
        replicated_redis.resume_replica()
    assert response.status_code == 201, response.get_json()
    assert response.headers["Gameroom-Replicas"] == "0/1"
    version = response.get_json()["version"]
    assert primary.xlen(keys.events(match_id)) == version
    assert any(f"version {version}: 0 of 1 replicas" in r.getMessage() for r in caplog.records)
    replicated_redis.wait_synced()
    # once the replica is back, the next move is confirmed again
    assert _move(client, match_id, tokens).headers["Gameroom-Replicas"] == "1/1"


def test_the_store_waits_after_every_kind_of_append(replicated_redis, primary):
    """Conflicts and idempotent replays are answered as without WAIT; AI turns mark the index."""
    store = EventStore(primary, wait_replicas=1, wait_timeout_ms=1000)
    [replica] = replicated_redis.replica_clients()
    first = store.append("m1", {"kind": "move"}, 0, idempotency_key="k", ai_seats=[1])
    assert (first.version, first.duplicate) == (1, False)
    assert replica.xlen(keys.events("m1")) == 1
    assert replica.zscore(keys.ai_pending(), "m1") is not None
    assert store.ai_turns.marker("m1") == (1, [1])
    again = store.append("m1", {"kind": "move"}, 0, idempotency_key="k")
    assert (again.version, again.duplicate) == (1, True)
    from gameroom.errors import VersionConflict

    with pytest.raises(VersionConflict):
        store.append("m1", {"kind": "move"}, 0)
    assert primary.xlen(keys.events("m1")) == 1
