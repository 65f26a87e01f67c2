"""Redis down or frozen: 503 problem+json with Retry-After and one log line, never a 500 or a hung thread.

A real redis-server of the test's own, SIGKILLed or SIGSTOPped; the app on
its shipped defaults (``redis_timeout`` 2 s).
"""

import logging
import os
import signal
import threading

import pytest

from gameroom import create_app
from gameroom.api import problems
from gameroom.api.throttle import ThrottledLog
from gameroom.config import Config
from gameroom.eventstore.embedded import EmbeddedRedis

MEDIA = "application/problem+json"


@pytest.fixture
def own_redis(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis").start()
    yield server
    if server.process is not None and server.process.poll() is None:
        os.kill(server.process.pid, signal.SIGCONT)
    server.stop()


@pytest.fixture
def setup(fast_paths, own_redis, registry, monkeypatch):
    monkeypatch.setattr(problems, "_outage_log", ThrottledLog(problems.log, logging.ERROR))
    app = create_app({"redis_url": own_redis.url, "ai_mode": "rq"}, registry)
    client = app.test_client()
    created = client.post("/api/matches", json={"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]})
    assert created.status_code == 201
    body = created.get_json()
    return app, client, body["match"]["id"], body["tokens"]["0"]


def _assert_unavailable(response):
    assert response.status_code == 503, response.get_data(as_text=True)
    assert response.mimetype == MEDIA
    assert response.get_json()["code"] == "redis-unavailable"
    assert int(response.headers["Retry-After"]) >= 1


def test_redis_down_answers_503_with_retry_after_and_logs_one_line(setup, own_redis, caplog):
    app, client, match_id, token = setup
    auth = {"Authorization": f"Bearer {token}"}
    own_redis.kill()  # SIGKILL
    caplog.set_level(logging.INFO)
    caplog.clear()
    requests = [
        client.get(f"/api/matches/{match_id}"),
        client.get(f"/api/matches/{match_id}/state", headers=auth),
        client.get(f"/api/matches/{match_id}/legal-moves", headers=auth),
        client.post(
            f"/api/matches/{match_id}/moves",
            json={"move": {"type": "take", "pile": 0, "count": 1}},
            headers={**auth, "Idempotency-Key": "x"},
        ),
        client.post("/api/matches", json={"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]}),
        client.get(f"/api/matches/{match_id}/events"),
        client.get("/api/matches"),
    ]
    for response in requests:
        _assert_unavailable(response)
    assert client.get("/api/readyz").status_code == 503
    assert client.get("/api/games").status_code == 200  # what needs no Redis still works
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    assert "Redis unavailable" in errors[0].getMessage() and errors[0].exc_info is None
    assert not any(r.exc_info for r in caplog.records)  # no traceback per request
    # nor a line per request from the request log: the outage's line says it
    assert [r.getMessage() for r in caplog.records if r.name == "gameroom.requests"] == []

    own_redis.start()  # back, on the same files: the same client reconnects by itself
    assert client.get(f"/api/matches/{match_id}").status_code == 200


def test_a_frozen_redis_does_not_hold_a_request_past_the_timeout(setup, own_redis):
    app, client, match_id, _token = setup
    assert app.config["GAMEROOM"].redis_timeout == Config.redis_timeout == 2.0  # the shipped default
    answered = []
    os.kill(own_redis.process.pid, signal.SIGSTOP)
    try:
        request = threading.Thread(target=lambda: answered.append(client.get(f"/api/matches/{match_id}")))
        request.start()
        request.join(30)
        frozen_still = own_redis.process.poll() is None
        assert not request.is_alive(), "the request is still waiting for a frozen Redis"
    finally:
        os.kill(own_redis.process.pid, signal.SIGCONT)
    assert frozen_still
    _assert_unavailable(answered[0])
    assert client.get(f"/api/matches/{match_id}").status_code == 200


def test_live_streams_blocking_reads_are_not_cut_by_the_request_timeout(setup):
    app, _client, match_id, _token = setup
    store = app.extensions["gameroom"].store
    timeout = app.config["GAMEROOM"].redis_timeout
    # Blocks longer than the request path's socket timeout, and comes back empty, not with an error.
    assert store.subscribe(match_id, 1, block_ms=int((timeout + 1) * 1000)) == []


@pytest.fixture
def own_queue_redis(tmp_path):
    server = EmbeddedRedis(tmp_path / "queue-redis").start()
    yield server
    server.stop()


def test_readyz_names_a_queue_redis_that_is_down_when_the_app_schedules_ai_turns(
    own_redis, own_queue_redis, registry
):
    config = {"redis_url": own_redis.url, "queue_redis_url": own_queue_redis.url, "ai_mode": "rq"}
    client = create_app(config, registry).test_client()
    ready = client.get("/api/readyz")
    assert ready.status_code == 200 and ready.get_json()["status"] == "ready"

    own_queue_redis.kill()  # SIGKILL: the events Redis still answers
    refused = client.get("/api/readyz")
    assert refused.status_code == 503, refused.get_data(as_text=True)
    assert refused.mimetype == MEDIA
    problem = refused.get_json()
    assert problem["code"] == "not-ready"
    assert "queue Redis" in problem["detail"]
    assert client.get("/api/healthz").status_code == 200  # the process itself is up

    own_queue_redis.start()  # back: the same client reconnects by itself
    assert client.get("/api/readyz").status_code == 200


def test_readyz_does_not_ask_a_queue_redis_the_app_does_not_use(own_redis, own_queue_redis, registry):
    config = {"redis_url": own_redis.url, "queue_redis_url": own_queue_redis.url, "ai_mode": "off"}
    client = create_app(config, registry).test_client()
    own_queue_redis.kill()
    assert client.get("/api/readyz").status_code == 200
