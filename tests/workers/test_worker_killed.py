"""A worker killed mid-job: RQ retries the job and exactly one move is appended.

Real ``gameroom worker`` processes; the AI level ``slow`` (gameroom.testing.slow_ai)
thinks until killed the first time, and the worker processes find it through
an entry point of a test distribution put on PYTHONPATH.
"""

import functools
import os
import signal
import time
from pathlib import Path

import pytest
from rq.command import send_stop_job_command
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from gameroom.eventstore import keys
from gameroom.testing import slow_ai
from gameroom.testing.polling import wait_until
from gameroom.workers.worker import HEARTBEAT_GRACE, JOB_MONITORING_INTERVAL, UPKEEP_INTERVAL

from .conftest import QUEUE
from .test_ai_jobs import _create, _entries, _human_plays_until_ai_turn

#: The worker tests wait up to 30 s unless they say otherwise.
_wait = functools.partial(wait_until, timeout=30.0, what="condition")
#: By the shipped intervals, the longest a killed worker's job waits to be found: its last
#: heartbeat's time to live, then an upkeep pass of another worker. The tests assert the
#: order of what happens (recovered while the only live worker is busy, played once) and
#: this bound, not a stopwatch: a loaded machine takes longer to notice, not less correctly.
FOUND_WITHIN = JOB_MONITORING_INTERVAL + HEARTBEAT_GRACE + UPKEEP_INTERVAL


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]


def _slow_match(ai_matches, monkeypatch, slow):
    monkeypatch.setenv(slow_ai.ENV, str(slow.folder))
    match_id = _create(ai_matches, "nim", [None, "slow"])
    loaded = _human_plays_until_ai_turn(ai_matches, match_id)
    return match_id, loaded.version


def _ai_moves(ai_matches, match_id):
    return [e for e in _entries(ai_matches, match_id) if e.get("seat") == 1]


@pytest.mark.slow
def test_a_worker_killed_mid_job_leads_to_exactly_one_move_after_retry(
    ai_matches, redis_client, slow, monkeypatch
):
    match_id, version = _slow_match(ai_matches, monkeypatch, slow)
    worker = slow()
    horse = int(
        _wait(
            lambda: (slow.folder / "started").exists() and (slow.folder / "started").read_text(),
            what="the job to start",
        )
    )
    # The host dies: the worker and its work horse go at once, nobody reports the job.
    os.kill(worker.pid, signal.SIGKILL)
    os.kill(horse, signal.SIGKILL)
    worker.wait(10)
    _wait(lambda: not _alive(horse), what="the work horse to die")

    job_id = keys.ai_job_id(match_id, version, 1)
    job = Job.fetch(job_id, connection=redis_client, serializer=JSONSerializer)
    assert job.get_status() == JobStatus.STARTED
    assert ai_matches.store.version(match_id) == version
    # RQ finds abandoned jobs when a worker's maintenance cleans the started
    # registry after the job's heartbeat expired. Run that cleanup as of then.
    started = StartedJobRegistry(QUEUE, connection=redis_client, serializer=JSONSerializer)
    entries = redis_client.zrange(started.key, 0, -1, withscores=True)
    assert [e.decode().split(":")[0] for e, _ in entries] == [job_id]
    started.cleanup(timestamp=max(score for _, score in entries) + 1)
    job.refresh()
    assert job.get_status() == JobStatus.SCHEDULED and job.retries_left == 2

    slow()  # a fresh worker (its scheduler enqueues the retry when due) plays the move
    _wait(lambda: ai_matches.store.version(match_id) > version, what="the retried move")
    _wait(lambda: job.get_status() == JobStatus.FINISHED, what="the job to finish")
    assert len(_ai_moves(ai_matches, match_id)) == 1
    assert ai_matches.store.version(match_id) == version + 1
    assert len((slow.folder / "decisions").read_text().split()) == 1


@pytest.mark.slow
def test_a_killed_work_horse_is_retried_by_its_worker(ai_matches, redis_client, slow, monkeypatch):
    match_id, version = _slow_match(ai_matches, monkeypatch, slow)
    slow()
    horse = int(
        _wait(
            lambda: (slow.folder / "started").exists() and (slow.folder / "started").read_text(),
            what="the job to start",
        )
    )
    os.kill(horse, signal.SIGKILL)  # e.g. the OOM killer: the worker sees its horse die
    _wait(lambda: ai_matches.store.version(match_id) > version, what="the retried move")
    job = Job.fetch(keys.ai_job_id(match_id, version, 1), connection=redis_client, serializer=JSONSerializer)
    _wait(lambda: job.get_status() == JobStatus.FINISHED, what="the job to finish")
    job.refresh()
    assert job.retries_left == 2
    assert len(_ai_moves(ai_matches, match_id)) == 1
    assert ai_matches.store.version(match_id) == version + 1


def _kill_worker_and_horse(slow, worker):
    horse = int(
        _wait(
            lambda: (slow.folder / "started").exists() and (slow.folder / "started").read_text(),
            what="the job to start",
        )
    )
    os.kill(worker.pid, signal.SIGKILL)
    os.kill(horse, signal.SIGKILL)
    worker.wait(10)
    _wait(lambda: not _alive(horse), what="the work horse to die")
    return time.monotonic()


@pytest.mark.slow
def test_a_job_of_a_killed_worker_and_horse_is_played_within_30s_by_an_idle_worker(
    ai_matches, redis_client, slow, monkeypatch
):
    """Nobody reports the job; the other worker's upkeep finds it, idle as it is, on the shipped intervals."""
    match_id, version = _slow_match(ai_matches, monkeypatch, slow)
    doomed = slow()
    slow()  # idle: blocked in its dequeue, where RQ would run no maintenance for minutes
    killed = _kill_worker_and_horse(slow, doomed)
    _wait(lambda: ai_matches.store.version(match_id) > version, timeout=40, what="the retried move")
    print(f"killed -> move played by the idle worker: {time.monotonic() - killed:.1f}s")
    assert FOUND_WITHIN <= 30  # the heartbeat expires, then the next upkeep pass finds the job
    assert len(_ai_moves(ai_matches, match_id)) == 1 and ai_matches.store.version(match_id) == version + 1


@pytest.mark.slow
def test_a_job_of_a_killed_worker_and_horse_is_recovered_within_30s_while_the_other_worker_is_busy(
    ai_matches, redis_client, queue, slow, monkeypatch
):
    match_id, version = _slow_match(ai_matches, monkeypatch, slow)
    doomed = slow()
    _wait(lambda: (slow.folder / "started").exists(), what="the job to start")
    busy_job = queue.enqueue("time.sleep", 45, job_timeout=120)
    slow()  # takes the sleeping job: busy for 45 s
    _wait(lambda: busy_job.get_status() == JobStatus.STARTED, what="the other worker to be busy")
    killed = _kill_worker_and_horse(slow, doomed)
    job = Job.fetch(keys.ai_job_id(match_id, version, 1), connection=redis_client, serializer=JSONSerializer)
    _wait(lambda: job.get_status() == JobStatus.QUEUED, timeout=40, what="the job to be queued again")
    print(f"killed -> job queued again while the other worker is busy: {time.monotonic() - killed:.1f}s")
    assert FOUND_WITHIN <= 30
    assert busy_job.get_status() == JobStatus.STARTED  # recovered while the only live worker was busy
    job.refresh()
    assert job.retries_left == 2
    slow()
    _wait(lambda: ai_matches.store.version(match_id) > version, what="the retried move")
    assert len(_ai_moves(ai_matches, match_id)) == 1 and ai_matches.store.version(match_id) == version + 1
    send_stop_job_command(redis_client, busy_job.id)  # so that its worker stops at once afterwards
