"""Bulk random playouts and card conservation after every step (the conformance kit itself
runs over every installed game in tests/test_conformance.py)."""

import os

import pytest

from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.plugins.tiny_stellar_empires.scenario import all_card_ids, census
from gameroom.testing.conformance import check_sampling, play_random_match

GAME = TinyStellarEmpires()
ALL_IDS = set(
    all_card_ids(
        {"set": __import__("gameroom.plugins.tiny_stellar_empires.content", fromlist=["DEFAULT"]).DEFAULT}
    )
)
BULK = int(os.environ.get("GAMEROOM_PLAYOUTS_BULK", "900"))
ALL_OPTIONS = {
    "empire_play_mandatory": True,
    "max_attacks_per_turn": "1",
    "ambassador_targets": "any_own_card",
    "one_shot_timing": "any_own_turn",
    "trade_count": "own_edges",
    "discard_pile_public": False,
    "stuck_redraw": "immediate",
    "tie_breaker": "empire_points",
}


def conserved(folded):
    """Every card of the set is in exactly one place (deck, discard, hands, rows,
    attacks, ambassadors, tucks, out of the game, homeworlds dealt or removed)."""
    state = folded.state
    where = census(state)
    assert len(where) == 54 and set(where) == ALL_IDS, "a card appeared or vanished"
    assert sum(where.values()) == 54, [c for c, k in where.items() if k != 1]
    assert len(state["homeworlds"]) + len(state["removed"]) == 4
    for p in range(state["n"]):
        assert state["turns"][p] <= state["T"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_bulk_random_playouts_conserve_cards(n):
    turns = {2: 6, 3: 6, 4: 5}[n]
    for i in range(BULK // 3):
        folded, _ = play_random_match(GAME, n, f"bulk-{n}-{i}", thorough=False, on_step=conserved)
        assert folded.state["turns"] == [turns] * n
        assert GAME.outcome(folded.state) is not None


@pytest.mark.parametrize("n", [2, 3, 4])
def test_playouts_with_every_non_default_option(n):
    for i in range(3):
        folded, _ = play_random_match(
            GAME, n, f"alt-{n}-{i}", thorough=True, options=ALL_OPTIONS, on_step=conserved
        )
        check_sampling(GAME, folded, n, f"alt-{n}-{i}")


@pytest.mark.parametrize("option", sorted(ALL_OPTIONS))
def test_each_option_alone_plays_to_the_end(option):
    for n in (2, 4):
        play_random_match(
            GAME,
            n,
            f"one-{option}-{n}",
            thorough=True,
            options={option: ALL_OPTIONS[option]},
            on_step=conserved,
        )
