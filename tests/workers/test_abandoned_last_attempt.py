"""A job abandoned by a dead worker on its last attempt: the upkeep thread plays the fallback move.

RQ's cleanup of the started registry runs the job's failure callback under a
death penalty; the worker's upkeep runs that cleanup in a thread of its own,
where RQ's default (``SIGALRM``) cannot be armed. Real Redis, real RQ
registries, and (slow test) real ``gameroom worker`` processes killed with SIGKILL.
"""

import functools
import logging
import threading
import time

import pytest
from rq.job import JobStatus
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from gameroom.testing.polling import wait_until
from gameroom.workers import worker as worker_module

from .conftest import QUEUE
from .test_ai_jobs import _create, _entries, _human_plays_until_ai_turn, _job
from .test_worker_killed import _kill_worker_and_horse, _slow_match

_wait = functools.partial(wait_until, timeout=40.0, what="condition")


def _abandon(redis_client, job, attempts_left: int) -> None:
    """``job`` as a worker that died mid-run leaves it: started, its heartbeat expired a second ago."""
    job.retries_left = attempts_left
    job.save()
    job.set_status(JobStatus.STARTED)
    started = StartedJobRegistry(QUEUE, connection=redis_client, serializer=JSONSerializer)
    redis_client.zadd(started.key, {f"{job.id}:dead-worker-execution": time.time() - 1})


def _in_a_thread(function, *args) -> None:
    """Run ``function(*args)`` in a thread other than the main one, as the worker's upkeep does."""
    errors = []

    def run():
        try:
            function(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            errors.append(exc)

    thread = threading.Thread(target=run, name="gameroom-upkeep")
    thread.start()
    thread.join(60)
    assert not thread.is_alive() and errors == []


def test_the_upkeep_threads_recovery_of_a_last_attempt_plays_the_fallback_without_a_traceback(
    ai_matches, queue, redis_client, caplog
):
    match_id = _create(ai_matches, "nim", [None, "greedy"])
    before = _human_plays_until_ai_turn(ai_matches, match_id)
    job = _job(redis_client, match_id, before.version, 1)
    _abandon(redis_client, job, attempts_left=0)

    with caplog.at_level(logging.INFO):
        _in_a_thread(worker_module.recover_abandoned, queue)

    [move] = [e for e in _entries(ai_matches, match_id)[before.version :] if e["kind"] == "move"]
    assert move["seat"] == 1 and move["actor"] == "ai:greedy:fallback"
    assert move["version"] == before.version + 1
    assert job.get_status() == JobStatus.FAILED
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert tracebacks == [], [r.getMessage() for r in tracebacks]
    assert not [r for r in caplog.records if r.name.startswith("rq") and r.levelno >= logging.ERROR]
    [fell_back] = [r for r in caplog.records if "played a fallback move" in r.getMessage()]
    assert "AbandonedJobError" in fell_back.getMessage()


def test_a_recovered_job_with_attempts_left_is_retried_and_plays_no_fallback(
    ai_matches, queue, redis_client, caplog
):
    match_id = _create(ai_matches, "nim", [None, "greedy"])
    before = _human_plays_until_ai_turn(ai_matches, match_id)
    job = _job(redis_client, match_id, before.version, 1)
    _abandon(redis_client, job, attempts_left=2)

    with caplog.at_level(logging.INFO):
        _in_a_thread(worker_module.recover_abandoned, queue)

    assert ai_matches.store.version(match_id) == before.version  # the retry plays it, not a fallback
    job.refresh()
    assert job.get_status() == JobStatus.SCHEDULED and job.retries_left == 1
    assert [r for r in caplog.records if r.exc_info] == []


def test_a_callback_that_outlives_its_timeout_in_another_thread_is_interrupted():
    outcome = []

    def callback():
        try:
            with worker_module.ThreadDeathPenalty(1):
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    time.sleep(0.01)
            outcome.append("ran to the end")
        except worker_module.CallbackTimeout as exc:
            outcome.append(str(exc))

    _in_a_thread(callback)
    assert outcome == ["the failure callback exceeded its timeout"]


def test_a_callback_done_in_time_is_not_interrupted_afterwards():
    outcome = []

    def callback():
        with worker_module.ThreadDeathPenalty(1):
            outcome.append("done")
        deadline = time.monotonic() + 2.5  # the timer would have fired meanwhile
        while time.monotonic() < deadline:
            time.sleep(0.01)
        outcome.append("still running")

    _in_a_thread(callback)
    assert outcome == ["done", "still running"]


@pytest.mark.slow
def test_a_killed_workers_job_on_its_last_attempt_is_played_by_the_fallback_of_an_idle_workers_upkeep(
    ai_matches, redis_client, slow, monkeypatch, tmp_path
):
    """Shipped intervals: the idle worker's upkeep finds the job once its heartbeat expired."""
    match_id, version = _slow_match(ai_matches, monkeypatch, slow)
    doomed = slow()
    _wait(lambda: (slow.folder / "started").exists(), what="the job to start")
    slow()  # idle; started once the doomed worker holds the job, so that it cannot take it first
    job = _job(redis_client, match_id, version, 1)
    job.retries_left = 0  # its last attempt
    job.save()
    _kill_worker_and_horse(slow, doomed)

    _wait(lambda: ai_matches.store.version(match_id) > version, what="the fallback move")
    [move] = [e for e in _entries(ai_matches, match_id)[version:] if e["kind"] == "move"]
    assert move["seat"] == 1 and move["actor"] == "ai:slow:fallback"
    # the upkeep marks the job failed after its failure callback (the fallback) returned
    _wait(lambda: job.get_status() == JobStatus.FAILED, what="the job to be marked failed")
    logs = "\n".join(p.read_text() for p in sorted(tmp_path.glob("worker*.log")))
    assert "played a fallback move" in logs
    assert "Traceback" not in logs and "error while executing failure callback" not in logs
