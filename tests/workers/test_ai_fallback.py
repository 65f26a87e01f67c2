"""An AI job that fails every attempt: the seat plays a random fallback move and the match goes on.

Real RQ workers (forking work horses) on the real Redis; the test-only levels
``broken`` (raises) and ``killed`` (its work horse dies) come from
gameroom.testing.broken_ai. Retries are immediate here (``retry_at_once``), so
one burst of a worker runs every attempt.
"""

from rq.job import JobStatus

from gameroom.eventstore import keys
from gameroom.workers import jobs
from gameroom.workers.worker import AIWorker

from .conftest import QUEUE
from .test_ai_jobs import _create, _entries, _human_plays_until_ai_turn, _job


def _moves_of(matches, match_id, seat, after):
    return [e for e in _entries(matches, match_id)[after:] if e["kind"] == "move" and e["seat"] == seat]


def _fallback_lines(error_log, match_id, version):
    return [
        line
        for line in error_log()
        if line.startswith("ERROR") and match_id in line and f"at v{version} " in line and "seat 1" in line
    ]


def _assert_fell_back(matches, redis_client, match_id, before, legal, level):
    """Exactly one move of seat 1 at ``before``'s version: a legal one, by the fallback; the job failed for good."""
    moves = _moves_of(matches, match_id, 1, before.version)
    assert len(moves) == 1
    assert moves[0]["version"] == before.version + 1
    assert moves[0]["actor"] == f"ai:{level}:fallback"
    assert moves[0]["move"] in legal
    assert matches.store.version(match_id) == before.version + 1
    job = _job(redis_client, match_id, before.version, 1)
    assert job.get_status() == JobStatus.FAILED
    assert job.retries_left == 0


def test_a_policy_that_always_raises_plays_a_random_fallback_after_its_retries(
    retry_at_once, work, redis_client, error_log
):
    matches = retry_at_once
    match_id = _create(matches, "nim", [None, "broken"])
    before = _human_plays_until_ai_turn(matches, match_id)
    game = matches.game(before.record)
    legal = game.legal_moves(before.folded.state, 1)

    assert work()  # a plain RQ worker: the job's on_failure callback does it
    _assert_fell_back(matches, redis_client, match_id, before, legal, "broken")
    [line] = _fallback_lines(error_log, match_id, before.version)
    assert "'broken'" in line and "BrokenPolicy" in line and "played a fallback move" in line

    # The match goes on: the human moves, the AI seat gets a new job, which falls back again.
    again = _human_plays_until_ai_turn(matches, match_id)
    assert game.outcome(again.folded.state) is None
    assert _job(redis_client, match_id, again.version, 1).get_status() == JobStatus.QUEUED
    assert work()
    assert len(_moves_of(matches, match_id, 1, again.version)) == 1
    assert len(_fallback_lines(error_log, match_id, again.version)) == 1


def test_a_work_horse_killed_on_every_attempt_plays_a_random_fallback(
    retry_at_once, ai_registry, redis_client, error_log
):
    matches = retry_at_once
    match_id = _create(matches, "nim", [None, "killed"])
    before = _human_plays_until_ai_turn(matches, match_id)
    legal = matches.game(before.record).legal_moves(before.folded.state, 1)

    # RQ calls no on_failure callback for a killed horse: the AI worker's handler does it.
    worker = AIWorker([QUEUE], connection=redis_client, registry=ai_registry)
    assert worker.work(burst=True, logging_level="ERROR")
    _assert_fell_back(matches, redis_client, match_id, before, legal, "killed")
    [line] = _fallback_lines(error_log, match_id, before.version)
    assert (
        "'killed'" in line
        and "work horse" in line
        and "signal 9" in line
        and "played a fallback move" in line
    )


def test_a_fallback_that_fails_too_is_logged_and_the_worker_goes_on(
    retry_at_once, work, redis_client, error_log
):
    matches = retry_at_once
    gone = _create(matches, "nim", [None, "broken"])
    before = _human_plays_until_ai_turn(matches, gone)
    redis_client.delete(keys.meta(gone))  # the match record is gone: every attempt and the fallback fail
    other = _create(matches, "nim", [None, "random"])
    other_before = _human_plays_until_ai_turn(matches, other)

    assert work()
    assert matches.store.version(gone) == before.version
    assert _job(redis_client, gone, before.version, 1).get_status() == JobStatus.FAILED
    [line] = _fallback_lines(error_log, gone, before.version)
    assert "fallback move failed too" in line and "giving up" in line
    # The same worker went on to the next job.
    assert _entries(matches, other)[other_before.version]["actor"] == "ai:random"


def test_the_fallback_and_the_original_job_never_both_append(ai_matches):
    match_id = _create(ai_matches, "nim", [None, "random"])
    first = _human_plays_until_ai_turn(ai_matches, match_id)
    job_id = keys.ai_job_id(match_id, first.version, 1)
    assert (
        jobs.play_turn(ai_matches, match_id, first.version, 1, job_id, fallback=True)["status"] == "applied"
    )
    assert jobs.play_turn(ai_matches, match_id, first.version, 1, job_id)["status"] == "stale"
    assert jobs.play_turn(ai_matches, match_id, first.version, 1, job_id, fallback=True)["status"] == "stale"

    second = _human_plays_until_ai_turn(ai_matches, match_id)
    job_id = keys.ai_job_id(match_id, second.version, 1)
    assert jobs.play_turn(ai_matches, match_id, second.version, 1, job_id)["status"] == "applied"
    assert jobs.play_turn(ai_matches, match_id, second.version, 1, job_id, fallback=True)["status"] == "stale"

    moves = _moves_of(ai_matches, match_id, 1, 0)
    assert [m["version"] for m in moves] == [first.version + 1, second.version + 1]
    assert [m["actor"] for m in moves] == ["ai:random:fallback", "ai:random"]
