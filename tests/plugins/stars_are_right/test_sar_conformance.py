"""Bulk random playouts checking conservation after every step (the conformance kit itself
runs over every installed game in tests/test_conformance.py)."""

import os
import time
from collections import Counter

import pytest

from gameroom.plugins.stars_are_right import StarsAreRight
from gameroom.plugins.stars_are_right.scenario import census
from gameroom.plugins.stars_are_right.scoring import vp
from gameroom.testing.conformance import play_random_match

GAME = StarsAreRight()
#: Bulk playouts per player count (thorough=False); ~0.1-0.2 s CPU each.
BULK = int(os.environ.get("GAMEROOM_PLAYOUTS_BULK", "40"))
ALL_IDS = set(range(1, 76))


def check_invariants(folded):
    state = folded.state
    # Card conservation: all 75 cards, each exactly once, across deck, discard,
    # hands, tables and the invoked slot.
    cards = (
        state["deck"]
        + state["discard"]
        + [c for h in state["hands"] for c in h]
        + [c for t in state["tables"] for c in t]
        + ([] if state["invoked"] is None else [state["invoked"]])
    )
    assert len(cards) == 75 and set(cards) == ALL_IDS, census(state)
    # Tile conservation: 25 tiles, each exactly once in the sky.
    assert sorted(state["sky"]) == list(range(25)) and len(state["faces"]) == 25
    for seat, table in enumerate(state["tables"]):
        assert len(table) <= 6 or (seat == state["active"] and state["phase"] == "limit")
        goos = [c for c in table if c <= 12]
        assert len({(c - 1) // 3 for c in goos}) == len(goos)  # B7.4 one GOO per family
    assert set(state["tapped"]) <= set(
        state["tables"][state["active"]] if state["active"] is not None else []
    )
    assert sum(state["pool"].values()) <= 15
    if state["phase"] == "over":
        best = max(vp(state, s) for s in range(state["n"]))
        assert all(vp(state, w) == best for w in state["winners"])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_bulk_random_playouts_conserve_cards_and_tiles(n):
    start, cpu = time.perf_counter(), time.process_time()
    ended = Counter()
    for i in range(BULK):
        # 100 rounds (B12.4): random play needs thousands of rounds to reach 10 VP; the
        # defaults (no limit) are played to victory in test_sar_turn_limit.py.
        folded, _ = play_random_match(
            GAME, n, f"bulk-{n}-{i}", thorough=False, options=GAME.playout_options, on_step=check_invariants
        )
        ended[folded.state["end"]] += 1
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        f"{n} players: {BULK} playouts in {elapsed:.1f}s wall, {cpu:.1f}s CPU "
        f"({cpu / BULK:.3f} s CPU each); {dict(ended)}"
    )
    assert sum(ended.values()) == BULK


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_playouts_with_options(n):
    options = {
        "allow_mirror": True,
        "dark_cells_may_overhang": True,
        "no_cancel_checks": "abd",
        "limit_discard_may_choose_new": False,
        "first_player": "seat_0",
        "turn_limit": 8,
    }
    folded, _entries = play_random_match(
        GAME, n, f"opts-{n}", thorough=True, options=options, on_step=check_invariants
    )
    assert folded.state["end"] in ("victory", "turn_limit")
    assert folded.state["turn"] <= 8 * n
