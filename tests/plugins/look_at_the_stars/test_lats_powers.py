"""LATS-R6 Power Bonus; worked examples 10, 13, 14, 15 (sheet 0 unless stated)."""

import pytest

from gameroom.plugin_api import IllegalMove
from gameroom.plugins.look_at_the_stars.content import CONTENT
from gameroom.plugins.look_at_the_stars.geometry import any_placement_keys, line_json
from gameroom.plugins.look_at_the_stars.scenario import (
    GAME,
    canon,
    key,
    new_state,
    score,
    step,
    with_lines,
    with_pending,
    with_player,
    with_points,
)
from gameroom.plugins.look_at_the_stars.state import Sheet

CONFIRM = {"type": "confirm_turn"}
DECLINE = {"type": "decline_power"}


def shape(power: str, dx: int, dy: int, r: int = 0) -> list[str]:
    """The power card's lines placed at (dx, dy) with rotation r, in spec notation."""
    card = next(c for c in CONTENT.power_bonus if c.power == power)
    keys = any_placement_keys(card.shape, dx, dy, r, False)
    return ["{},{}-{},{}".format(*a, *b) for a, b in (line_json(k) for k in keys)]


def powered(power: str, *lines: str, **options) -> dict:
    """Sheet 0, pile 1, the given power card, ``lines`` drawn, occurrences detected."""
    state = with_lines(new_state(sheets=[0], card=2, power_bonus_card=power, **options), 0, *lines)
    return with_pending(state, 0)


def use(state, **target):
    return step(state, 0, {"type": "use_power", **target})


def points_of(moves):
    return {tuple(m["point"]) for m in moves if "point" in m}


def test_R6_1_detection_after_a_card_uses_old_and_pre_drawn_lines():
    # Planet power (3 horizontal lines). Pre-drawn 4,9-5,9 plus card 2 at (1, 8): 2,9-3,9, 3,9-4,9.
    state = new_state(sheets=[0], card=2, power_bonus_card="planet")
    after, events = step(state, 0, {"type": "place_card", "rotation": 0, "dx": 1, "dy": 8})
    assert events[0]["pending"] == [[canon("2,9-3,9"), canon("3,9-4,9"), canon("4,9-5,9")]]
    assert GAME.legal_moves(after, 0)[-1] == DECLINE  # auto-selected: the only occurrence
    # A symmetric shape found under two rotations is one occurrence.
    assert len(powered("planet", "3,3-4,3", "4,3-5,3", "5,3-6,3")["players"][0]["pending"]) == 1
    # Consumed lines never count again.
    state = with_player(
        with_lines(new_state(sheets=[0], power_bonus_card="planet"), 0, "3,3-4,3", "4,3-5,3", "5,3-6,3"),
        0,
        consumed=[key("3,3-4,3")],
    )
    assert with_pending(state, 0)["players"][0]["pending"] == []


def test_R6_2_overlapping_occurrences_one_use_disjoint_ones_several():
    state = powered("planet", "3,3-4,3", "4,3-5,3", "5,3-6,3", "6,3-7,3")  # 4 in a row: 2 overlapping
    moves = GAME.legal_moves(state, 0)
    assert [m["type"] for m in moves] == ["select_occurrence"] * 2
    with pytest.raises(IllegalMove) as info:
        GAME.decide(state, 0, {"type": "use_power", "point": [8, 4]}, None)
    assert info.value.code == "select-occurrence-first"
    state, _ = step(state, 0, moves[0])
    state, events = use(state, point=[8, 4])
    assert sorted(events[0]["consumed"]) == sorted(moves[0]["lines"])
    assert state["players"][0]["pending"] == []  # the other shared a consumed line
    assert GAME.legal_moves(state, 0) == [CONFIRM]
    # Two disjoint occurrences: two uses in one turn.
    state = powered("planet", "3,3-4,3", "4,3-5,3", "5,3-6,3", "3,6-4,6", "4,6-5,6", "5,6-6,6")
    state, _ = step(state, 0, GAME.legal_moves(state, 0)[0])
    state, _ = use(state, point=[8, 4])
    assert len(state["players"][0]["pending"]) == 1
    state, _ = use(state, point=[9, 4])
    assert state["players"][0]["planets"] == [48, 49] and GAME.legal_moves(state, 0) == [CONFIRM]


def test_R6_2_decline_consumes_the_chosen_occurrence_or_all_with_option():
    lines = ("3,3-4,3", "4,3-5,3", "5,3-6,3", "3,6-4,6", "4,6-5,6", "5,6-6,6")
    state = powered("planet", *lines)
    state, _ = step(state, 0, GAME.legal_moves(state, 0)[0])
    state, events = step(state, 0, DECLINE)
    assert len(events[0]["consumed"]) == 3 and len(state["players"][0]["pending"]) == 1
    state = powered("planet", *lines, decline_consumes_all_pending=True)
    state, _ = step(state, 0, GAME.legal_moves(state, 0)[0])
    state, events = step(state, 0, DECLINE)
    assert len(events[0]["consumed"]) == 6 and state["players"][0]["pending"] == []


def test_R6_2_no_legal_target_means_decline_only():
    state = powered("new_stars", *shape("new_stars", 3, 2))
    every = sorted(CONTENT.sheets[0].illustration)
    state = with_player(state, 0, public=False, new_stars=every)
    assert GAME.legal_moves(state, 0) == [DECLINE]
    with pytest.raises(IllegalMove):
        GAME.decide(state, 0, {"type": "use_power", "point": [0, 5]}, None)


def test_R6_3_once_per_game_powers():
    lines = shape("black_hole", 0, 1) + shape("black_hole", 4, 5)
    state = powered("black_hole", *lines)
    assert len(state["players"][0]["pending"]) == 2
    # Declining does not count as a use: the other occurrence stays.
    state, _ = step(state, 0, GAME.legal_moves(state, 0)[0])
    declined, _ = step(state, 0, DECLINE)
    assert len(declined["players"][0]["pending"]) == 1
    used, _ = use(state, point=[8, 9 - 1])
    assert used["players"][0]["black_hole"] is not None
    assert used["players"][0]["pending"] == []  # no longer detected after the one use


def test_R6_4_unused_stars():
    state = powered("planet", "3,3-4,3", "4,3-5,3", "5,3-6,3")
    state = with_player(
        state, 0, public=False, shooting=[[key("8,8-7,7")]], heads=[88], galaxies=[40], black_hole=None
    )
    targets = points_of(GAME.legal_moves(state, 0))
    assert (8, 4) in targets
    assert not {(3, 3), (6, 3), (7, 7), (8, 8), (0, 4), (1, 4), (2, 2), (0, 5), (4, 9)} & targets
    later = with_pending(
        with_lines(
            new_state(sheets=[0], power_bonus_card="planet", turn=7), 0, "3,3-4,3", "4,3-5,3", "5,3-6,3"
        ),
        0,
    )
    assert not any(y < 2 for _, y in points_of(GAME.legal_moves(later, 0)))  # closed rows


def test_example_10_R6_5_line_power_chains():
    state = with_lines(
        new_state(sheets=[0], card=3, power_bonus_card="line"), 0, "4,1-5,2", "2,6-3,7", "4,8-5,9"
    )
    assert with_pending(state, 0)["players"][0]["pending"] == []
    state, events = step(state, 0, {"type": "place_card", "rotation": 0, "dx": 4, "dy": 1})
    assert sorted(events[0]["lines"]) == sorted([canon("5,2-6,3"), canon("6,3-7,4")])
    assert events[0]["pending"] == [sorted([canon("4,1-5,2"), canon("5,2-6,3"), canon("6,3-7,4")])]
    state, events = use(state, line=canon("3,7-4,8"))
    assert events[0]["pending"] == [sorted([canon("2,6-3,7"), canon("3,7-4,8"), canon("4,8-5,9")])]
    s = score(state)
    assert (s["constellations"], s["planets"]) == (7, 2)
    state, _ = use(state, line=canon("7,4-8,5"))
    assert GAME.legal_moves(state, 0) == [CONFIRM]


def test_R6_5_bonus_line_obeys_line_rules():
    state = powered("line", *shape("line", 2, 2))
    targets = [m["line"] for m in GAME.legal_moves(state, 0) if "line" in m]
    assert canon("2,2-3,2") not in targets  # planet
    assert canon("3,3-4,4") in targets
    assert all(canon(t) not in targets for t in shape("line", 2, 2))  # no doubled lines
    with pytest.raises(IllegalMove) as info:
        GAME.decide(state, 0, {"type": "use_power", "line": canon("4,9-5,9")}, None)
    assert info.value.code == "line-exists"


def test_R6_6_planet_scores_and_blocks_lines():
    state = powered("planet", "3,3-4,3", "4,3-5,3", "5,3-6,3")
    state, _ = use(state, point=[7, 4])
    assert 47 in state["players"][0]["planets"]
    assert score(state)["planets"] == 2  # new planet 7,4 next to 6,3, printed 2,2 next to 3,3
    assert not Sheet(state["players"][0], 1).line_ok(key("7,4-8,4"))


def test_R6_7_new_stars_up_to_two_then_ordinary_stars():
    state = powered("new_stars", *shape("new_stars", 3, 2))
    illustration = {(c % 10, c // 10) for c in CONTENT.sheets[0].illustration}
    assert points_of(GAME.legal_moves(state, 0)) == illustration
    state, events = use(state, point=[0, 5])
    assert events[0]["new_stars_left"] == 1
    moves = GAME.legal_moves(state, 0)
    assert {"type": "use_power", "stop": True} in moves and (0, 5) not in points_of(moves)
    with pytest.raises(IllegalMove) as info:
        GAME.decide(state, 0, DECLINE, None)
    assert info.value.code == "new-star-in-progress"
    state, _ = use(state, point=[1, 5])
    assert GAME.legal_moves(state, 0) == [CONFIRM]
    assert Sheet(state["players"][0], 1).line_ok(key("0,5-1,5"))  # now ordinary stars
    # The player may stop after the first.
    one = powered("new_stars", *shape("new_stars", 3, 2))
    one, _ = use(one, point=[6, 9])
    one, _ = use(one, stop=True)
    assert one["players"][0]["new_stars"] == [96] and GAME.legal_moves(one, 0) == [CONFIRM]


def test_R6_7_new_stars_not_near_a_black_hole():
    state = with_player(
        powered("new_stars", *shape("new_stars", 3, 2)), 0, public=False, black_hole=62
    )  # 2,6
    assert not {(1, 5), (2, 5), (1, 6), (3, 5)} & points_of(GAME.legal_moves(state, 0))
    assert (6, 9) in points_of(GAME.legal_moves(state, 0))


def test_R6_8_galaxy_next_to_the_occurrence_group():
    state = powered("galaxy", *shape("galaxy", 3, 1), "0,7-1,8", "1,8-2,8", "2,8-2,9")
    targets = points_of(GAME.legal_moves(state, 0))
    group_pts = {(4, 2), (5, 3), (4, 4), (6, 3)}
    assert targets and all(
        any(
            max(abs(x - gx), abs(y - gy)) == 1 or max(abs(x + 1 - gx), abs(y - gy)) == 1
            for gx, gy in group_pts
        )
        for x, y in targets
    )
    assert (7, 3) in targets  # 7,3 + 8,3, 7,3 next to 6,3
    assert (2, 7) not in targets  # next to the other group only
    with pytest.raises(IllegalMove) as info:
        use(state, point=[2, 7])
    assert info.value.code == "illegal-target"
    state, _ = use(state, point=[7, 3])
    assert score(state)["galaxies"] == 2
    assert not Sheet(state["players"][0], 1).usable(38)  # 8,3 is covered


def test_example_13_R6_9_twinkling_star():
    groups = ("3,4-4,4", "4,4-4,3", "4,3-3,3", "6,6-7,6", "7,6-7,7", "7,7-6,7")
    state = powered("twinkling_star", *groups, *shape("twinkling_star", 0, 6))
    state, _ = use(state, point=[5, 5])
    s = score(state)
    assert s["twinkling_stars"] == 3
    plain = with_points(with_lines(new_state(sheets=[0]), 0, *groups), 0, "twinkles", "5,5")
    assert score(plain)["total"] == 8
    third = with_lines(plain, 0, "5,4-6,3", "6,3-7,3", "7,3-8,3")
    assert score(third)["twinkling_stars"] == 0


def test_R6_10_luminous_aura():
    state = powered("luminous_aura", *shape("luminous_aura", 5, 4), "0,0-1,0", "1,0-2,0")
    targets = points_of(GAME.legal_moves(state, 0))
    assert (0, 0) not in targets  # a 2-line group is not eligible
    assert (6, 6) in targets
    state, _ = use(state, point=[6, 6])
    assert score(state)["auras"] == 2
    sheet = Sheet(state["players"][0], 1)
    assert not sheet.line_ok(key("6,7-7,7")) and not sheet.line_ok(key("5,5-6,6"))
    assert sheet.line_ok(key("3,3-4,3"))


def test_R6_11_nova_makes_nine_or_ten_lines_valid():
    nine = [f"{x},3-{x + 1},3" for x in range(9)]
    state = powered("nova", *nine, *shape("nova", 3, 6))
    assert (0, 3) in points_of(GAME.legal_moves(state, 0))
    state, _ = use(state, point=[0, 3])
    s = score(state)
    assert s["nova"] == 9 and s["planets"] >= 1


def test_R6_11_nova_and_aura_respect_the_sun_unless_option():
    lines = ("0,0-1,0", "1,0-2,0", "2,0-2,1", *shape("nova", 3, 6))
    state = with_pending(with_lines(new_state(sheets=[0], power_bonus_card="nova", turn=7), 0, *lines), 0)
    assert (0, 0) not in points_of(GAME.legal_moves(state, 0))
    free = with_pending(
        with_lines(
            new_state(sheets=[0], power_bonus_card="nova", turn=7, sun_blocks_nova_and_aura=False), 0, *lines
        ),
        0,
    )
    assert (0, 0) in points_of(GAME.legal_moves(free, 0))


def test_example_14_R6_12_black_hole():
    state = powered("black_hole", *shape("black_hole", 5, 1))
    state, _ = use(state, point=[4, 7])
    assert score(state)["black_hole"] == 7
    sheet = Sheet(state["players"][0], 1)
    for p in ("3,6", "4,6", "5,6", "3,7", "5,7", "4,8", "5,8"):
        x, y = map(int, p.split(","))
        assert not sheet.usable(y * 10 + x)
    early = with_lines(
        new_state(sheets=[0], power_bonus_card="black_hole"), 0, "5,7-5,8", *shape("black_hole", 5, 1)
    )
    early, _ = use(with_pending(early, 0), point=[4, 7])
    assert score(early)["black_hole"] == 5


def test_example_15_R6_13_crescent_moon():
    plus = ("4,3-5,3", "5,3-6,3", "5,2-5,3", "5,3-5,4")
    other = ("7,7-8,7", "8,7-8,8", "7,7-7,6")
    state = powered("crescent_moon", *plus, *other, *shape("crescent_moon", 1, 5))
    moon, _ = use(state, point=[7, 4])
    assert score(moon)["crescent_moon"] == 2
    moon, _ = use(state, point=[0, 4])
    assert score(moon)["crescent_moon"] == 1


def test_R6_14_same_turn_drawings_count_for_later_checks():
    lines = ("3,3-4,3", "4,3-5,3", "5,3-6,3", "3,6-4,6", "4,6-5,6", "5,6-6,6")
    state = powered("planet", *lines)
    state, _ = step(state, 0, GAME.legal_moves(state, 0)[0])
    state, _ = use(state, point=[8, 4])
    assert (8, 4) not in points_of(GAME.legal_moves(state, 0))  # the planet just drawn
    with pytest.raises(IllegalMove) as info:
        use(state, point=[8, 4])
    assert info.value.code == "illegal-target"
