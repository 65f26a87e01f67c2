"""SAR-B12.2 / B12.4 and spec section 12: ``turn_limit`` null (the default) is no limit.

Rules version 1 ended such matches after 100 full rounds ("safeguard"); version 2
follows the spec, and matches begun under version 1 keep their cap.
"""

import pytest
from marshmallow import ValidationError

from gameroom.core import decider
from gameroom.plugins.stars_are_right import StarsAreRight
from gameroom.plugins.stars_are_right.content import CONTENT
from gameroom.plugins.stars_are_right.decide import STEPS_PER_TURN
from gameroom.plugins.stars_are_right.scenario import position, step
from gameroom.plugins.stars_are_right.scoring import vp
from gameroom.testing.conformance import play_random_match

GAME = StarsAreRight()
HANDS = [[1, 2, 3, 5, 6], [7, 8, 9, 10, 11]]


def last_turn_of_round(rounds: int, options: dict, n: int = 2) -> dict:
    """Seat 1 (the last in seat order) about to end the ``rounds``-th full round."""
    return position(
        n,
        hands=HANDS,
        tables=[[34], [35, 36]],
        phase="discard",
        active=1,
        options=options,
        turn=rounds * n - 1,
    )


def test_section_12_turn_limit_defaults_to_null():
    assert GAME.load_options({})["turn_limit"] is None
    assert GAME.info.max_steps is None  # no bound on a match under the defaults
    assert GAME.max_steps_for(4, GAME.load_options({})) is None


@pytest.mark.parametrize("rounds", [100, 101, 1000, 10**6])
def test_B12_4_null_turn_limit_never_ends_the_match_after_any_round(rounds):
    state, events = step(last_turn_of_round(rounds, {}), 1, {"type": "end_turn"})
    assert [e["type"] for e in events if e["type"] == "game_over"] == []
    assert GAME.outcome(state) is None and state["phase"] == "invoke" and state["turn"] == rounds * 2


@pytest.mark.parametrize("limit", [1, 100, 101, 250, 2**31 - 1])
def test_B12_4_any_positive_int_turn_limit_is_accepted(limit):
    assert GAME.load_options({"turn_limit": limit})["turn_limit"] == limit


@pytest.mark.parametrize("limit", [0, -1, 2**31, 10**40, "ten", "3", 1.5, True, [3]])
def test_B12_4_turn_limit_that_is_not_a_positive_int_is_refused(limit):
    with pytest.raises(ValidationError):
        GAME.load_options({"turn_limit": limit})


def test_B12_4_turn_limit_above_100_ends_after_that_round_not_before():
    opts = {"turn_limit": 150}
    state, events = step(last_turn_of_round(100, opts), 1, {"type": "end_turn"})
    assert GAME.outcome(state) is None
    state, events = step(last_turn_of_round(149, opts), 1, {"type": "end_turn"})
    assert GAME.outcome(state) is None
    state, events = step(last_turn_of_round(150, opts), 1, {"type": "end_turn"})
    assert events[-1] == {"type": "game_over", "winners": [1], "reason": "turn_limit", "scores": [1, 2]}
    assert GAME.outcome(state)["winners"] == [1]


def test_B12_4_the_limit_counts_full_rounds_so_a_mid_round_turn_does_not_end_it():
    # Seat 0 ends its turn in the last round: seat 1 still plays that round.
    state = position(
        2, hands=HANDS, tables=[[34], []], phase="discard", active=0, options={"turn_limit": 3}, turn=4
    )
    state, events = step(state, 0, {"type": "end_turn"})
    assert GAME.outcome(state) is None and state["active"] == 1


def test_B12_2_victory_on_the_last_round_of_a_turn_limit_is_a_victory():
    state = position(
        2,
        hands=[[34], [7]],
        tables=[[4, 13, 39, 41, 44, 34], []],
        phase="discard",
        active=0,
        options={"turn_limit": 1},
        turn=0,
    )
    assert vp(state, 0) == 10  # Hastur 4, Dagoon 2, four Lesser Servitors
    state, events = step(state, 0, {"type": "end_turn"})
    assert events[-1]["reason"] == "victory" and events[-1]["winners"] == [0]


@pytest.mark.parametrize("n,seed", [(2, "sar-default-2-0"), (3, "sar-default-3-0"), (4, "sar-default-4-1")])
def test_B12_2_a_match_on_the_default_options_ends_only_by_victory(n, seed):
    """Random play on the shipped defaults, to the end: far past the old 100-round cap."""
    folded, entries = play_random_match(GAME, n, seed, thorough=False)
    state = folded.state
    assert state["end"] == "victory" and state["turn"] > 100 * n
    (winner,) = state["winners"]
    assert vp(state, winner) >= CONTENT.target_points
    assert entries[-1]["events"][-1]["reason"] == "victory"


def test_max_steps_is_a_bound_that_follows_turn_limit():
    for n in (2, 3, 4):
        for rounds in (1, 3, 150):
            assert (
                GAME.max_steps_for(n, GAME.load_options({"turn_limit": rounds}))
                == rounds * n * STEPS_PER_TURN
            )
    folded, entries = play_random_match(GAME, 3, "bounded", thorough=False, options={"turn_limit": 4})
    assert folded.state["end"] in ("turn_limit", "victory")
    assert len(entries) - 1 <= GAME.max_steps_for(3, GAME.load_options({"turn_limit": 4}))


def test_rules_v1_matches_without_turn_limit_keep_their_100_round_safeguard():
    setup = decider.setup_entry(GAME, 2, GAME.load_options({}), "v1") | {"version": 1, "rules_version": 1}
    folded = decider.fold(GAME, [setup])
    assert folded.rules_version == 1 and folded.state["round_cap"] == 100
    state = {**last_turn_of_round(100, {}), "round_cap": folded.state["round_cap"]}
    state, events = step(state, 1, {"type": "end_turn"})
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "safeguard"
    # A match begun under version 2 has no cap, and a version-1 match with a limit keeps only its limit.
    assert "round_cap" not in decider.fold(GAME, [setup | {"rules_version": 2}]).state
    limited = decider.setup_entry(GAME, 2, GAME.load_options({"turn_limit": 7}), "v1") | {
        "version": 1,
        "rules_version": 1,
    }
    assert "round_cap" not in decider.fold(GAME, [limited]).state
