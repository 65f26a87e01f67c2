"""AI turns from the log: the outbox written by the append script, its reconciler, and crashes around them.

Real Redis (the session's), real RQ workers (forking work horses), and, for
the crash tests, real processes killed at the injected point or by SIGKILL.
"""

import json
import logging
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta

import pytest
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from gameroom.composition import matches_on
from gameroom.eventstore import keys
from gameroom.testing.polling import wait_until
from gameroom.workers import reconciler
from gameroom.workers.reconciler import reconcile
from gameroom.workers.worker import UPKEEP_INTERVAL

from .conftest import QUEUE
from .test_ai_jobs import _create, _entries, _human_plays_until_ai_turn


def _job_exists(redis_client, match_id, version, seat):
    return redis_client.exists(f"rq:job:{keys.ai_job_id(match_id, version, seat)}") == 1


@pytest.fixture
def lost_enqueues(redis_client, ai_registry):
    """The application layer with no AI scheduling at all: every enqueue after an append is lost."""
    return matches_on(redis_client, ai_registry)


def test_an_append_that_leaves_an_ai_seat_to_move_records_it_with_the_entry(ai_matches, redis_client, work):
    match_id = _create(ai_matches, "nim", [None, "greedy"])
    loaded = _human_plays_until_ai_turn(ai_matches, match_id)
    assert ai_matches.store.ai_turns.marker(match_id) == (loaded.version, [1])
    assert redis_client.zscore(keys.ai_pending(), match_id) is not None
    assert work()
    # The AI moved: its append cleared the marker (the human is to move) or set it anew.
    after = ai_matches.load(match_id)
    turn = ai_matches.store.ai_turns.marker(match_id)
    game = ai_matches.game(after.record)
    assert turn is None if 1 not in game.active_seats(after.folded.state) else turn == (after.version, [1])


def test_a_human_only_match_leaves_no_marker_and_no_index_entry(ai_matches, redis_client):
    match_id = _create(ai_matches, "nim", [None, None])
    _human_plays_until_ai_turn(ai_matches, match_id)
    assert ai_matches.store.ai_turns.marker(match_id) is None
    assert redis_client.zscore(keys.ai_pending(), match_id) is None


def test_the_reconciler_enqueues_a_turn_whose_enqueue_was_lost_and_it_is_played_once(
    lost_enqueues, ai_matches, redis_client, work
):
    match_id = _create(lost_enqueues, "nim", [None, "greedy"])
    loaded = _human_plays_until_ai_turn(lost_enqueues, match_id)
    assert not _job_exists(redis_client, match_id, loaded.version, 1)  # the enqueue was lost
    scheduler = ai_matches.after_append[0]
    assert reconcile(ai_matches, scheduler) == []  # just appended: left to the writer for FRESH seconds
    later = time.time() + reconciler.FRESH
    assert reconcile(ai_matches, scheduler, now=later) == [keys.ai_job_id(match_id, loaded.version, 1)]
    assert reconcile(ai_matches, scheduler, now=later) == []  # queued: not again
    assert work()
    ai_moves = [e for e in _entries(ai_matches, match_id)[loaded.version :] if e.get("seat") == 1]
    assert len(ai_moves) >= 1 and ai_moves[0]["version"] == loaded.version + 1
    # Played: another pass enqueues nothing for that version.
    assert keys.ai_job_id(match_id, loaded.version, 1) not in reconcile(
        ai_matches, scheduler, now=time.time() + reconciler.FRESH
    )


def test_the_reconciler_reenqueues_a_turn_whose_job_failed_for_good(lost_enqueues, ai_matches, redis_client):
    match_id = _create(lost_enqueues, "nim", [None, "greedy"])
    loaded = _human_plays_until_ai_turn(lost_enqueues, match_id)
    scheduler = ai_matches.after_append[0]
    [job_id] = reconcile(ai_matches, scheduler, now=time.time() + reconciler.FRESH)
    job = Job.fetch(job_id, connection=redis_client, serializer=JSONSerializer)
    job.ended_at = datetime.now(UTC)
    job.save()
    job.set_status(JobStatus.FAILED)  # e.g. its fallback failed too, during a Redis outage
    # not at once: RQ may still be handling it
    assert reconcile(ai_matches, scheduler, now=time.time() + reconciler.FRESH) == []
    later = time.time() + reconciler.FAILED_RETRY_AFTER + 1
    assert reconcile(ai_matches, scheduler, now=later) == [job_id]
    assert (
        Job.fetch(job_id, connection=redis_client, serializer=JSONSerializer).get_status() == JobStatus.QUEUED
    )
    assert loaded.version == ai_matches.store.version(match_id)


def test_index_members_without_an_ai_turn_are_dropped_only_after_the_grace(ai_matches, redis_client):
    match_id = _create(ai_matches, "nim", [None, None])
    ai_matches.store.ai_turns.note(match_id)  # an intent whose append never came
    scheduler = ai_matches.after_append[0]
    reconcile(ai_matches, scheduler)
    assert redis_client.zscore(keys.ai_pending(), match_id) is not None  # within the grace: kept
    reconcile(ai_matches, scheduler, now=time.time() + reconciler.GRACE + 1)
    assert redis_client.zscore(keys.ai_pending(), match_id) is None


def test_a_member_marked_again_while_it_is_being_dropped_is_kept(ai_matches, redis_client):
    match_id = _create(ai_matches, "nim", [None, None])
    redis_client.zadd(keys.ai_pending(), {match_id: 1000.0})
    score = redis_client.zscore(keys.ai_pending(), match_id)
    ai_matches.store.ai_turns.note(match_id)  # a writer's new intent, after the read
    assert not ai_matches.store.ai_turns.drop(match_id, score)
    assert redis_client.zscore(keys.ai_pending(), match_id) > score


def test_a_claim_that_starts_a_match_whose_ai_moves_first_marks_the_turn(ai_matches, redis_client):
    loaded, _ = ai_matches.create("nim", [None, {"name": "Bot", "ai": "greedy"}], seed="s")
    match_id = loaded.record.id
    claimed, _token = ai_matches.claim_seat(match_id, 0, "Ana")
    game = ai_matches.game(claimed.record)
    if 1 in game.active_seats(claimed.folded.state):
        assert ai_matches.store.ai_turns.marker(match_id) == (claimed.version, [1])
    else:
        assert ai_matches.store.ai_turns.marker(match_id) is None
    assert redis_client.zscore(keys.ai_pending(), match_id) is not None


# -- real processes -----------------------------------------------------------

_CRASHING_CLIENT = textwrap.dedent("""
    import json, os, sys
    from gameroom import create_app
    app = create_app({"redis_url": sys.argv[1], "queue": sys.argv[2], "ai_mode": "rq"})
    client = app.test_client()
    for seed in range(100):  # a deal where the human moves first
        created = client.post("/api/matches", json={"game": "nim", "seed": f"outbox-{seed}",
                              "seats": [{"name": "Ana"}, {"name": "Bot", "ai": "greedy"}]}).get_json()
        if created["match"]["active_seats"] == [0]:
            break
    match_id, token = created["match"]["id"], created["tokens"]["0"]
    auth = {"Authorization": "Bearer " + token, "Idempotency-Key": "k1"}
    legal = client.get(f"/api/matches/{match_id}/legal-moves", headers=auth).get_json()
    print(json.dumps({"match": match_id, "token": token, "move": legal["moves"][0],
                      "version": legal["version"]}), flush=True)
    os.environ["GAMEROOM_FAULT"] = "after-append"
    client.post(f"/api/matches/{match_id}/moves", json={"move": legal["moves"][0]}, headers=auth)
    print("survived", flush=True)
""")


@pytest.fixture
def worker_process(gameroom_workers, redis_server):
    def start():
        return gameroom_workers(
            {"GAMEROOM_REDIS_URL": redis_server.url, "GAMEROOM_QUEUE": QUEUE, "GAMEROOM_LOG_LEVEL": "INFO"}
        )

    return start


@pytest.mark.slow
def test_a_process_killed_between_append_and_enqueue_loses_no_ai_turn(
    redis_server, redis_client, ai_matches, worker_process, tmp_path
):
    crashed = subprocess.run(
        [sys.executable, "-c", _CRASHING_CLIENT, redis_server.url, QUEUE],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr  # died at the injected point
    assert "survived" not in crashed.stdout
    seen = json.loads(crashed.stdout.splitlines()[0])
    match_id, version = seen["match"], seen["version"] + 1
    # The human's move is in the log, and nothing enqueued the AI's turn.
    assert ai_matches.store.version(match_id) == version
    assert not _job_exists(redis_client, match_id, version, 1)
    assert ai_matches.store.ai_turns.marker(match_id) == (version, [1])

    worker = worker_process()  # a worker (re)starting after the crash: its reconciler finds the turn
    wait_until(lambda: ai_matches.store.version(match_id) > version, 30, "the AI's move")
    # The client never got its answer, so it retries with its key: the original result, nothing new.
    retried = ai_matches.submit(match_id, 0, seen["move"], idempotency_key="k1")
    assert retried.duplicate and retried.version == version
    time.sleep(2 * UPKEEP_INTERVAL + 1)  # further reconciliations must not play it again
    entries = _entries(ai_matches, match_id)
    assert [e["version"] for e in entries if e.get("seat") == 1 and e["version"] == version + 1] == [
        version + 1
    ]
    assert sum(1 for e in entries if e.get("seat") == 0 and e["kind"] == "move") == 1
    job = Job.fetch(keys.ai_job_id(match_id, version, 1), connection=redis_client, serializer=JSONSerializer)
    assert job.get_status() == JobStatus.FINISHED and job.return_value()["status"] == "applied"
    assert worker.poll() is None


def test_a_job_dequeued_but_never_started_goes_back_to_the_queue(
    ai_matches, queue, redis_client, monkeypatch
):
    """Redis (or the worker) died between RQ's dequeue and the job's start: seen in a 3 s blip."""
    from gameroom.workers import worker as worker_module

    match_id = _create(ai_matches, "nim", ["greedy", "greedy"])
    loaded = ai_matches.load(match_id)
    [job_id] = queue.job_ids
    redis_client.lmove(queue.key, queue.intermediate_queue_key, "LEFT", "RIGHT")  # what a dequeue does
    assert queue.job_ids == []
    worker_module.recover_dequeued(queue)  # first seen now: a live worker may be about to start it
    assert queue.job_ids == []
    # As of DEQUEUED_GRACE seconds later:
    monkeypatch.setattr(
        worker_module,
        "rq_now",
        lambda: (
            datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=worker_module.DEQUEUED_GRACE + 1)
        ),
    )
    worker_module.recover_dequeued(queue)
    assert queue.job_ids == [job_id] and job_id.endswith(f"-{loaded.version}-{job_id.rsplit('-', 1)[1]}")
    assert queue.intermediate_queue.get_job_ids() == []


def test_retries_left_overdue_by_a_dead_scheduler_are_queued(queue, redis_client):
    from gameroom.workers import worker as worker_module

    now = datetime.now(UTC)
    overdue = queue.enqueue_at(now - timedelta(seconds=worker_module.OVERDUE + 5), "time.sleep", 0)
    just_due = queue.enqueue_at(now - timedelta(seconds=1), "time.sleep", 0)  # RQ's scheduler's business
    worker_module.enqueue_overdue(queue)
    assert queue.job_ids == [overdue.id]
    assert queue.scheduled_job_registry.get_job_ids() == [just_due.id]
    assert overdue.get_status() == JobStatus.QUEUED


def test_the_overdue_warning_says_which_jobs_are_clock_timeouts_and_which_are_retries(
    queue, redis_client, caplog
):
    from gameroom.workers import worker as worker_module

    late = datetime.now(UTC) - timedelta(seconds=worker_module.OVERDUE + 5)
    timeout = queue.enqueue_at(late, "time.sleep", 0, job_id=keys.timeout_job_id("m", 3, 1))
    retry = queue.enqueue_at(late, "time.sleep", 0, job_id=keys.ai_job_id("m", 2, 0))
    with caplog.at_level("WARNING", logger="gameroom.workers.worker"):
        worker_module.enqueue_overdue(queue)
    assert sorted(queue.job_ids) == sorted([timeout.id, retry.id])
    [line] = [r.getMessage() for r in caplog.records if r.name == "gameroom.workers.worker"]
    assert "queued 2 scheduled jobs" in line and "clock timeouts: 1, retries: 1" in line
    assert "overdue retries" not in line


def test_a_job_rq_cannot_read_is_logged_and_left_alone_without_hiding_the_others(
    lost_enqueues, ai_matches, redis_client, caplog
):
    broken = _create(lost_enqueues, "nim", [None, "greedy"])
    broken_version = _human_plays_until_ai_turn(lost_enqueues, broken).version
    fine = _create(lost_enqueues, "nim", [None, "greedy"])
    fine_version = _human_plays_until_ai_turn(lost_enqueues, fine).version
    unreadable = keys.ai_job_id(broken, broken_version, 1)
    redis_client.hset(Job.key_for(unreadable), mapping={"created_at": "not a date", "data": "{"})
    scheduler = ai_matches.after_append[0]
    with caplog.at_level(logging.ERROR, logger="gameroom.workers.reconciler"):
        enqueued = reconcile(ai_matches, scheduler, now=time.time() + reconciler.FRESH)
    assert enqueued == [keys.ai_job_id(fine, fine_version, 1)]
    assert f"AI job {unreadable} cannot be read" in caplog.text
    assert redis_client.hget(Job.key_for(unreadable), "created_at") == b"not a date"  # left alone
