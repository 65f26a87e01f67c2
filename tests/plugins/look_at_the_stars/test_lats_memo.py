"""The AI's shortcuts compute exactly what the rules do.

``Sheet.legal_lines`` inlines ``Sheet.line_ok`` over a precomputed table, and
placements, scores and growth outlooks are memoised per drawing
(``plugins/look_at_the_stars/memo.py``). On every step of random matches with
every power kind (auras, black holes, new stars and shooting stars change what
may be drawn) both are compared with the plain computations.
"""

import pytest

from gameroom.plugins.look_at_the_stars import LookAtTheStars, decide, scoring
from gameroom.plugins.look_at_the_stars.content import POWER_KINDS
from gameroom.plugins.look_at_the_stars.geometry import ALL_LINES
from gameroom.plugins.look_at_the_stars.state import Sheet
from gameroom.testing.conformance import play_random_match

GAME = LookAtTheStars()


def check(folded) -> None:
    state = folded.state
    pile = decide.pile_of(state["turn"])
    for seat, player in enumerate(state["players"]):
        sheet = Sheet(player, pile)
        assert sheet.legal_lines() == {k for k in ALL_LINES if sheet.line_ok(k)}
        assert scoring.score_sheet(player, state["rules"]) == scoring._score_sheet(player, state["rules"])
        if state["result"] is None and not player["drawn"] and not player["confirmed"]:
            fresh = decide._placement_steps(state, player, state["rules"])
            assert GAME.legal_moves(state, seat) == fresh
            assert GAME.legal_moves(state, seat) == fresh  # the second call is a memo hit


@pytest.mark.parametrize("power", POWER_KINDS)
def test_shortcuts_equal_the_rules_on_every_step(power):
    play_random_match(
        GAME,
        3,
        f"memo-{power}",
        thorough=False,
        on_step=check,
        options={"power_bonus_card": power, "allow_mirror": power in ("nova", "line")},
    )


def test_memo_hits_return_copies():
    folded, _ = play_random_match(GAME, 2, "memo-copies", thorough=False)
    player = folded.state["players"][0]
    first = scoring.score_sheet(player, folded.state["rules"])
    first["total"] = -1
    assert scoring.score_sheet(player, folded.state["rules"])["total"] != -1
