"""Scenario tests for final scoring (TSE-T45..T50), the four homeworld missions
and worked examples 7 and 11."""

from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.plugins.tiny_stellar_empires.scenario import entry, position
from gameroom.plugins.tiny_stellar_empires.scoring import (
    breakdown,
    majority_points,
    mission_points,
    symbol_counts,
)

G = TinyStellarEmpires()


def final(**kw):
    state = position(**kw)
    return {**state, "over": True, "phase": "over", "turns": [state["T"]] * state["n"]}


def test_example_11_full_final_scoring_16_vs_15():
    p1 = ["W01", "E06/B", "E11/A", entry("E15/A", atk=("R01", "raid")), "W02"]
    p2 = ["E12/A", "E17/B", "E16/B", "W03"]
    state = final(rows=[p1, p2], homeworlds=["H02", "H01"], reds=[0, 1])
    out = G.outcome(state)
    assert out["breakdown"][0] == {
        "cards": 6,
        "abilities": 4,
        "majorities": 2,
        "mission": 4,
        "tucked": 0,
    }
    assert out["breakdown"][1] == {
        "cards": 7,
        "abilities": 2,
        "majorities": 2,
        "mission": 4,
        "tucked": 0,
    }
    assert out["scores"] == [16, 15] and out["winners"] == [0]
    assert symbol_counts(state, 0)["trade"] == 4 and symbol_counts(state, 0)["population"] == 0
    assert symbol_counts(state, 1)["military"] == 5


def test_example_7_T47_tied_majority_scores_one_each_and_zero_scores_nothing():
    p1 = ["E01/A"]  # 1 military
    p2 = ["E12/A", entry("E17/B", amb=("G03", 1))]  # 2 military + ambassador military end
    state = final(rows=[p1, p2], homeworlds=["H01", "H03"])
    c1, c2 = symbol_counts(state, 0), symbol_counts(state, 1)
    assert c1["military"] == 4 and c2["military"] == 4
    assert c1["population"] == 0 and c2["population"] == 0
    # military tie: 1 each; science: P2 alone (Lyceum main symbol) 2; nothing else
    assert majority_points(state) == [1, 1 + 2]


def test_T45_card_points_are_never_reduced_by_attacks():
    rows = [[entry("E34/A", atk=("R01", "raid")), entry("E27/A", atk=("R02", "invasion"))], []]
    assert breakdown(final(rows=rows))[0]["cards"] == 4 + 3


def test_T46_yellow_abilities_are_added():
    assert breakdown(final(rows=[["E29/A", "E05/B"], []]))[0]["abilities"] == 3


def test_T47_sole_leader_scores_two_and_homeworld_counts_three():
    state = final(rows=[["E10/A"], ["E19/A", "E05/A"]], homeworlds=["H04", "H02"])
    counts = [symbol_counts(state, s) for s in (0, 1)]
    assert counts[0]["population"] == 3 and counts[1]["culture"] == 2 and counts[0]["culture"] == 1
    # P1: population 2; P2: culture 2, trade 2 (Mercatus)
    assert majority_points(state) == [2, 4]


def test_T48_mission_warmonger_counts_red_cards_played_and_military_cards():
    rows = [["E01/A", entry("E12/A", atk=("R01", "raid"))], []]
    assert mission_points(final(rows=rows, homeworlds=["H01", "H02"], reds=[1, 0]), 0) == 2
    assert mission_points(final(rows=rows, homeworlds=["H01", "H02"], reds=[2, 0]), 0) == 4
    assert mission_points(final(rows=rows, homeworlds=["H01", "H02"], reds=[0, 0]), 0) == 0


def test_T48_mission_wormholes_in_row():
    assert mission_points(final(rows=[["W01"], []], homeworlds=["H02", "H01"]), 0) == 2
    assert mission_points(final(rows=[["W01", "E01/A", "W02"], []], homeworlds=["H02", "H01"]), 0) == 4
    assert mission_points(final(rows=[["E01/A"], []], homeworlds=["H02", "H01"]), 0) == 0


def test_T48_mission_ability_kinds_shown_used_one_shot_counts_invaded_not():
    two = ["E05/B", "E02/B"]  # +1 (yellow), Look (grey)
    assert mission_points(final(rows=[two, []], homeworlds=["H03", "H01"]), 0) == 1
    three = two + [entry("E07/A", used=True)]  # Take (down arrow), already used
    assert mission_points(final(rows=[three, []], homeworlds=["H03", "H01"]), 0) == 5
    invaded = two + [entry("E07/A", atk=("R01", "invasion"))]
    assert mission_points(final(rows=[invaded, []], homeworlds=["H03", "H01"]), 0) == 1


def test_T48_mission_distinct_symbols_counts_ambassadors_not_homeworld_nor_raided():
    four = ["E13/A", "E10/A", "E01/A"]  # trade, population, culture, military
    assert mission_points(final(rows=[four, []], homeworlds=["H04", "H01"]), 0) == 1
    five = four + [entry("E04/A", amb=("G03", 0))]  # science from the ambassador end
    assert mission_points(final(rows=[five, []], homeworlds=["H04", "H01"]), 0) == 4
    raided = ["E13/A", "E10/A", entry("E01/A", atk=("R01", "raid"))]
    assert mission_points(final(rows=[raided, []], homeworlds=["H04", "H01"]), 0) == 0


def test_T49_tucked_cards_score_one_each():
    assert breakdown(final(tucked=[["R01", "R02"], []]))[0]["tucked"] == 2


def test_T50_equal_totals_share_the_victory():
    # P1 Mercatus: E16/A 3 + trade majority 2 = 5; P2 Lyceum: E04/A 2 + W01 1 + science 2 = 5
    state = final(rows=[["E16/A"], ["E04/A", "W01"]], homeworlds=["H02", "H03"])
    out = G.outcome(state)
    assert out["scores"] == [5, 5] and out["winners"] == [0, 1]
    tie = G.outcome({**state, "opts": {**state["opts"], "tie_breaker": "empire_points"}})
    assert tie["winners"] == [0, 1]  # equal card points too: still shared


def test_T50_option_empire_points_breaks_ties_by_card_points():
    # P1 Mercatus: 4 + 3 cards + trade 2 = 9; P2 Lyceum: 2 + 1 + 2 cards, Double +2, science 2 = 9
    rows = [["E34/A", "E16/A"], ["E04/A", "W01", "E16/B"]]
    state = final(rows=rows, homeworlds=["H02", "H03"], options={"tie_breaker": "empire_points"})
    out = G.outcome(state)
    assert out["scores"] == [9, 9] and out["winners"] == [0]
    shared = G.outcome({**state, "opts": {**state["opts"], "tie_breaker": "shared_victory"}})
    assert shared["winners"] == [0, 1]
