"""Random playouts with 1 (solo), 2, 5 and 8 seats, checking conservation invariants after every step.

``GAMEROOM_PLAYOUTS_BULK`` sets the number of bulk playouts per seat count
(default 100: about 20 s on one core; 1000+ for a soak run).
"""

import os

import pytest

from gameroom.plugins.look_at_the_stars import LookAtTheStars
from gameroom.plugins.look_at_the_stars.content import CONTENT, POWER_KINDS, TURNS
from gameroom.plugins.look_at_the_stars.geometry import CROSSING, NEIGHBOURS, ends
from gameroom.testing.conformance import check_sampling, play_random_match

GAME = LookAtTheStars()
BULK = int(os.environ.get("GAMEROOM_PLAYOUTS_BULK", "100"))
SEATS = (1, 2, 5, 8)


def options_for(i: int, seats: int = 2) -> dict:
    """Cycle through every power kind and the non-default options (the solo variant for 1 seat)."""
    opts = {"power_bonus_card": POWER_KINDS[i % len(POWER_KINDS)], "solo_variant": seats == 1 or i % 2 == 1}
    if i % 3 == 1:
        opts.update(decline_consumes_all_pending=True, point_bonus_counting="greedy_scan")
    if i % 4 == 2:
        opts.update(allow_mirror=True, sun_blocks_nova_and_aura=False, live_score=True)
    if i % 5 == 3:
        opts.update(point_bonus_card="random")
    return opts


def check_player(player: dict, rules: dict) -> None:
    printed = CONTENT.sheets[player["sheet"]]
    lines = player["lines"]
    assert len(lines) == len(set(lines)), "a doubled line"
    assert set(printed.pre_drawn) <= set(lines), "a pre-drawn line vanished"
    assert len(player["consumed"]) == len(set(player["consumed"])) and set(player["consumed"]) <= set(lines)
    if not rules["decline_all"]:
        assert len(player["consumed"]) % 3 == 0, "consumption is by whole occurrences"
    stars = printed.stars | set(player["new_stars"])
    assert set(player["new_stars"]) <= printed.illustration and len(player["new_stars"]) == len(
        set(player["new_stars"])
    )
    line_ends = {p for k in lines for p in ends(k)}
    assert line_ends <= stars, "a line ends off a star"
    segments = [k for star in player["shooting"] for k in star]
    seg_ends = {p for k in segments for p in ends(k)}
    assert seg_ends <= stars and not (seg_ends & line_ends), "a shooting star touches a line"
    assert all(CROSSING.get(k) not in set(lines) for k in segments), "a shooting star crosses a line"
    assert all(1 <= len(star) <= 3 for star in player["shooting"])
    objects = (
        list(player["planets"])
        + list(player["twinkles"])
        + [g + d for g in player["galaxies"] for d in (0, 1)]
    )
    objects += [p for p in (player["moon"], player["black_hole"]) if p is not None]
    assert len(objects) == len(set(objects)), "two objects on one point"
    assert not (set(objects) & line_ends) and not (set(objects) & seg_ends), "an object on a used star"
    assert set(objects) <= stars and not set(objects) & printed.planets
    if player["black_hole"] is not None:
        zone = set(NEIGHBOURS[player["black_hole"]])
        assert not zone & set(objects), "an object next to the black hole"


def invariants(folded) -> None:
    state = folded.state
    assert sorted(state["deck"]) == list(range(len(CONTENT.night_cards))), "deck not a permutation"
    assert 1 <= state["turn"] <= TURNS
    sheets = [p["sheet"] for p in state["players"]]
    assert len(set(sheets)) == len(sheets), "two seats share a sheet"
    for live, public in zip(state["players"], state["public"]):
        check_player(live, state["rules"])
        # The public sheet is the live one as of the last reveal: a prefix of it.
        assert live["lines"][: len(public["lines"])] == public["lines"]
        assert public["log"] == [] and public["pending"] == []
        if live["confirmed"]:
            assert live["drawn"] and not live["pending"] and not live["stars_left"]
    if state["result"] is None:
        assert GAME.active_seats(state) == [s for s, p in enumerate(state["players"]) if not p["confirmed"]]


@pytest.mark.parametrize("seats", SEATS)
def test_bulk_random_playouts_keep_invariants(seats):
    for i in range(BULK):
        folded, _entries = play_random_match(
            GAME,
            seats,
            f"bulk-{seats}-{i}",
            thorough=False,
            options=options_for(i, seats),
            on_step=invariants,
        )
        result = GAME.outcome(folded.state)
        assert len(result["breakdown"]) == seats
        assert [sum(b.values()) for b in result["breakdown"]] == result["scores"]
        if seats == 1:
            assert result["winners"] == []
        else:
            assert result["winners"] and all(
                result["scores"][w] == max(result["scores"]) for w in result["winners"]
            )


@pytest.mark.parametrize("seats", SEATS)
def test_thorough_playout_with_options(seats):
    for i in (2,):
        seed = f"thorough-{seats}-{i}"
        folded, _ = play_random_match(
            GAME, seats, seed, thorough=True, options=options_for(i, seats), on_step=invariants
        )
        check_sampling(GAME, folded, seats, seed)
