"""The built-in levels on small positions: legal, sensible, deterministic, within budget."""

import pytest

from gameroom.ai import choose_move
from gameroom.ai.levels import builtin_levels, time_budget
from gameroom.ai.mcts import DEFAULT_TIME_LIMIT, search, settings
from gameroom.core import decider
from gameroom.plugin_api import Rng
from gameroom.registry import build_registry
from gameroom.testing import dice, sealed

REGISTRY = build_registry(extra_plugins=[("dice", dice), ("sealed", sealed)])
NIM = REGISTRY.get("nim")


def nim_state(piles, turn=0):
    return {"piles": piles, "turn": turn, "max_take": None, "misere": False, "winner": None}


def opening(game, num_seats=2, seed="seed", options=None):
    options = game.load_options(options)
    return decider.fold(game, [decider.setup_entry(game, num_seats, options, seed) | {"version": 1}]).state


@pytest.mark.parametrize("level", ["random", "greedy", "mcts"])
def test_every_level_returns_one_of_the_legal_moves(level):
    state = nim_state([3, 4, 5])
    legal = NIM.legal_moves(state, 0)
    for i in range(5):
        move = choose_move(NIM, level, NIM.view(state, 0), 0, legal, Rng(i), num_seats=2, iterations=50)
        assert move in legal


@pytest.mark.parametrize("level", ["greedy", "mcts"])
@pytest.mark.parametrize("piles", [[3, 4, 5], [1, 2, 4], [6, 6, 1], [7]])
def test_greedy_and_mcts_find_the_winning_nim_move(level, piles):
    state = nim_state(piles)
    legal = NIM.legal_moves(state, 0)
    move = choose_move(
        NIM, level, NIM.view(state, 0), 0, legal, Rng(1), num_seats=2, iterations=2000, time_limit=0
    )
    piles = list(piles)
    piles[move["pile"]] -= move["count"]
    nim_sum = 0
    for p in piles:
        nim_sum ^= p
    assert nim_sum == 0, move


def test_mcts_wins_without_an_evaluation_by_playing_out():
    class Plain(type(NIM)):
        evaluate = type(NIM).__mro__[1].evaluate  # the contract's default: only the outcome counts

    game = Plain()
    assert settings(game)["rollout"] > 0
    state = nim_state([1, 2, 4])
    move = choose_move(
        game,
        "mcts",
        game.view(state, 0),
        0,
        game.legal_moves(state, 0),
        Rng(3),
        num_seats=2,
        iterations=3000,
        time_limit=0,
    )
    assert move == {"type": "take", "pile": 2, "count": 1}


@pytest.mark.parametrize("slug", ["nim", "dice-race", "sealed-cards"])
def test_mcts_with_an_iteration_budget_is_deterministic_given_the_rng(slug):
    game = REGISTRY.get(slug)
    state = opening(game)
    seat = game.active_seats(state)[0]
    view, legal = game.view(state, seat), game.legal_moves(state, seat)
    runs = [
        search(game, view, seat, legal, Rng(42), num_seats=2, iterations=300, time_limit=0) for _ in range(3)
    ]
    assert all(r[0] == runs[0][0] and r[1]["visits"] == runs[0][1]["visits"] for r in runs)
    assert runs[0][1]["iterations"] == 300


class FakeClock:
    """time.monotonic for the search: advances a fixed step per call, so budgets are
    checked without measuring wall-clock time (tests never do; bench/ does)."""

    def __init__(self, step):
        self.now, self.step = 1000.0, step

    def monotonic(self):
        self.now += self.step
        return self.now


@pytest.fixture
def fake_clock(monkeypatch):
    import gameroom.ai.mcts as mcts

    clock = FakeClock(0.01)
    monkeypatch.setattr(mcts.time, "monotonic", clock.monotonic)
    return clock


def test_the_time_limit_stops_the_search(fake_clock):
    state = nim_state([20, 20, 20, 20])
    legal = NIM.legal_moves(state, 0)
    _move, stats = search(
        NIM, NIM.view(state, 0), 0, legal, Rng(0), num_seats=2, iterations=10**9, time_limit=0.2
    )
    # One clock reading per iteration: the search stopped right after its deadline.
    assert 0.2 <= stats["seconds"] <= 0.2 + 3 * fake_clock.step
    assert 10 <= stats["iterations"] <= 21


def test_a_single_legal_move_is_played_without_search():
    state = nim_state([0, 1, 0])
    move, stats = search(NIM, NIM.view(state, 0), 0, NIM.legal_moves(state, 0), Rng(0), num_seats=2)
    assert move == {"type": "take", "pile": 1, "count": 1} and stats["iterations"] == 0


def test_game_attributes_tune_the_search():
    game = type(
        "Tuned",
        (type(NIM),),
        {
            "mcts_iterations": 7,
            "mcts_time_limit": 0.3,
            "mcts_rollout": 2,
            "mcts_exploration": 1.5,
            "mcts_minimax": 0.2,
        },
    )()
    assert settings(game) == {
        "iterations": 7,
        "time_limit": 0.3,
        "rollout": 2,
        "exploration": 1.5,
        "minimax": 0.2,
        "opponents": "tree",
        "final": "visits",
    }
    assert settings(REGISTRY.get("sealed-cards"))["opponents"] == "policy"  # a simultaneous game
    assert time_budget(game, "mcts") == 0.3
    assert settings(NIM, iterations=5, time_limit=0)["time_limit"] == 0


def test_a_rollout_policy_of_the_game_is_used():
    calls = []

    def rollout_policy(state, seat, legal, rng):
        calls.append(seat)
        return legal[0]

    game = type("WithPolicy", (type(NIM),), {"rollout_policy": staticmethod(rollout_policy)})()
    state = nim_state([3, 4, 5])
    choose_move(
        game,
        "mcts",
        game.view(state, 0),
        0,
        game.legal_moves(state, 0),
        Rng(0),
        num_seats=2,
        iterations=20,
        time_limit=0,
        rollout=3,
    )
    assert calls


def test_levels_need_sample_state_for_search():
    assert set(builtin_levels(NIM)) == {"random", "greedy", "mcts"}

    class NoSampling(type(NIM)):
        sample_state = type(NIM).__mro__[1].sample_state

    assert set(builtin_levels(NoSampling())) == {"random"}


@pytest.mark.parametrize("installed", list(build_registry()), ids=lambda g: g.slug)
def test_the_default_mcts_budget_is_capped_below_a_second(installed, fake_clock):
    """The default budget stops every decision at its time limit, under 1 s (wall-clock figures: bench/)."""
    game = installed.game
    assert settings(game)["time_limit"] < 1.0 and DEFAULT_TIME_LIMIT < 1.0
    fake_clock.step = 0.05  # as if each iteration took 50 ms: the cap, not the iteration count, must stop it
    state = opening(game, max(2, game.info.min_players))
    seat = game.active_seats(state)[0]
    legal = game.legal_moves(state, seat)
    _move, stats = search(
        game, game.view(state, seat), seat, legal, Rng(0), num_seats=max(2, game.info.min_players)
    )
    if len(legal) > 1:
        assert stats["seconds"] < 1.0, stats
        assert stats["iterations"] < settings(game)["iterations"]
