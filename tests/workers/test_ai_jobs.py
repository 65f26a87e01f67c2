"""AI turns through the real queue: real RQ workers (forking work horses) on the real Redis."""

import pytest
from rq.job import Job
from rq.serializers import JSONSerializer

from gameroom.application import History
from gameroom.eventstore import keys
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


def test_an_ai_seat_plays_its_sealed_look_at_the_stars_turn_as_one_entry(ai_matches, work):
    """LATS-H2 for AI seats: a real worker plays the AI's whole turn (its sealed steps from its
    own view, with its draft) and the log gets one entry per seat and turn, its confirm."""
    match_id = _create(ai_matches, "look-at-the-stars", [None, "random"], seed="ai-sealed")
    ai_matches.submit(match_id, 0, {"type": "skip_card"})
    ai_matches.submit(match_id, 0, {"type": "confirm_turn"})
    assert work()
    entries = _entries(ai_matches, match_id)
    ai_entries = [e for e in entries if e.get("seat") == 1]
    turns = [e for e in entries if e["kind"] == "move"]
    assert len(ai_entries) == 2  # turn 1 (the reveal) and turn 2 (the human has not confirmed yet)
    for entry in ai_entries:
        assert entry["actor"] == "ai:random" and entry["move"] == {"type": "confirm_turn"}
        assert entry["sealed"] and all(step["actor"] == "ai:random" for step in entry["sealed"])
    assert [e["seat"] for e in turns] == [0, 1, 1]
    loaded = ai_matches.load(match_id)
    assert loaded.folded.state["turn"] == 2 and loaded.folded.state["players"][1]["confirmed"]


def test_an_ai_job_goes_on_from_the_seats_draft_after_another_seats_entry(ai_matches):
    """A job that stopped mid-turn (another seat's confirm moved the match) leaves its sealed
    steps in the draft; the job of the new version goes on from them, once."""
    match_id = _create(ai_matches, "look-at-the-stars", [None, "random"], seed="ai-handover")
    skipped = ai_matches.submit(match_id, 1, {"type": "skip_card"}, actor="ai:random")
    assert skipped.sealed and skipped.version == 1
    confirmed = ai_matches.submit(match_id, 0, {"type": "skip_card"})
    confirmed = ai_matches.submit(match_id, 0, {"type": "confirm_turn"})
    assert confirmed.version == 2
    stale = jobs.play_turn(ai_matches, match_id, 1, 1, keys.ai_job_id(match_id, 1, 1))
    assert stale["status"] == "stale"
    job_id = keys.ai_job_id(match_id, 2, 1)
    result = jobs.play_turn(ai_matches, match_id, 2, 1, job_id)
    assert result["status"] == "applied" and result["version"] == 3
    [entry] = _entries(ai_matches, match_id)[2:]
    assert [step["move"] for step in entry["sealed"]] == [{"type": "skip_card"}]
    assert entry["move"] == {"type": "confirm_turn"}
    assert jobs.play_turn(ai_matches, match_id, 2, 1, job_id)["status"] == "stale"


def test_an_ai_job_chooses_again_when_an_earlier_job_adds_a_sealed_step_under_it(ai_matches, monkeypatch):
    """Two jobs of one AI seat may overlap when another seat's confirm moves the match: the
    earlier one's last sealed step can land between the later one's look and its move. The
    later job then chooses again from the draft as it now is, and the turn is played."""
    match_id = _create(ai_matches, "look-at-the-stars", [None, "random"], seed="ai-race")
    ai_matches.submit(match_id, 0, {"type": "skip_card"})
    ai_matches.submit(match_id, 0, {"type": "confirm_turn"})  # v2: the job of v2 plays seat 1
    chosen = []
    real = jobs.choose_move

    def racing(game, level, view, seat, legal, rng, **kw):
        move = real(game, level, view, seat, legal, rng, **kw)
        if not chosen:  # the earlier job's step lands now: the card is skipped under this job
            ai_matches.submit(match_id, 1, {"type": "skip_card"}, actor="ai:random")
            move = next(m for m in legal if m["type"] == "place_card")
        chosen.append(move)
        return move

    monkeypatch.setattr(jobs, "choose_move", racing)
    result = jobs.play_turn(ai_matches, match_id, 2, 1, keys.ai_job_id(match_id, 2, 1))
    assert result["status"] == "applied" and result["version"] == 3
    assert chosen[1:] == [{"type": "confirm_turn"}]  # chosen again, from the draft with the skip
    [entry] = _entries(ai_matches, match_id)[2:]
    assert [step["move"] for step in entry["sealed"]] == [{"type": "skip_card"}]
