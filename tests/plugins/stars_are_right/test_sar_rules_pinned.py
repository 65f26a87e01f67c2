"""Rules of the spec that no other test pinned by name (issue 21 item 4)."""

import pytest

from gameroom.plugin_api import IllegalMove
from gameroom.plugins.stars_are_right import StarsAreRight
from gameroom.plugins.stars_are_right.decide import legal_moves
from gameroom.plugins.stars_are_right.scenario import position, step, steps

GAME = StarsAreRight()


def refused(state, move, code, seat=0):
    with pytest.raises(IllegalMove) as err:
        step(state, seat, move)
    assert err.value.code == code


def test_B2_4_two_to_four_players():
    opts = GAME.load_options({})
    for n in (2, 3, 4):
        GAME.check_seats(n, opts)
    for n in (0, 1, 5):
        with pytest.raises(IllegalMove):
            GAME.check_seats(n, opts)


def test_B10_5_several_ghouls_do_not_add_up():
    state = position(2, hands=[[1, 2, 3, 5], []], tables=[[73, 74, 75], []], phase="discard")
    state = steps(state, 0, [{"type": "discard", "card": 1}, {"type": "discard", "card": 2}])
    assert legal_moves(state, 0) == [{"type": "end_turn"}]
    refused(state, {"type": "discard", "card": 3}, "discard-limit")


def test_B12_4_full_rounds_count_from_the_first_player():
    """With seat 1 first, the first full round ends when seat 0 ends its turn."""
    hands = [[1, 2, 3, 5, 6], [7, 8, 9, 10, 11]]
    state = {
        **position(
            2,
            hands=hands,
            tables=[[34, 36], [35]],
            phase="discard",
            active=1,
            options={"turn_limit": 1},
            turn=0,
        ),
        "first": 1,
    }
    state, _ = step(state, 1, {"type": "end_turn"})
    assert GAME.outcome(state) is None and state["active"] == 0
    state = steps(
        state,
        0,
        [{"type": "skip_invoke"}, {"type": "end_services"}, {"type": "skip_summon"}, {"type": "end_turn"}],
    )
    assert GAME.outcome(state) == {
        "scores": [2, 1],
        "winners": [0],
        "breakdown": [
            {"great_old_one": 0, "greater_servitor": 0, "lesser_servitor": 2, "minion": 0},
            {"great_old_one": 0, "greater_servitor": 0, "lesser_servitor": 1, "minion": 0},
        ],
    }
    assert state["end"] == "turn_limit"


def test_B12_3_a_seat_that_is_not_active_never_wins_by_victory_check():
    """Only the active player's total is checked at the end of its turn (B12.2): a seat
    at 10 VP that is not active does not end the match (it cannot reach 10 outside its
    own turn; here it is forced, to pin that the check looks at the active seat only)."""
    state = position(2, hands=[[1], [7]], tables=[[34], [4, 13, 39, 41, 44, 46]], phase="discard", active=0)
    state, events = step(state, 0, {"type": "end_turn"})
    assert GAME.outcome(state) is None and events[-1]["type"] == "turn_ended"
