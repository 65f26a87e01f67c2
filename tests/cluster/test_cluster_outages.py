"""A cluster that loses a node, is not there yet, or goes away: processes live through it and recover.

Each test runs a real cluster of its own (3 masters + 3 replicas, ``cluster-node-timeout``
2 s), so the session's stays whole; the app and the worker on their shipped defaults.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from gameroom import create_app
from gameroom.api import problems
from gameroom.api.throttle import ThrottledLog
from gameroom.composition import matches_on
from gameroom.eventstore import keys
from gameroom.eventstore.connect import client_from_url
from gameroom.registry import build_registry
from gameroom.testing.cluster import LocalCluster, free_cluster_ports
from gameroom.testing.polling import wait_until
from gameroom.testing.served import Served
from gameroom.workers.scheduler import AIScheduler

GAMEROOM = Path(sys.executable).with_name("gameroom")
ENTRY = {"kind": "move", "events": []}
NIM = {"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]}
#: A log line of gameroom: it starts with its time.
STAMPED = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ")


@pytest.fixture
def bare_cluster(tmp_path):
    """Six cluster-enabled nodes that know nothing of each other: a cluster not created yet."""
    cluster = LocalCluster(tmp_path / "cluster").start(create=False)
    yield cluster
    cluster.stop()


def _call(method: str, url: str, body=None) -> tuple[int, dict]:
    response = requests.request(method, url, json=body, timeout=30)
    return response.status_code, response.json()


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


def test_an_api_whose_cluster_does_not_answer_boots_and_answers_503(monkeypatch, caplog):
    monkeypatch.setattr(problems, "_outage_log", ThrottledLog(problems.log, logging.ERROR))
    url = "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in free_cluster_ports(3))
    caplog.set_level(logging.INFO)
    client = create_app({"redis_url": url, "ai_mode": "off"}).test_client()  # used to raise
    assert client.get("/api/healthz").status_code == 200
    for response in [client.get("/api/matches"), client.post("/api/matches", json=NIM)]:
        assert response.status_code == 503, response.get_data(as_text=True)
        assert response.get_json()["code"] == "redis-unavailable"
    assert client.get("/api/readyz").status_code == 503
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "Redis unavailable" in errors[0].getMessage(), [
        r.getMessage() for r in errors
    ]
    assert not any(r.exc_info for r in caplog.records)


def test_an_api_started_before_its_cluster_is_created_answers_503_then_works_without_a_restart(
    bare_cluster, tmp_path
):
    env = {"GAMEROOM_REDIS_URL": bare_cluster.url, "GAMEROOM_AI_MODE": "off"}
    with Served(tmp_path / "serve", workers=1, ai_workers=0, env=env, ready_path="/api/healthz") as served:
        status, body = _call("GET", served.base + "/api/matches")
        assert (status, body["code"]) == (503, "redis-unavailable")
        assert _call("GET", served.base + "/api/readyz")[0] == 503

        bare_cluster.create()
        wait_until(lambda: _call("GET", served.base + "/api/readyz")[0] == 200, 20, "readyz to answer 200")
        status, body = _call("POST", served.base + "/api/matches", NIM)
        assert status == 201, body
        match_id = body["match"]["id"]
        assert _call("GET", f"{served.base}/api/matches/{match_id}")[0] == 200

        bare_cluster.stop()  # the whole cluster gone at run time: an outage too, not a 500
        status, body = _call("GET", f"{served.base}/api/matches/{match_id}")
        assert (status, body["code"]) == (503, "redis-unavailable")
        log = served.log()
    assert "Traceback" not in log, log
    assert "Redis unavailable, answering 503" in log


def test_a_worker_started_before_its_cluster_is_created_waits_then_plays(
    bare_cluster, queue_redis_server, tmp_path
):
    queue_name = "gameroom-ai-cluster-late"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
    env.update(
        GAMEROOM_REDIS_URL=bare_cluster.url,
        GAMEROOM_QUEUE_REDIS_URL=queue_redis_server.url,
        GAMEROOM_QUEUE=queue_name,
    )
    log_path = tmp_path / "worker.log"
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            [str(GAMEROOM), "worker"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        waiting = "worker: Redis unavailable"
        wait_until(lambda: log_path.read_text().count(waiting) >= 2, 20, "the worker to retry")
        assert worker.poll() is None, log_path.read_text()

        bare_cluster.create()
        events = client_from_url(bare_cluster.url)
        with queue_redis_server.client() as queue:
            matches = matches_on(events, build_registry())
            matches.after_append.append(AIScheduler(queue, queue_name))
            bots = [{"name": "Bot", "ai": "random"}, {"name": "Tob", "ai": "random"}]
            loaded, _ = matches.create("nim", bots, {"piles": [1, 1]}, seed="late")
            match_id = loaded.record.id

            def finished():
                played = matches.load(match_id)
                return matches.game(played.record).outcome(played.folded.state) is not None

            wait_until(finished, 60, "the AI seats to play to the end")
        events.close()
        assert worker.poll() is None
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(30)
    text = log_path.read_text()
    assert "Traceback" not in text, text
    retries = [line for line in text.splitlines() if waiting in line]
    assert retries and all(STAMPED.match(line) for line in retries), retries
    assert all("All slots are not covered" in line for line in retries), retries
