"""The view's ``standing``: the score as if the game ended now (TSE-T45..T49), computed by
the scoring module from what the viewer may see (TSE-H1, H2, H6)."""

import json

from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.plugins.tiny_stellar_empires.scenario import entry, position
from gameroom.plugins.tiny_stellar_empires.schemas import View

G = TinyStellarEmpires()

EXAMPLE_11 = {
    "rows": [
        ["W01", "E06/B", "E11/A", entry("E15/A", atk=("R01", "raid")), "W02"],
        ["E12/A", "E17/B", "E16/B", "W03"],
    ],
    "homeworlds": ["H02", "H01"],
    "reds": [0, 1],
}


def majority(standing, symbol):
    return next(m for m in standing["majorities"] if m["symbol"] == symbol)


def test_T47_standing_shows_each_symbols_counts_leaders_and_points_during_play():
    # P1: military 1 (E01/A), culture 1 (E10/A); P2: military 2 (E12/A + E17/B), ambassador culture end 2
    rows = [["E01/A", "E10/A"], ["E12/A", entry("E17/B", amb=("G02", 0))]]
    state = position(rows=rows, homeworlds=["H04", "H01"])
    standing = G.view(state, 0)["standing"]
    assert standing["basis"] == "public"
    assert [m["symbol"] for m in standing["majorities"]] == state["set"]["symbols"]
    military = majority(standing, "military")
    assert military == {"symbol": "military", "counts": [1, 2], "leaders": [1], "points": [0, 2]}
    culture = majority(standing, "culture")  # 1 against the ambassador end's 2
    assert culture["counts"] == [1, 2] and culture["leaders"] == [1] and culture["points"] == [0, 2]
    # A highest count of 0 scores nothing: P1's Gaia Cradle (population) is hidden, so not counted.
    population = majority(standing, "population")
    assert population == {"symbol": "population", "counts": [0, 0], "leaders": [], "points": [0, 0]}
    assert [s["majorities"] for s in standing["scores"]] == [0, 4]


def test_T47_tied_leaders_score_one_each_in_the_standing():
    state = position(rows=[["E01/A"], ["E12/A"]])
    military = majority(G.view(state, None)["standing"], "military")
    assert military["leaders"] == [0, 1] and military["points"] == [1, 1]


def test_T45_T46_T49_standing_scores_cards_abilities_and_tucked_cards_now():
    # E16/B (2 VP, Double) next to W01 (1 VP): cards 3, Double +2; E05/B +1; two tucked cards
    rows = [["E16/B", "W01"], ["E05/B"]]
    state = position(rows=rows, tucked=[["R01", "R02"], []])
    scores = G.view(state, 1)["standing"]["scores"]
    assert scores[0] == {"cards": 3, "abilities": 2, "majorities": 0, "mission": None, "tucked": 2}
    assert scores[1] == {"cards": 0, "abilities": 1, "majorities": 2, "mission": None, "tucked": 0}
    assert G.view(state, 1)["standing"]["totals"] == [7, 3]


def test_T4_H2_standing_leaves_hidden_homeworlds_out_for_everyone_and_tells_only_the_owner():
    state = position(**EXAMPLE_11)
    views = {seat: G.view(state, seat) for seat in (None, 0, 1)}
    public = {k: v for k, v in views[None]["standing"].items() if k != "own"}
    for view in views.values():
        standing = view["standing"]
        assert {k: v for k, v in standing.items() if k != "own"} == public, "the same for every viewer"
        assert View().validate(view) == {}
    # Without homeworlds: trade P1 1 (E11/A; E15's population is raided), military P2 2
    assert majority(public, "trade")["counts"] == [1, 0]
    assert majority(public, "military")["counts"] == [0, 2]
    assert [s["mission"] for s in public["scores"]] == [None, None]
    assert views[None]["standing"]["own"] is None
    # Each seat learns what its own homeworld adds: Mercatus (trade, wormholes), Ares Prime (warmonger)
    assert views[0]["standing"]["own"] == {
        "symbol": "trade",
        "symbol_count": 3,
        "mission_progress": 2,
        "mission_points": 4,
    }
    assert views[1]["standing"]["own"] == {
        "symbol": "military",
        "symbol_count": 3,
        "mission_progress": 3,
        "mission_points": 4,
    }
    # Nothing in seat 1's or a spectator's standing depends on seat 0's homeworld.
    swapped = position(**{**EXAMPLE_11, "homeworlds": ["H03", "H01"]})
    assert G.view(swapped, 1)["standing"] == views[1]["standing"]
    assert json.dumps(G.view(swapped, None)["standing"]) == json.dumps(views[None]["standing"])
    assert G.view(swapped, 0)["standing"]["own"]["symbol"] == "science"


def test_example_11_T45_T50_standing_at_the_end_is_the_final_scoring():
    state = {**position(**EXAMPLE_11), "over": True, "phase": "over"}
    view = G.view(state, None)
    standing = view["standing"]
    assert standing["basis"] == "final" and standing["own"] is None
    assert standing["scores"] == view["outcome"]["breakdown"]
    assert standing["totals"] == view["outcome"]["scores"] == [16, 15]
    assert majority(standing, "trade")["counts"] == [4, 0]  # Mercatus now counts 3
    assert majority(standing, "military")["points"] == [0, 2]
    assert View().validate(view) == {}
