"""A worker builds its object graph once per process; an AI turn loads its match once.

Real redis-server, real forking RQ worker, real jobs.
"""

import os

import pytest
from rq import Worker
from rq.serializers import JSONSerializer

from gameroom.composition import compose, shared_clients
from gameroom.config import Config
from gameroom.workers import jobs, worker
from gameroom.workers.scheduler import queue_for

from .conftest import QUEUE
from .test_ai_jobs import _create, _entries, _human_plays_until_ai_turn


@pytest.fixture
def prepared(redis_server, ai_registry):
    """This process prepared as ``gameroom worker`` prepares itself (forgotten after the test)."""
    previous = jobs._REGISTRY
    jobs.use_registry(ai_registry)
    wiring = worker.prepare(redis_server.url, QUEUE)
    yield wiring
    jobs.use_wiring(None)
    jobs.use_registry(previous)


def test_a_worker_builds_its_wiring_once_and_every_work_horse_runs_its_jobs_on_it(prepared, redis_client):
    queue = queue_for(redis_client, QUEUE)
    probes = [queue.enqueue("gameroom.testing.wiring_probe.wiring_probe") for _ in range(2)]
    Worker([QUEUE], connection=redis_client, serializer=JSONSerializer).work(
        burst=True, logging_level="WARNING"
    )
    results = [job.return_value() for job in probes]
    pids = {r["pid"] for r in results}
    assert len(pids) == 2 and os.getpid() not in pids  # one forked horse per job
    assert all(r["matches"] == id(prepared.matches) for r in results)  # the parent's, inherited
    assert all(r["seed_secret_read"] for r in results)  # read once, before the fork


def test_a_job_on_another_queue_gets_a_wiring_of_its_own(prepared, redis_client):
    other = "gameroom-ai-test-other"
    job = queue_for(redis_client, other).enqueue("gameroom.testing.wiring_probe.wiring_probe")
    Worker([other], connection=redis_client, serializer=JSONSerializer).work(
        burst=True, logging_level="WARNING"
    )
    assert job.return_value()["matches"] != id(prepared.matches)


def test_a_thread_of_the_worker_other_than_the_forking_one_gets_a_wiring_of_its_own(prepared):
    """The upkeep thread runs RQ's failure callbacks of abandoned jobs: if it used the main thread's
    objects, a lock it held while the main thread forked would stay held in the work horse."""
    import threading

    seen = []

    def twice():
        seen.extend([jobs._process_wiring(), jobs._process_wiring()])

    thread = threading.Thread(target=twice)
    thread.start()
    thread.join()
    assert jobs._process_wiring() is prepared  # the main thread: the prepared one
    first, again = seen
    assert first is again and first is not prepared  # built once per thread
    assert first.config == prepared.config and first.registry is prepared.registry
    assert first.matches is not prepared.matches and first.clients.events is not prepared.clients.events


class _Counted:
    """Counts the calls of some methods of an object (the real methods run)."""

    def __init__(self, target, *names):
        self.calls = dict.fromkeys(names, 0)
        for name in names:
            method = getattr(target, name)

            def counted(*args, _name=name, _method=method, **kwargs):
                self.calls[_name] += 1
                return _method(*args, **kwargs)

            setattr(target, name, counted)


def _cold(redis_client, ai_registry):
    """A fresh application layer, as a work horse has it: nothing cached."""
    config = Config(queue=QUEUE)
    return compose(config, ai_registry, clients=shared_clients(redis_client), scheduling=False).matches


def test_an_ai_turn_loads_its_match_once_and_submits_on_that_load(ai_matches, redis_client, ai_registry):
    match_id = _create(ai_matches, "nim", [None, "greedy"])
    loaded = _human_plays_until_ai_turn(ai_matches, match_id)
    cold = _cold(redis_client, ai_registry)
    records = _Counted(cold.records, "read_parts", "idempotent", "get")
    store = _Counted(cold.store, "read", "version", "load_snapshot")

    result = jobs.play_turn(cold, match_id, loaded.version, 1, "job-1")

    assert result["status"] == "applied" and result["version"] == loaded.version + 1
    assert records.calls == {"read_parts": 1, "idempotent": 0, "get": 0}
    assert store.calls == {"read": 0, "version": 0, "load_snapshot": 0}  # read_parts read them all
    assert _entries(ai_matches, match_id)[-1]["actor"] == "ai:greedy"


def test_an_ai_turn_raced_by_a_retry_of_its_own_job_appends_once(
    ai_matches, redis_client, ai_registry, monkeypatch
):
    """The job's submit reuses its load; the append's version check and idempotency key still stop a
    second append when another run of the same job appended while this one was thinking."""
    match_id = _create(ai_matches, "nim", [None, "greedy"])
    version = _human_plays_until_ai_turn(ai_matches, match_id).version
    choose, raced = jobs.choose_move, []

    def choose_while_a_retry_plays(*args, **kwargs):
        if not raced:  # the first call only (the retry's own call comes back here)
            raced.append(None)
            raced[0] = jobs.play_turn(_cold(redis_client, ai_registry), match_id, version, 1, "job-1")
        return choose(*args, **kwargs)

    monkeypatch.setattr(jobs, "choose_move", choose_while_a_retry_plays)
    result = jobs.play_turn(_cold(redis_client, ai_registry), match_id, version, 1, "job-1")

    assert raced[0]["status"] == "applied" and raced[0]["version"] == version + 1
    assert result["status"] == "applied" and result["duplicate"] and result["version"] == version + 1
    ai_entries = [e for e in _entries(ai_matches, match_id) if e.get("actor", "").startswith("ai:")]
    assert [e["version"] for e in ai_entries] == [version + 1]
