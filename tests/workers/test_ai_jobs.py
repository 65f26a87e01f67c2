"""AI turns through the real queue: real RQ workers (forking work horses) on the real Redis."""

import pytest
from rq.job import Job
from rq.serializers import JSONSerializer

from gameroom.eventstore import keys
from gameroom.history import History
from gameroom.workers import jobs
from gameroom.workers.scheduler import JOB_FUNCTION, job_timeout
from gameroom.workers.worker import AIWorker

from .conftest import QUEUE


def _create(matches, game, levels, seed="s", options=None):
    seats = [{"name": f"P{i}", "ai": level} if level else {"name": f"P{i}"} for i, level in enumerate(levels)]
    loaded, tokens = matches.create(game, seats, options, seed=seed)
    return loaded.record.id


def _human_plays_until_ai_turn(matches, match_id, human=0):
    loaded = matches.load(match_id)
    game = matches.game(loaded.record)
    while human in game.active_seats(loaded.folded.state):
        move = game.legal_moves(loaded.folded.state, human)[0]
        loaded = matches.submit(match_id, human, move).loaded
    return loaded


def _entries(matches, match_id):
    return matches.store.read(match_id, 0, None)


def _job(redis_client, match_id, version, seat):
    return Job.fetch(
        keys.ai_job_id(match_id, version, seat), connection=redis_client, serializer=JSONSerializer
    )


@pytest.mark.parametrize(
    "game, level", [("nim", "greedy"), ("nim", "mcts"), ("dice-race", "random"), ("dice-race", "mcts")]
)
def test_an_ai_seats_move_is_appended_by_a_real_worker(ai_matches, work, game, level):
    match_id = _create(ai_matches, game, [None, level])
    before = _human_plays_until_ai_turn(ai_matches, match_id)
    assert work()
    entries = _entries(ai_matches, match_id)
    assert entries[before.version]["seat"] == 1
    assert entries[before.version]["actor"] == f"ai:{level}"
    assert ai_matches.store.version(match_id) == before.version + 1


@pytest.mark.parametrize(
    "game, levels",
    [
        ("nim", ["mcts", "greedy"]),
        ("dice-race", ["random", "greedy", "mcts"]),
        ("sealed-cards", ["mcts", "greedy", "random"]),
    ],
)
def test_a_match_with_all_seats_ai_plays_to_the_end(ai_matches, work, game, levels):
    match_id = _create(ai_matches, game, levels)
    for _ in range(200):
        if not work():
            break
    loaded = ai_matches.load(match_id)
    assert ai_matches.game(loaded.record).outcome(loaded.folded.state) is not None
    movers = {e["actor"] for e in _entries(ai_matches, match_id) if e["kind"] == "move"}
    assert movers == {f"ai:{level}" for level in levels}


def test_a_duplicate_enqueue_is_refused(ai_matches, queue, redis_client):
    match_id = _create(ai_matches, "nim", ["greedy", "greedy"])
    loaded = ai_matches.load(match_id)
    scheduler = ai_matches.after_append[0]
    assert scheduler(ai_matches, loaded, None) == []  # DuplicateJobError, swallowed
    assert scheduler(ai_matches, loaded, None) == []
    seat = ai_matches.game(loaded.record).active_seats(loaded.folded.state)[0]
    assert queue.job_ids == [keys.ai_job_id(match_id, loaded.version, seat)]


def test_jobs_carry_ids_only_with_a_timeout_sized_to_the_level(ai_matches, redis_client, ai_registry):
    match_id = _create(ai_matches, "nim", ["mcts", "random"], seed="first-is-0")
    loaded = ai_matches.load(match_id)
    game = ai_matches.game(loaded.record)
    seat = game.active_seats(loaded.folded.state)[0]
    job = _job(redis_client, match_id, loaded.version, seat)
    assert job.func_name == JOB_FUNCTION
    assert job.args == [match_id, loaded.version, seat]
    assert job.timeout == job_timeout(game, loaded.record.seats[seat].ai)
    assert job.retries_left == 3
    assert job_timeout(game, "mcts") < job_timeout(game, "slow", ai_registry.ai_policies(game)["slow"])


def test_an_undo_makes_a_queued_job_a_no_op(ai_matches, work, redis_client):
    match_id = _create(ai_matches, "nim", [None, "greedy"])
    loaded = _human_plays_until_ai_turn(ai_matches, match_id)
    queued = _job(redis_client, match_id, loaded.version, 1)
    status, _entry = History(ai_matches).undo(match_id, 0)
    assert status == "applied"
    after_undo = ai_matches.store.version(match_id)
    assert work()
    assert queued.return_value()["status"] == "stale"
    assert ai_matches.store.version(match_id) == after_undo
    assert not any(e.get("seat") == 1 for e in _entries(ai_matches, match_id))


def test_an_opponents_move_makes_a_queued_job_a_no_op(ai_matches, work, redis_client):
    # Sealed cards is simultaneous: at v1 both seats are active and the AI's job waits.
    match_id = _create(ai_matches, "sealed-cards", [None, "greedy"])
    queued = _job(redis_client, match_id, 1, 1)
    game = ai_matches.game(ai_matches.record(match_id))
    state = ai_matches.load(match_id).folded.state
    ai_matches.submit(match_id, 0, game.legal_moves(state, 0)[0])  # the human moves first: v2
    assert work()
    assert queued.return_value()["status"] == "stale"
    assert _job(redis_client, match_id, 2, 1).return_value()["status"] == "applied"
    first_round = _entries(ai_matches, match_id)[1:3]  # the human's card, then the AI's (which reveals)
    assert [e["seat"] for e in first_round] == [0, 1]
    assert first_round[1]["events"][-1]["type"] == "revealed"


def test_a_job_run_again_after_its_append_appends_nothing(ai_matches):
    match_id = _create(ai_matches, "nim", [None, "random"])
    loaded = _human_plays_until_ai_turn(ai_matches, match_id)
    job_id = keys.ai_job_id(match_id, loaded.version, 1)
    first = jobs.play_turn(ai_matches, match_id, loaded.version, 1, job_id)
    again = jobs.play_turn(ai_matches, match_id, loaded.version, 1, job_id)
    assert first["status"] == "applied" and again["status"] == "stale"
    assert ai_matches.store.version(match_id) == loaded.version + 1


def test_a_job_for_a_finished_match_does_nothing(ai_matches):
    match_id = _create(ai_matches, "nim", [None, None], options={"piles": [1]})
    loaded = ai_matches.load(match_id)
    seat = ai_matches.game(loaded.record).active_seats(loaded.folded.state)[0]
    done = ai_matches.submit(match_id, seat, {"type": "take", "pile": 0, "count": 1})
    result = jobs.play_turn(ai_matches, match_id, done.version, seat, "job")
    assert result["status"] in ("finished", "not-active")
    assert ai_matches.store.version(match_id) == done.version


def test_no_job_for_human_seats_or_finished_matches(ai_matches, queue):
    _create(ai_matches, "nim", [None, None])
    assert queue.count == 0


def test_an_unknown_level_falls_back_to_random(ai_matches, ai_registry, monkeypatch):
    match_id = _create(ai_matches, "nim", [None, "slow"])
    loaded = _human_plays_until_ai_turn(ai_matches, match_id)
    monkeypatch.setattr(ai_matches.registry, "ai_policies", lambda game: {})
    result = jobs.play_turn(ai_matches, match_id, loaded.version, 1, "job-x")
    assert result["status"] == "applied"


def test_the_preloading_worker_plays_ai_turns(ai_matches, ai_registry, redis_client):
    match_id = _create(ai_matches, "dice-race", [None, "greedy"])
    before = _human_plays_until_ai_turn(ai_matches, match_id)
    worker = AIWorker([QUEUE], connection=redis_client, registry=ai_registry)
    assert worker.maintenance_interval < 600
    assert worker.work(burst=True, logging_level="WARNING")
    assert _entries(ai_matches, match_id)[before.version]["actor"] == "ai:greedy"
