"""Clock deadlines from the log: the marker written by the append script, its reconciler, and crashes.

Real Redis (the session's), real RQ jobs and workers, and, for the crash
test, a real process killed at the injected point and real ``gameroom
worker`` processes on the shipped intervals. The matches are Nim with both
seats human, so every running clock is a person's.
"""

import json
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime

import pytest
from rq.job import Job, JobStatus
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from gameroom.composition import matches_on
from gameroom.core import lifecycle
from gameroom.eventstore import keys
from gameroom.testing.polling import wait_until
from gameroom.workers import reconciler
from gameroom.workers.reconciler import reconcile_clocks

from .conftest import QUEUE


@pytest.fixture
def lost_schedules(redis_client, ai_registry):
    """The application layer with no scheduling at all: every timeout job after an append is lost."""
    return matches_on(redis_client, ai_registry)


@pytest.fixture
def timeouts(ai_matches):
    return next(hook for hook in ai_matches.after_append if hook.__class__.__name__ == "TimeoutScheduler")


def _create(matches, per_move=30.0, piles=(3, 3), policy="forfeit", seats=None):
    settings = {"clock": {"per_move": per_move}, "timeout": {"action": policy, "level": "random"}}
    seats = seats or [{"name": "Ana"}, {"name": "Bo"}]
    loaded, _tokens = matches.create("nim", seats, {"piles": list(piles)}, settings=settings)
    return loaded.record.id, matches.game(loaded.record).active_seats(loaded.folded.state)[0]


def _deadline(matches, match_id, seat):
    return lifecycle.deadline(matches.load(match_id).folded.lifecycle, seat)


def _job(redis_client, match_id, version, seat):
    return Job.fetch(
        keys.timeout_job_id(match_id, version, seat), connection=redis_client, serializer=JSONSerializer
    )


def test_every_append_records_the_running_clocks_of_people_with_the_entry(ai_matches, redis_client):
    match_id, first = _create(ai_matches)
    assert ai_matches.store.clocks.marker(match_id) == (1, {first: _deadline(ai_matches, match_id, first)})
    assert redis_client.zscore(keys.clock_pending(), match_id) is not None
    ai_matches.submit(match_id, first, {"type": "take", "pile": 0, "count": 1})
    other = 1 - first
    assert ai_matches.store.clocks.marker(match_id) == (2, {other: _deadline(ai_matches, match_id, other)})
    ai_matches.submit(match_id, other, {"type": "take", "pile": 0, "count": 2})
    ai_matches.submit(match_id, first, {"type": "take", "pile": 1, "count": 3})  # the last stone: over
    assert ai_matches.store.clocks.marker(match_id) is None


def test_an_ai_seat_and_a_match_without_clock_leave_no_clock_marker(ai_matches, redis_client):
    bot, _first = _create(
        ai_matches, seats=[{"name": "Ana", "ai": "greedy"}, {"name": "Bot", "ai": "greedy"}]
    )
    plain, _ = ai_matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}])
    for match_id in (bot, plain.record.id):
        assert ai_matches.store.clocks.marker(match_id) is None
        assert redis_client.zscore(keys.clock_pending(), match_id) is None


def test_the_reconciler_schedules_a_lost_timeout_once_its_deadline_is_near(
    lost_schedules, ai_matches, timeouts, redis_client
):
    match_id, first = _create(lost_schedules, per_move=60.0)
    due = _deadline(lost_schedules, match_id, first)
    jid = keys.timeout_job_id(match_id, 1, first)
    assert not redis_client.exists(Job.key_for(jid))  # the schedule was lost
    assert reconcile_clocks(ai_matches, timeouts) == []  # just appended: left to the writer for FRESH seconds
    later = time.time() + reconciler.FRESH
    assert reconcile_clocks(ai_matches, timeouts, now=later) == []  # a minute away: not yet looked at
    near = due - reconciler.LOOKAHEAD + 1
    assert reconcile_clocks(ai_matches, timeouts, now=near) == [jid]
    scheduled = ScheduledJobRegistry(QUEUE, connection=redis_client, serializer=JSONSerializer)
    assert scheduled.get_job_ids() == [jid]
    assert scheduled.get_scheduled_time(jid) == datetime.fromtimestamp(int(due), tz=UTC)
    assert reconcile_clocks(ai_matches, timeouts, now=near) == []  # scheduled: not again


def test_a_lost_timeout_already_due_is_queued_at_once_and_applied_exactly_once(
    lost_schedules, ai_matches, timeouts, queue, work
):
    match_id, first = _create(lost_schedules, per_move=1.0)
    wait_until(lambda: time.time() > _deadline(lost_schedules, match_id, first), 10, "the deadline")
    late = time.time() + reconciler.FRESH
    [jid] = reconcile_clocks(ai_matches, timeouts, now=late)
    assert queue.job_ids == [jid]  # not through RQ's scheduler, which may be down
    assert reconcile_clocks(ai_matches, timeouts, now=late) == []
    assert work()
    log = ai_matches.store.read(match_id)
    assert [(e["kind"], e.get("action"), e.get("seat")) for e in log] == [
        ("setup", None, None),
        ("lifecycle", "timeout", first),
    ]
    assert ai_matches.store.clocks.marker(match_id) is None  # over: nothing more to watch
    assert reconcile_clocks(ai_matches, timeouts, now=time.time() + reconciler.FRESH) == []


def test_a_move_in_time_leaves_the_lost_timeout_of_its_version_nothing_to_do(
    lost_schedules, ai_matches, timeouts, redis_client
):
    match_id, first = _create(lost_schedules, per_move=30.0)
    lost_schedules.submit(match_id, first, {"type": "take", "pile": 0, "count": 1})
    due = _deadline(lost_schedules, match_id, 1 - first)
    # Only the current version's clock is looked at: the moved seat's old deadline is gone.
    assert reconcile_clocks(ai_matches, timeouts, now=due) == [keys.timeout_job_id(match_id, 2, 1 - first)]


def test_a_timeout_job_that_ended_without_moving_the_match_is_run_again_later(
    lost_schedules, ai_matches, timeouts, redis_client, queue
):
    match_id, first = _create(lost_schedules, per_move=1.0)
    wait_until(lambda: time.time() > _deadline(lost_schedules, match_id, first), 10, "the deadline")
    [jid] = reconcile_clocks(ai_matches, timeouts, now=time.time() + reconciler.FRESH)
    job = _job(redis_client, match_id, 1, first)
    job.ended_at = datetime.now(UTC)
    job.save()
    job.set_status(JobStatus.FAILED)  # e.g. every attempt met a Redis outage
    redis_client.lrem(queue.key, 0, jid)  # (as RQ leaves a failed job: off the queue)
    soon = time.time() + reconciler.FRESH
    assert reconcile_clocks(ai_matches, timeouts, now=soon) == []  # RQ may still be handling it
    later = time.time() + reconciler.RERUN_AFTER + 1
    assert reconcile_clocks(ai_matches, timeouts, now=later) == [jid]
    assert queue.job_ids == [jid] and _job(redis_client, match_id, 1, first).get_status() == JobStatus.QUEUED


def test_members_without_a_clock_marker_are_dropped_only_after_the_grace(ai_matches, timeouts, redis_client):
    match_id, first = _create(ai_matches, piles=(1,))
    ai_matches.submit(match_id, first, {"type": "take", "pile": 0, "count": 1})  # over: the marker goes
    assert ai_matches.store.clocks.marker(match_id) is None
    reconcile_clocks(ai_matches, timeouts)
    assert redis_client.zscore(keys.clock_pending(), match_id) is not None  # within the grace: kept
    reconcile_clocks(ai_matches, timeouts, now=time.time() + reconciler.GRACE + 1)
    assert redis_client.zscore(keys.clock_pending(), match_id) is None


# -- real processes -----------------------------------------------------------

_CRASHING_CLIENT = textwrap.dedent("""
    import json, os, sys
    from gameroom import create_app
    app = create_app({"redis_url": sys.argv[1], "queue": sys.argv[2], "ai_mode": "rq"})
    client = app.test_client()
    created = client.post("/api/matches", json={"game": "nim", "options": {"piles": [3, 3]},
                          "seats": [{"name": "Ana"}, {"name": "Bo"}],
                          "clock": {"per_move": 4}, "timeout": {"action": "forfeit"}}).get_json()
    match_id = created["match"]["id"]
    first = created["match"]["active_seats"][0]
    auth = {"Authorization": "Bearer " + created["tokens"][str(first)]}
    print(json.dumps({"match": match_id, "first": first}), flush=True)
    os.environ["GAMEROOM_FAULT"] = "after-append"
    client.post(f"/api/matches/{match_id}/moves", json={"move": {"type": "take", "pile": 0, "count": 1}},
                headers=auth)
    print("survived", flush=True)
""")


@pytest.mark.slow
def test_a_process_killed_between_append_and_schedule_loses_no_timeout(
    redis_server, redis_client, ai_matches, gameroom_workers, tmp_path
):
    """The QA repro, on the shipped intervals: the move is in the log, its process died before it
    scheduled the other seat's timeout; workers started afterwards apply it, exactly once."""
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
    match_id, silent = seen["match"], 1 - seen["first"]
    assert ai_matches.store.version(match_id) == 2
    assert not redis_client.exists(Job.key_for(keys.timeout_job_id(match_id, 2, silent)))  # never scheduled
    due = _deadline(ai_matches, match_id, silent)
    assert ai_matches.store.clocks.marker(match_id) == (2, {silent: due})

    env = {"GAMEROOM_REDIS_URL": redis_server.url, "GAMEROOM_QUEUE": QUEUE, "GAMEROOM_LOG_LEVEL": "INFO"}
    workers = [gameroom_workers(env), gameroom_workers(env)]  # two upkeeps reconcile at once
    wait_until(lambda: ai_matches.store.version(match_id) > 2, 60, "the timeout of the silent seat")
    time.sleep(2 * reconciler.LOOKAHEAD)  # further passes must not apply it again
    log = ai_matches.store.read(match_id)
    assert [(e["kind"], e.get("action"), e.get("seat")) for e in log] == [
        ("setup", None, None),
        ("move", None, seen["first"]),
        ("lifecycle", "timeout", silent),
    ]
    assert due <= log[2]["time"] <= due + 30  # never early; late by at most about an upkeep interval
    assert all(w.poll() is None for w in workers)


_DYING_CLAIM = textwrap.dedent("""
    import json, os, sys
    from gameroom import create_app
    app = create_app({"redis_url": sys.argv[1], "queue": sys.argv[2], "ai_mode": "rq"})
    client = app.test_client()
    created = client.post("/api/matches", json={"game": "nim", "options": {"piles": [3, 3]},
                          "seats": [{"name": "Ana"}, None],
                          "clock": {"per_move": 30}, "timeout": {"action": "forfeit"}}).get_json()
    match_id = created["match"]["id"]
    print(json.dumps({"match": match_id}), flush=True)
    os.environ["GAMEROOM_FAULT"] = "after-claim"
    client.post(f"/api/matches/{match_id}/seats/1", json={"name": "Bo"})
    print("survived", flush=True)
""")


@pytest.fixture
def claim_died(redis_server, ai_matches, tmp_path):
    """A clocked match whose last seat was claimed by a process killed before it appended ``start``."""
    died = subprocess.run(
        [sys.executable, "-c", _DYING_CLAIM, redis_server.url, QUEUE],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert died.returncode == -signal.SIGKILL, died.stderr  # died at the injected point
    assert "survived" not in died.stdout
    match_id = json.loads(died.stdout.splitlines()[0])["match"]
    loaded = ai_matches.load(match_id)
    assert loaded.record.full and not loaded.folded.lifecycle["started"]
    assert ai_matches.store.version(match_id) == 1 and ai_matches.store.clocks.marker(match_id) is None
    return match_id


def _kinds(matches, match_id):
    return [(e["kind"], e.get("action")) for e in matches.store.read(match_id)]


def test_the_claim_of_a_clocked_match_marks_it_before_it_starts_the_clocks(claim_died, redis_client):
    assert redis_client.zscore(keys.clock_pending(), claim_died) is not None  # the claim's intent


def test_clocks_a_dead_claim_never_started_are_started_by_the_reconciler_after_the_grace(
    claim_died, ai_matches, timeouts, redis_client
):
    assert reconcile_clocks(ai_matches, timeouts) == []  # within the grace: the claimant may be on its way
    assert _kinds(ai_matches, claim_died) == [("setup", None)]
    reconcile_clocks(ai_matches, timeouts, now=time.time() + reconciler.GRACE + 1)
    assert _kinds(ai_matches, claim_died) == [("setup", None), ("lifecycle", "start")]
    loaded = ai_matches.load(claim_died)
    [first] = ai_matches.game(loaded.record).active_seats(loaded.folded.state)
    assert ai_matches.store.clocks.marker(claim_died) == (
        2,
        {first: _deadline(ai_matches, claim_died, first)},
    )
    assert redis_client.zscore(keys.clock_pending(), claim_died) is not None  # kept: its clock runs
    reconcile_clocks(ai_matches, timeouts, now=time.time() + reconciler.GRACE + 1)
    assert ai_matches.store.version(claim_died) == 2  # started once


def test_clocks_a_dead_claim_never_started_are_started_by_the_first_move(claim_died, ai_matches):
    loaded = ai_matches.load(claim_died)
    [first] = ai_matches.game(loaded.record).active_seats(loaded.folded.state)
    ai_matches.submit(claim_died, first, {"type": "take", "pile": 0, "count": 1})
    assert _kinds(ai_matches, claim_died) == [("setup", None), ("lifecycle", "start"), ("move", None)]
    other = 1 - first
    assert ai_matches.store.clocks.marker(claim_died) == (
        3,
        {other: _deadline(ai_matches, claim_died, other)},
    )


def test_a_match_with_open_seats_and_no_clock_running_is_dropped_from_the_index_after_the_grace(
    ai_matches, timeouts, redis_client
):
    loaded, _tokens = ai_matches.create(
        "nim", [{"name": "Ana"}, None], {"piles": [3]}, settings={"clock": {"per_move": 30}}
    )
    match_id = loaded.record.id
    ai_matches.store.clocks.note(match_id)  # a claim's intent, its claim refused
    reconcile_clocks(ai_matches, timeouts, now=time.time() + reconciler.GRACE + 1)
    assert redis_client.zscore(keys.clock_pending(), match_id) is None
    assert _kinds(ai_matches, match_id) == [("setup", None)]  # not started: a seat is open
