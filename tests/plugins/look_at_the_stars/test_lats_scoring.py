"""LATS-R7 scoring, and the worked examples 3-9 of the spec (sheet 0 unless stated)."""

import pytest

from gameroom.plugins.look_at_the_stars.scenario import (
    new_state,
    score,
    with_lines,
    with_player,
    with_points,
)
from gameroom.plugins.look_at_the_stars.scoring import max_disjoint, point_bonus_occurrences

PLUS_53 = ("4,3-5,3", "5,3-6,3", "5,2-5,3", "5,3-5,4")


def sheet0(*lines, **options):
    return with_lines(new_state(sheets=[0], **options), 0, *lines)


def test_example_3_simple_constellation_and_planet():
    s = score(sheet0("0,0-1,1", "1,1-1,2", "1,2-1,3"))
    assert s["constellations"] == 3
    assert s["planets"] == 1  # planet 2,2 next to 1,1 / 1,2 / 1,3
    assert s["total"] == 4


def test_example_4_crossing_joins_groups():
    assert score(sheet0("4,5-5,6", "5,5-4,6", "5,6-5,7"))["constellations"] == 3
    assert score(sheet0("4,5-5,6", "5,5-4,6"))["total"] == 0


def test_example_5_oversize_group_and_nova():
    lines = [f"{x},3-{x + 1},3" for x in range(9)]
    state = sheet0(*lines)
    assert score(state)["total"] == 0  # 9 lines, no nova: worthless, counts for no planet
    state = with_points(state, 0, "novas", "0,3")
    s = score(state)
    assert (s["nova"], s["planets"], s["total"]) == (9, 1, 10)
    state = with_lines(state, 0, "9,3-9,4")
    s = score(state)
    assert (s["nova"], s["planets"], s["total"]) == (10, 1, 11)
    state = with_lines(state, 0, "9,4-8,4")
    assert score(state)["total"] == 0  # 11 lines: nothing, even with a nova


def test_example_6_R1_6_pre_drawn_lines_count():
    s = score(sheet0("8,1-9,1", "7,2-7,3"))
    assert s["constellations"] == 3 and s["total"] == 3


def test_example_7_duplicate_sizes_score_once_planets_count_each():
    s = score(sheet0("6,4-6,3", "6,3-5,3", "5,3-5,2", "8,6-9,6", "9,6-9,5", "9,5-9,4"))
    assert s["constellations"] == 3
    assert s["planets"] == 2  # planet 7,5 next to both constellations
    assert s["total"] == 5


def test_example_8_point_bonus_plus():
    s = score(sheet0(*PLUS_53))
    assert (s["constellations"], s["point_bonus"], s["total"]) == (4, 3, 7)
    plus_43 = ("3,3-4,3", "4,3-5,3", "4,2-4,3", "4,3-4,4")
    s = score(sheet0(*sorted(set(PLUS_53 + plus_43))))
    assert (s["constellations"], s["planets"], s["point_bonus"], s["total"]) == (7, 1, 3, 11)


NINE = (
    "4,3-5,3",
    "5,3-6,3",
    "5,2-5,3",
    "5,3-5,4",
    "6,3-7,3",
    "6,2-6,3",
    "6,3-6,4",
    "4,4-5,4",
    "5,4-6,4",
    "5,4-5,5",
)


def test_example_9_disjoint_counting_vs_greedy_scan():
    state = sheet0(*NINE)
    assert len(state["players"][0]["lines"]) == 12  # 10 drawn + 2 pre-drawn
    assert len(point_bonus_occurrences(state["players"][0]["lines"], state["rules"])) == 3
    s = score(state)
    assert s["constellations"] == 0  # one 10-line group without a nova
    assert s["point_bonus"] == 6
    greedy = sheet0(*NINE, point_bonus_counting="greedy_scan")
    assert score(greedy)["point_bonus"] == 3


def test_R7_1_each_valid_size_scores_once_up_to_33():
    # Six separate constellations of sizes 3..8 on sheet 0.
    lines = [
        "0,0-1,0",
        "1,0-2,0",
        "2,0-2,1",  # 3
        "0,2-0,3",
        "0,3-0,4",
        "1,4-0,4",
        "1,3-1,4",  # 4
        "3,3-4,3",
        "4,3-5,3",
        "5,3-6,3",
        "6,3-7,3",
        "7,3-8,3",  # 5
        "4,6-5,6",
        "5,6-6,6",
        "6,6-7,6",
        "7,6-8,6",
        "8,6-9,6",
        "9,6-9,5",  # 6
        "2,7-3,7",
        "3,7-4,7",
        "4,7-5,7",
        "5,7-6,7",
        "6,7-7,7",
        "7,7-8,7",
        "8,7-8,8",  # 7
        "1,8-2,8",
        "2,8-2,9",
        "2,9-3,9",
        "3,9-3,10",
        "3,10-4,10",
        "4,10-5,10",
        "5,10-5,9",  # 8 with 4,9-5,9
    ]
    state = sheet0(*lines)
    s = score(state)
    assert s["constellations"] == 33
    # A second 3-line constellation adds nothing (R7.1: each size once).
    assert score(with_lines(state, 0, "2,4-3,4", "3,4-4,4", "4,4-5,4"))["constellations"] == 33


def test_R7_2_planet_counts_each_adjacent_constellation():
    # Two 3-line constellations touching planet 7,5, one 2-line group that does not count.
    state = sheet0("6,4-6,3", "6,3-5,3", "5,3-5,2", "8,6-9,6", "9,6-9,5", "9,5-9,4", "6,6-6,7", "6,7-5,7")
    assert score(state)["planets"] == 2
    # A bonus planet scores like a printed one.
    state = with_points(state, 0, "planets", "4,4")
    assert score(state)["planets"] == 3


def test_R7_3_shooting_stars_one_point_per_segment():
    state = with_player(new_state(sheets=[0]), 0, shooting=[[1], [2, 3, 4]], heads=[0, 0])
    assert score(state)["shooting_stars"] == 4


DOUBLE_FORK = ("3,2-4,3", "3,4-4,3", "4,3-5,3", "5,3-6,2", "5,3-6,4")  # card 7 at (3, 1)


@pytest.mark.parametrize(
    "card,lines,points", [(7, DOUBLE_FORK, 5), (3, PLUS_53, 3), (7, PLUS_53, 0), (3, DOUBLE_FORK, 0)]
)
def test_R7_4_point_bonus_scores_the_card_value_per_occurrence(card, lines, points):
    state = with_lines(new_state(sheets=[0], point_bonus_card=card), 0, *lines)
    assert score(state)["point_bonus"] == points


def test_R7_4_point_bonus_ignores_power_consumption():
    state = sheet0(*PLUS_53)
    state = with_player(state, 0, consumed=list(state["players"][0]["lines"]))
    assert score(state)["point_bonus"] == 3


def test_R7_4_max_disjoint_is_exact():
    assert max_disjoint([(1, 2), (2, 3), (3, 4)]) == 2
    assert max_disjoint([(1, 2), (1, 3), (1, 4), (5, 6)]) == 2
    assert max_disjoint([]) == 0


def test_R7_5_power_bonus_points():
    state = sheet0("0,0-1,1", "1,1-1,2", "1,2-1,3")
    state = with_points(state, 0, "galaxies", "3,4")
    state = with_points(state, 0, "auras", "1,2")
    s = score(state)
    assert (s["galaxies"], s["auras"]) == (2, 2)


def test_R7_6_total_and_shared_rank():
    from gameroom.plugins.look_at_the_stars.scoring import final_result

    state = new_state(2, sheets=[0, 0])
    state = with_lines(state, 0, "0,0-1,1", "1,1-1,2", "1,2-1,3")
    state = with_lines(state, 1, "0,0-1,1", "1,1-1,2", "1,2-1,3")
    result = final_result(state)
    assert result["scores"] == [4, 4] and result["winners"] == [0, 1]
    assert sum(result["breakdown"][0].values()) == 4
