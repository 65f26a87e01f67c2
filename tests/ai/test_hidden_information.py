"""AI policies get no hidden information: only the seat's view, and nothing the view does not show.

Run over every installed game with hidden information, plus the test games
(dice race: none hidden; sealed cards: hidden hands, simultaneous play).
"""

import pytest

from gameroom.ai import choose_move
from gameroom.application import has_drafts
from gameroom.composition import matches_on
from gameroom.core import decider
from gameroom.plugin_api import Rng, hookimpl
from gameroom.registry import build_registry
from gameroom.testing import dice, sealed
from gameroom.workers import jobs

SPIED = []


class Spy:
    """An add-on plugin whose level ``spy`` records what it is given, then plays the first legal move."""

    @hookimpl
    def gameroom_ai_policies(self, game):
        def spy(game, view, seat, legal, rng, **budget):
            SPIED.append({"view": view, "seat": seat, "legal": legal, "budget": budget})
            return legal[0]

        return {"spy": spy}


REGISTRY = build_registry(extra_plugins=[("dice", dice), ("sealed", sealed), ("spy", Spy())])
GAMES = [g.slug for g in REGISTRY if g.game.info.hidden_information or g.slug == "dice-race"]
POLICY_LEVELS = ["random", "greedy", "mcts"]


def _advance(game, num_seats, seed, steps):
    """A position ``steps`` random moves into a match (still running)."""
    options = game.load_options({})
    folded = decider.fold(game, [decider.setup_entry(game, num_seats, options, seed) | {"version": 1}])
    rng = Rng(seed)
    for _ in range(steps):
        active = game.active_seats(folded.state)
        if not active:
            break
        seat = active[0]
        after = decider.decide(game, folded, seat, rng.choice(game.legal_moves(folded.state, seat)), seed)
        candidate = decider.apply_entry(game, folded, after | {"version": folded.version + 1})
        if game.outcome(candidate.state) is not None:
            break
        folded = candidate
    return folded.state


def test_hidden_information_games_are_covered():
    assert "sealed-cards" in GAMES


@pytest.mark.parametrize("slug", GAMES)
def test_the_job_gives_the_policy_exactly_the_seats_view_and_legal_moves(slug, redis_client):
    game = REGISTRY.get(slug)
    n = max(2, game.info.min_players)
    matches = matches_on(redis_client, REGISTRY)
    loaded, _ = matches.create(slug, [{"name": f"bot{i}", "ai": "spy"} for i in range(n)], seed="spy")
    state = loaded.folded.state
    seat = game.active_seats(state)[0]
    SPIED.clear()
    result = jobs.play_turn(matches, loaded.record.id, loaded.version, seat, "spy-job")
    assert result["status"] == "applied"
    # A game with sealed steps (they go to the seat's draft and append nothing) is played
    # through to the step that reaches the log, each step from the seat's own view then.
    assert len(SPIED) == 1 or has_drafts(game)
    folded = loaded.folded
    for seen in SPIED:
        assert seen["seat"] == seat
        assert seen["view"] == game.view(folded.state, seat)
        assert seen["legal"] == game.legal_moves(folded.state, seat)
        assert seen["view"] != folded.state or not game.info.hidden_information
        step = decider.decide(game, folded, seat, seen["legal"][0], loaded.record.seed)
        folded = decider.with_steps(game, folded, [step])
    assert result["version"] == loaded.version + 1


def test_a_sealed_cards_policy_never_sees_another_hand(redis_client):
    matches = matches_on(redis_client, REGISTRY)
    loaded, _ = matches.create(
        "sealed-cards", [{"name": "a", "ai": "spy"}, {"name": "b", "ai": "spy"}], seed="x"
    )
    matches.submit(loaded.record.id, 0, {"type": "play", "card": loaded.folded.state["hands"][0][0]})
    state = matches.load(loaded.record.id).folded.state
    SPIED.clear()
    jobs.play_turn(matches, loaded.record.id, 2, 1, "spy-job")
    [seen] = SPIED
    hidden = set(state["hands"][0]) | {state["down"][0]}
    shown = {c for c in seen["view"]["hand"]} | {c for r in seen["view"]["revealed"] for c in r}
    assert not hidden & shown
    assert "hands" not in seen["view"] and seen["view"]["down"] is None
    assert seen["view"]["played"] == [True, False]  # that seat 0 played, not what


@pytest.mark.parametrize("level", POLICY_LEVELS)
@pytest.mark.parametrize("slug", GAMES)
def test_the_same_move_whatever_the_hidden_cards(slug, level):
    """Two full states that differ in what the seat cannot see give the seat one view, and one move."""
    game = REGISTRY.get(slug)
    n = max(2, game.info.min_players)
    for steps in (0, 3):
        real = _advance(game, n, f"hidden-{steps}", steps)
        seat = game.active_seats(real)[0]
        view = game.view(real, seat)
        other = game.sample_state(view, seat, Rng(f"other-{steps}"))  # other hands, another deck order
        if game.info.hidden_information and steps == 0:
            assert other != real, "resampling should change the hidden cards"
        assert game.view(other, seat) == view
        legal = game.legal_moves(other, seat)
        assert legal == game.legal_moves(real, seat)
        moves = [
            choose_move(
                game,
                level,
                game.view(full, seat),
                seat,
                legal,
                Rng(7),
                num_seats=n,
                iterations=60,
                time_limit=0,
            )
            for full in (real, other)
        ]
        assert moves[0] == moves[1]
