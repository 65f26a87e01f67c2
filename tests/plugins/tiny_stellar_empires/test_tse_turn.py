"""Scenario tests for setup, placement, the five turn steps and the special cases
(TSE-T1..T28) and worked examples 1, 2, 4, 5, 6, 10 and 12."""

import pytest

from gameroom.plugin_api import IllegalMove, Rng
from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.plugins.tiny_stellar_empires.rules import edges, effective_cost, empire_plays
from gameroom.plugins.tiny_stellar_empires.scenario import entry, position, step
from gameroom.plugins.tiny_stellar_empires.scoring import breakdown, symbol_counts
from gameroom.testing.conformance import play_random_match

G = TinyStellarEmpires()
FILL = ["E30", "E31", "E32", "E34", "E36", "E37", "E38"]  # filler cards for hands


def refused(state, seat, move, code):
    with pytest.raises(IllegalMove) as exc:
        G.decide(state, seat, move, Rng(0))
    assert exc.value.code == code, exc.value.code


def moves_of(state, seat, kind):
    return [m for m in G.legal_moves(state, seat) if m["type"] == kind]


# -- setup (section 2) ---------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_T1_T2_T3_setup_deals_homeworlds_and_five_cards(n):
    state = None
    for event in G.setup(n, G.load_options({}), Rng(f"setup-{n}")):
        state = G.evolve(state, event)
    assert len(set(state["homeworlds"])) == n and len(state["removed"]) == 4 - n
    assert all(len(h) == 5 for h in state["hands"])
    assert len(state["deck"]) == 50 - 5 * n and state["discard"] == []
    assert all(c not in state["set"]["homeworld"] for c in state["deck"])


def test_T4_homeworld_is_seen_by_its_owner_only():
    state = position(3, homeworlds=["H01", "H02", "H03"])
    assert G.view(state, 1)["homeworld"] == "H02"
    assert G.view(state, 0)["homeworlds"] is None and G.view(state, None)["homeworld"] is None


def test_T5_start_player_is_random_and_acts_first():
    starts = set()
    for i in range(30):
        events = G.setup(3, G.load_options({}), Rng(f"start-{i}"))
        state = None
        for e in events:
            state = G.evolve(state, e)
        assert G.active_seats(state) == [state["start"]]
        starts.add(state["start"])
    assert starts == {0, 1, 2}


@pytest.mark.parametrize("n,turns", [(2, 6), (3, 6), (4, 5)])
def test_example_12_T6_turn_counter_every_player_takes_exactly_T_turns(n, turns):
    folded, entries = play_random_match(G, n, f"turns-{n}", thorough=False)
    ended = [e["seat"] for entry_ in entries for e in entry_["events"] if e["type"] == "turn_ended"]
    assert len(ended) == n * turns and all(ended.count(s) == turns for s in range(n))
    start = folded.state["start"]
    assert ended[-1] == (start - 1) % n  # the seat just before the start player ends the game
    assert folded.state["over"] and G.active_seats(folded.state) == []


# -- geometry and placement (4.1) --------------------------------------------------------


def test_T7_T8_orientation_B_swaps_the_edges():
    state = position()
    assert edges(state, "E02", "A") == (2, 3) and edges(state, "E02", "B") == (3, 2)
    assert edges(state, "W01", "A") is None


def test_example_1_matching_E02_A_follows_E01_A_but_not_E02_B():
    state = position(hands=[["E02", *FILL[:3]], []], rows=[["E01/A"], []], phase="empire")
    plays = moves_of(state, 0, "play_empire")
    assert {"type": "play_empire", "card": "E02", "orientation": "A"} in plays
    assert {"type": "play_empire", "card": "E02", "orientation": "B"} not in plays
    refused(state, 0, {"type": "play_empire", "card": "E02", "orientation": "B"}, "route-mismatch")
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "E02", "orientation": "A"})
    last = state["rows"][0][-1]
    assert last["id"] == "E02" and edges(state, last["id"], last["o"])[1] == 3


def test_example_2_T13_wormholes_are_wild_both_ways():
    state = position(
        hands=[["E15", "E01", "W02", *FILL[:2]], []], rows=[["E01/A", "W01"], []], phase="empire"
    )
    plays = {(m["card"], m["orientation"]) for m in moves_of(state, 0, "play_empire")}
    assert {("E15", "A"), ("E15", "B"), ("E01", "A"), ("E01", "B")} <= plays
    state = position(hands=[["W02", *FILL[:2]], []], rows=[["E15/A"], []], phase="empire")
    plays = {(m["card"], m["orientation"]) for m in moves_of(state, 0, "play_empire")}
    assert plays >= {("W02", "A"), ("W02", "B")}


def test_T9_T11_card_goes_to_the_right_end_and_keeps_its_orientation():
    state = position(hands=[["W01", "E30", "E31"], []], rows=[["E01/A", "E02/A"], []], phase="empire")
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "W01", "orientation": "B"})
    assert [e["id"] for e in state["rows"][0]] == ["E01", "E02", "W01"]
    state, _ = step(G, state, 0, {"type": "pay", "card": "E30"})
    state, _ = step(G, state, 0, {"type": "end_attacks"})
    state, _ = step(G, state, 0, {"type": "end_turn"})
    assert state["rows"][0][-1]["o"] == "B" and state["rows"][1] == []


def test_T12_only_the_active_half_counts():
    a = position(rows=[["E16/A"], []])
    b = position(rows=[["E16/B"], []])
    assert breakdown(a)[0]["cards"] == 3 and breakdown(b)[0]["cards"] == 2
    assert symbol_counts(position(rows=[["E23/A"], []]), 0)["science"] == 0  # half B shows science


def test_T14_first_card_of_a_row_is_unrestricted():
    state = position(hands=[["E15", "E01", "E31"], []], phase="empire")
    plays = {(m["card"], m["orientation"]) for m in moves_of(state, 0, "play_empire")}
    assert plays == {("E15", "A"), ("E15", "B"), ("E01", "A"), ("E01", "B")}


# -- step 1: exchange ----------------------------------------------------------------------


def test_T15_exchange_discards_up_to_two_then_draws_as_many_once():
    hand = ["E01", "E02", "E03", "E04", "E05"]
    state = position(hands=[hand, []], deck=["E20", "E21", "E22"])
    assert len(moves_of(state, 0, "exchange")) == 16  # 1 + 5 + 10 (section 9)
    refused(state, 0, {"type": "exchange", "cards": ["E01", "E02", "E03"]}, "exchange-too-many")
    state, events = step(G, state, 0, {"type": "exchange", "cards": ["E01", "E02"]})
    assert state["discard"] == ["E01", "E02"]
    assert sorted(state["hands"][0]) == ["E03", "E04", "E05", "E20", "E21"]
    assert any(e["type"] == "drew" and e["reveal"] for e in events)
    assert state["phase"] == "empire"
    refused(state, 0, {"type": "exchange", "cards": []}, "wrong-step")


# -- step 2: empire ---------------------------------------------------------------------------


def test_T16_at_most_one_empire_card_per_turn():
    state = position(hands=[["E01", "E02", "E30", "E31"], []], phase="empire")
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "E01", "orientation": "A"})
    state, _ = step(G, state, 0, {"type": "pay", "card": "E30"})
    assert state["phase"] == "attack"
    refused(state, 0, {"type": "play_empire", "card": "E02", "orientation": "A"}, "wrong-step")


def test_T16_option_empire_play_mandatory():
    state = position(hands=[["E01", "E30"], []], phase="empire")
    assert moves_of(state, 0, "skip_empire")
    forced = position(hands=[["E01", "E30"], []], phase="empire", options={"empire_play_mandatory": True})
    assert not moves_of(forced, 0, "skip_empire")
    refused(forced, 0, {"type": "skip_empire"}, "empire-play-mandatory")
    unable = position(hands=[["E01"], []], phase="empire", options={"empire_play_mandatory": True})
    assert moves_of(unable, 0, "skip_empire")  # nothing affordable: skipping stays legal


def test_example_4_T17_T18_cost_with_discounts_and_bully():
    row = ["E25/B", "E33/B", "W01"]  # two Discount halves
    state = position(hands=[["E35", "E04", "E10"], []], rows=[row, []], bully=[1, 0], phase="empire")
    assert effective_cost(state, 0, "E35") == 3 and effective_cost(state, 0, "E04") == 2
    refused(state, 0, {"type": "play_empire", "card": "E35", "orientation": "A"}, "cannot-afford")
    assert ("E04", "A") in empire_plays(state, 0) and ("E35", "A") not in empire_plays(state, 0)
    richer = position(hands=[["E35", "E04", "E10", "E01"], []], rows=[row, []], bully=[1, 0], phase="empire")
    richer, events = step(G, richer, 0, {"type": "play_empire", "card": "E35", "orientation": "A"})
    assert events[0]["cost"] == 3 and richer["pending"]["due"] == 3
    refused(richer, 0, {"type": "pay", "card": "E35"}, "not-in-hand")  # T17: not with itself
    for card in ("E04", "E10", "E01"):
        richer, _ = step(G, richer, 0, {"type": "pay", "card": card})
    assert richer["discard"] == ["E04", "E10", "E01"] and richer["phase"] == "attack"


def test_T17_red_and_green_cards_may_pay_and_invaded_discount_does_not_count():
    row = [entry("E25/B", atk=("R01", "invasion")), "W01"]
    state = position(hands=[["E35", "R02", "G01", "E10", "E01"], []], rows=[row, []], phase="empire")
    assert effective_cost(state, 0, "E35") == 4
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "E35", "orientation": "A"})
    pays = {m["card"] for m in moves_of(state, 0, "pay")}
    assert {"R02", "G01"} <= pays


# -- step 3: attacks ---------------------------------------------------------------------------


def three_player_attack_position(**kw):
    rows = [[], ["E01/A", "E02/A"], ["E10/A", "E17/A"]]
    return position(3, hands=[["R01", "R02", "E30", "E31", "E32"], [], []], rows=rows, phase="attack", **kw)


def test_example_6_T20_one_red_card_per_opponent_per_turn():
    state = three_player_attack_position()
    state, _ = step(
        G, state, 0, {"type": "attack", "card": "R01", "player": 1, "target": "E01", "mode": "raid"}
    )
    state, _ = step(G, state, 0, {"type": "pay", "card": "E30"})
    refused(
        state,
        0,
        {"type": "attack", "card": "R02", "player": 1, "target": "E02", "mode": "raid"},
        "already-attacked",
    )
    state, _ = step(
        G,
        state,
        0,
        {"type": "attack", "card": "R02", "player": 2, "target": "E10", "mode": "invasion"},
    )
    state, _ = step(G, state, 0, {"type": "pay", "card": "E31"})
    assert state["hands"][0] == ["E32"] and state["discard"] == ["E30", "E31"]
    assert state["rows"][1][0]["atk"] == {"id": "R01", "mode": "raid"}
    assert state["rows"][2][0]["atk"] == {"id": "R02", "mode": "invasion"}
    assert state["reds"][0] == 2


def test_example_6_T34_protection_half_can_never_be_targeted():
    state = three_player_attack_position()
    targets = {(m["player"], m["target"]) for m in moves_of(state, 0, "attack")}
    assert (2, "E17") not in targets and (2, "E10") in targets
    refused(
        state,
        0,
        {"type": "attack", "card": "R01", "player": 2, "target": "E17", "mode": "raid"},
        "target-protected",
    )


def test_example_6_T28_finished_player_cannot_be_attacked():
    rows = [["E01/A"], ["E02/A"], ["E03/A"], ["E04/A"]]
    state = position(
        4, hands=[[], [], ["R01", "E30"], []], rows=rows, cur=2, phase="attack", turns=[5, 5, 4, 4]
    )
    assert {m["player"] for m in moves_of(state, 2, "attack")} == {3}
    refused(
        state,
        2,
        {"type": "attack", "card": "R01", "player": 1, "target": "E02", "mode": "raid"},
        "player-finished",
    )


def test_T20_one_attack_card_per_empire_card_and_not_yourself():
    rows = [["E05/A"], [entry("E01/A", atk=("R05", "raid")), entry("E02/A", amb=("G01", 0))]]
    state = position(hands=[["R01", "E30"], []], rows=rows, phase="attack")
    assert moves_of(state, 0, "attack") == []
    refused(
        state,
        0,
        {"type": "attack", "card": "R01", "player": 1, "target": "E01", "mode": "raid"},
        "target-attacked",
    )
    refused(
        state,
        0,
        {"type": "attack", "card": "R01", "player": 1, "target": "E02", "mode": "raid"},
        "target-has-ambassador",
    )
    refused(
        state,
        0,
        {"type": "attack", "card": "R01", "player": 0, "target": "E05", "mode": "raid"},
        "target-self",
    )


def test_T20_attack_needs_an_extra_discard_and_option_one_attack_per_turn():
    state = three_player_attack_position()
    poor = position(3, hands=[["R01"], [], []], rows=state["rows"], phase="attack")
    assert moves_of(poor, 0, "attack") == []
    refused(
        poor,
        0,
        {"type": "attack", "card": "R01", "player": 1, "target": "E01", "mode": "raid"},
        "cannot-afford",
    )
    one = three_player_attack_position(options={"max_attacks_per_turn": 1})
    one, _ = step(G, one, 0, {"type": "attack", "card": "R01", "player": 1, "target": "E01", "mode": "raid"})
    one, _ = step(G, one, 0, {"type": "pay", "card": "E30"})
    refused(
        one,
        0,
        {"type": "attack", "card": "R02", "player": 2, "target": "E10", "mode": "raid"},
        "attack-limit",
    )


def test_T20_raid_removes_symbols_invasion_removes_ability_points_stay():
    raided = position(rows=[[entry("E11/B", atk=("R01", "raid"))], []])
    invaded = position(rows=[[entry("E11/B", atk=("R01", "invasion"))], []])
    clean = position(rows=[["E11/B"], []])
    assert symbol_counts(clean, 0)["culture"] == 1 and symbol_counts(raided, 0)["culture"] == 0
    assert symbol_counts(invaded, 0)["culture"] == 1
    # E11/B carries the Ambassador ability (+1 per ambassador in play): none here, so use +1 card
    plus = position(rows=[[entry("E05/B", atk=("R01", "invasion"))], []])
    assert breakdown(plus)[0]["abilities"] == 0
    assert breakdown(position(rows=[[entry("E05/B", atk=("R01", "raid"))], []]))[0]["abilities"] == 1
    assert breakdown(raided)[0]["cards"] == breakdown(clean)[0]["cards"]


# -- step 4: ambassadors -----------------------------------------------------------------------


def test_example_5_T22_three_ambassadors_cost_0_1_2():
    row = [entry(c, atk=(r, "raid")) for c, r in (("E01/A", "R01"), ("E02/A", "R02"), ("E03/A", "R03"))]
    state = position(
        hands=[["G01", "G02", "G03", "E30", "E31", "E32"], []], rows=[row, []], phase="ambassador"
    )
    state, _ = step(G, state, 0, {"type": "ambassador", "card": "G01", "target": "E01", "end": 0})
    assert state["phase"] == "ambassador"  # the first is free
    state, _ = step(G, state, 0, {"type": "ambassador", "card": "G02", "target": "E02", "end": 0})
    state, _ = step(G, state, 0, {"type": "pay", "card": "E30"})
    state, _ = step(G, state, 0, {"type": "ambassador", "card": "G03", "target": "E03", "end": 1})
    assert state["pending"]["due"] == 2
    state, _ = step(G, state, 0, {"type": "pay", "card": "E31"})
    state, _ = step(G, state, 0, {"type": "pay", "card": "E32"})
    assert state["discard"] == ["E30", "E31", "E32"] and state["hands"][0] == []
    assert sorted(state["out"]) == ["R01", "R02", "R03"]  # red cards leave the game
    assert all(e["atk"] is None and e["amb"] for e in state["rows"][0])


def test_example_5_ambassador_on_unattacked_card_needs_option():
    state = position(hands=[["G01", "E30"], []], rows=[["E01/A"], []], phase="ambassador")
    assert moves_of(state, 0, "ambassador") == []
    refused(
        state,
        0,
        {"type": "ambassador", "card": "G01", "target": "E01", "end": 0},
        "target-not-attacked",
    )
    free = position(
        hands=[["G01", "E30"], []],
        rows=[["E01/A"], []],
        phase="ambassador",
        options={"ambassador_targets": "any_own_card"},
    )
    free, _ = step(G, free, 0, {"type": "ambassador", "card": "G01", "target": "E01", "end": 1})
    assert free["rows"][0][0]["amb"] == {"id": "G01", "end": 1}
    assert symbol_counts(free, 0)["trade"] == 2


def test_T22_ambassadors_only_on_own_cards():
    state = position(
        hands=[["G01", "E30"], []],
        rows=[[], [entry("E01/A", atk=("R01", "raid"))]],
        phase="ambassador",
    )
    refused(state, 0, {"type": "ambassador", "card": "G01", "target": "E01", "end": 0}, "not-your-card")


def test_T23_T24_chosen_end_counts_two_and_card_is_immune_then():
    row = [entry("E15/A", atk=("R01", "raid"))]
    state = position(
        hands=[["G02", "G01", "E30"], ["R02", "E31"]],
        rows=[row, []],
        phase="ambassador",
        options={"ambassador_targets": "any_own_card"},
    )
    state, _ = step(G, state, 0, {"type": "ambassador", "card": "G02", "target": "E15", "end": 1})
    counts = symbol_counts(state, 0)
    assert counts["population"] == 1 + 2 and counts["culture"] == 0  # raid gone, other end inert
    refused(
        state,
        0,
        {"type": "ambassador", "card": "G01", "target": "E15", "end": 0},
        "target-has-ambassador",
    )
    theirs = {**state, "cur": 1, "phase": "attack"}
    refused(
        theirs,
        1,
        {"type": "attack", "card": "R02", "player": 0, "target": "E15", "mode": "raid"},
        "target-has-ambassador",
    )


# -- step 5 and special cases --------------------------------------------------------------------


def test_T25_refill_to_five_then_next_player():
    state = position(hands=[["E30", "E31"], ["E01"]], deck=["E02", "E03", "E04", "E05"], phase="ambassador")
    state, _ = step(G, state, 0, {"type": "end_turn"})
    assert sorted(state["hands"][0]) == ["E02", "E03", "E04", "E30", "E31"]
    assert state["turns"] == [1, 0] and state["cur"] == 1 and state["phase"] == "exchange"


def test_T25_no_hand_limit_more_than_five_draws_nothing():
    hand = ["E30", "E31", "E32", "E34", "E36", "E37", "E38"]
    state = position(hands=[hand, []], phase="ambassador")
    deck = list(state["deck"])
    state, events = step(G, state, 0, {"type": "end_turn"})
    assert state["hands"][0] == hand and state["deck"] == deck
    assert not [e for e in events if e["type"] == "drew"]


def test_example_10_T26_stuck_declaration():
    hand = ["E01", "E04", "E08", "E10", "E16"]
    state = position(hands=[hand, ["E30"]], rows=[["E02/A"], []], deck=["E20", "E21"])
    assert empire_plays(state, 0) == []
    assert {"type": "declare_stuck"} in G.legal_moves(state, 0)
    state, events = step(G, state, 0, {"type": "declare_stuck"})
    assert events[0] == {"type": "stuck", "seat": 0, "cards": hand, "reveal": True}
    assert state["hands"][0] == [] and state["discard"] == hand
    assert state["turns"] == [1, 0] and state["cur"] == 1
    assert state["stuck"] == [True, False]
    for move in (
        {"type": "exchange", "cards": []},
        {"type": "skip_empire"},
        {"type": "end_attacks"},
        {"type": "end_turn"},
    ):
        state, _ = step(G, state, 1, move)
    assert state["cur"] == 0 and len(state["hands"][0]) == 5  # drawn before step 1
    assert state["phase"] == "exchange" and state["stuck"] == [False, False]


def test_T26_stuck_is_refused_while_a_play_exists():
    state = position(hands=[["E03", "E30"], []], rows=[["E02/A"], []])
    assert {"type": "declare_stuck"} not in G.legal_moves(state, 0)
    refused(state, 0, {"type": "declare_stuck"}, "not-stuck")


def test_T26_stuck_after_exchange_and_immediate_redraw_option():
    hand = ["E01", "E04", "E08", "E10", "E16"]
    state = position(
        hands=[hand, []],
        rows=[["E02/A"], []],
        phase="empire",
        options={"stuck_redraw": "immediate"},
    )
    state, _ = step(G, state, 0, {"type": "declare_stuck"})
    assert len(state["hands"][0]) == 5 and state["cur"] == 1 and state["stuck"] == [False, False]


def test_T26_stuck_player_without_a_next_turn_draws_nothing():
    hand = ["E01", "E04", "E08", "E10", "E16"]
    state = position(hands=[hand, []], rows=[["E02/A"], []], turns=[5, 6], cur=0)
    state, events = step(G, state, 0, {"type": "declare_stuck"})
    assert state["over"] and state["hands"][0] == []


def test_T27_empty_deck_reshuffles_the_discard_pile():
    state = position(hands=[["E30", "E31", "E32"], []], phase="ambassador")
    rest = list(state["deck"])
    state = {**state, "deck": ["E01"], "discard": [c for c in rest if c != "E01"]}
    state, events = step(G, state, 0, {"type": "end_turn"})
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["drew", "deck_formed", "drew"]
    assert len(state["hands"][0]) == 5 and state["discard"] == []


def test_T27_both_empty_draws_are_skipped():
    state = position(hands=[["E30"], []], phase="ambassador")
    state = {**state, "deck": [], "discard": [], "out": state["deck"]}
    state, _ = step(G, state, 0, {"type": "end_turn"})
    assert state["hands"][0] == ["E30"] and state["cur"] == 1


def test_T21_red_card_stays_until_an_ambassador_removes_it_from_the_game():
    row = [entry("E01/A", atk=("R01", "invasion"))]
    state = position(hands=[["E30"], ["G01", "E31"]], rows=[[], row], phase="ambassador")
    for seat, move in (
        (0, {"type": "end_turn"}),
        (1, {"type": "exchange", "cards": []}),
        (1, {"type": "skip_empire"}),
        (1, {"type": "end_attacks"}),
    ):
        state, _ = step(G, state, seat, move)
    assert state["rows"][1][0]["atk"] == {"id": "R01", "mode": "invasion"}  # still there
    state, _ = step(G, state, 1, {"type": "ambassador", "card": "G01", "target": "E01", "end": 0})
    assert state["rows"][1][0]["atk"] is None and state["out"] == ["R01"]
    assert "R01" not in state["discard"] and "R01" not in state["deck"]


def test_T35_look_applies_to_the_exchange_draw():
    state = position(
        hands=[["E30", "E31", "E32", "E34", "E36"], []],
        rows=[["E14/B"], []],
        deck=["E01", "E03", "E04"],
    )
    state, events = step(G, state, 0, {"type": "exchange", "cards": ["E30"]})
    assert [e["cards"] for e in events if e["type"] == "drew"] == [["E01", "E03"]]
    state, _ = step(G, state, 0, {"type": "look_bottom", "cards": ["E01"]})
    assert "E03" in state["hands"][0] and state["deck"][-1] == "E01" and state["phase"] == "empire"


def test_describe_and_evaluate_hooks():
    folded, entries = play_random_match(G, 2, "describe", thorough=False)
    for entry_ in entries:
        for event in entry_["events"]:
            text = G.describe(G.redact(event, 0), 0, ["Ana", "Ben"])
            assert isinstance(text, str) and text
    took = {"type": "took", "seat": 0, "from": 1, "card": None}
    assert G.describe(took, None, ["Ana", "Ben"]) == "Ana takes a card from Ben."
    state = folded.state
    scores = G.outcome(state)["scores"]
    assert G.evaluate(state, 0) - G.evaluate(state, 1) == pytest.approx(
        2 * (scores[0] - scores[1]) + 0.25 * (len(state["hands"][0]) - len(state["hands"][1]))
    )
