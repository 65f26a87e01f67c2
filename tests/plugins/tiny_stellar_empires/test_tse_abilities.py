"""Scenario tests for the 16 ability kinds (TSE-T19, T29..T44) and example 9 (Look)."""

import pytest

from gameroom.plugin_api import IllegalMove, Rng
from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.plugins.tiny_stellar_empires.rules import effective_cost
from gameroom.plugins.tiny_stellar_empires.scenario import census, entry, position, step
from gameroom.plugins.tiny_stellar_empires.scoring import breakdown

G = TinyStellarEmpires()


def play_and_pay(state, card, orientation, seat=0):
    """Play ``card`` and pay with the first hand cards; returns the state at the ability step."""
    state, _ = step(G, state, seat, {"type": "play_empire", "card": card, "orientation": orientation})
    while state["phase"] == "pay":
        state, _ = step(G, state, seat, {"type": "pay", "card": state["hands"][seat][0]})
    return state


def uses(state, seat=0):
    return [m for m in G.legal_moves(state, seat) if m["type"] == "use_ability"]


# -- yellow hourglass (end game) ---------------------------------------------------------------


def test_T29_plus1():
    assert breakdown(position(rows=[["E05/B"], []]))[0]["abilities"] == 1
    assert breakdown(position(rows=[["E05/A"], []]))[0]["abilities"] == 0  # inactive half


def test_T30_plus2_and_invaded_half_scores_nothing():
    assert breakdown(position(rows=[["E15/B"], []]))[0]["abilities"] == 2
    invaded = position(rows=[[entry("E15/B", atk=("R01", "invasion"))], []])
    assert breakdown(invaded)[0]["abilities"] == 0


def test_example_8_T31_double_next_to_a_wormhole():
    state = position(rows=[["E16/B", "W03"], []])
    part = breakdown(state)[0]
    assert part["cards"] + part["abilities"] - 1 == 4  # E16/B: 2 + 2 (W03 adds its own 1)
    invaded = position(rows=[[entry("E16/B", atk=("R01", "invasion")), "W03"], []])
    assert breakdown(invaded)[0]["abilities"] == 0
    assert breakdown(position(rows=[["E10/A", "E16/B"], []]))[0]["abilities"] == 0


def test_T32_ambassador_bonus_counts_every_ambassador_in_play():
    rows = [
        ["E11/B", entry("E01/A", amb=("G01", 0))],
        [entry("E02/A", amb=("G02", 1)), entry("E03/A", amb=("G03", 0))],
    ]
    assert breakdown(position(rows=rows))[0]["abilities"] == 3


def test_example_3_T33_trade_counts_connections():
    state = position(rows=[["E10/A", "E06/B", "W01"], []])
    assert breakdown(state)[0]["abilities"] == 4  # 2 + 7 = 9 -> 4
    assert breakdown(position(rows=[["E10/A", "E06/B"], []]))[0]["abilities"] == 1  # 2 -> 1


def test_T33_trade_option_own_edges_counts_open_ends():
    state = position(rows=[["E06/B"], []], options={"trade_count": "own_edges"})
    assert breakdown(state)[0]["abilities"] == 2  # 2 + 2 = 4 -> 2
    state = position(rows=[["W01", "E06/B"], []], options={"trade_count": "own_edges"})
    assert breakdown(state)[0]["abilities"] == 4  # 7 + 2 = 9 -> 4


# -- grey hourglass (ongoing) ------------------------------------------------------------------


def test_T34_protection_stops_working_only_when_not_active():
    rows = [
        [],
        ["E17/A", "E28/B", "E36/B"],
    ]  # E28/B and E36/B: half B active, no Protection on E28/B
    state = position(hands=[["R01", "E30"], []], rows=rows, phase="attack")
    targets = {m["target"] for m in G.legal_moves(state, 0) if m["type"] == "attack"}
    assert targets == {"E28"}


def test_example_9_T35_look_draws_extra_and_puts_it_under():
    state = position(
        hands=[["E30", "E31", "E32"], []],
        rows=[["E02/B"], []],
        phase="ambassador",
        deck=["E01", "E03", "E04", "E05"],
    )
    state, events = step(G, state, 0, {"type": "end_turn"})
    assert [e["cards"] for e in events if e["type"] == "drew"] == [["E01", "E03", "E04"]]
    assert state["phase"] == "look" and state["pending"]["count"] == 1
    moves = G.legal_moves(state, 0)
    assert len(moves) == 3 and all(m["type"] == "look_bottom" for m in moves)
    with pytest.raises(IllegalMove):
        G.decide(state, 0, {"type": "look_bottom", "cards": ["E30"]}, Rng(0))
    state, _ = step(G, state, 0, {"type": "look_bottom", "cards": ["E03"]})
    assert len(state["hands"][0]) == 5 and "E03" not in state["hands"][0]
    assert state["deck"][-1] == "E03" and state["deck"][0] == "E05"
    assert state["cur"] == 1 and state["turns"] == [1, 0]


def test_example_9_T35_look_does_not_apply_to_threat():
    hand = ["E30", "E31", "E32", "E34", "E36"]
    state = position(hands=[["E12", "E01", "E03"], hand], rows=[[], ["E02/B"]], phase="empire")
    state = play_and_pay(state, "E12", "B")
    state, _ = step(G, state, 0, {"type": "use_ability", "source": "E12", "player": 1})
    state, events = step(G, state, 1, {"type": "threat_discard", "cards": hand[:4]})
    drawn = [c for e in events if e["type"] == "drew" for c in e["cards"]]
    assert len(drawn) == 4 and state["phase"] == "attack" and len(state["hands"][1]) == 5


def test_T35_look_stacks_and_orders_the_bottom_cards():
    state = position(
        hands=[["E30", "E31", "E32", "E34"], []],
        rows=[["E02/B", "E14/B"], []],
        phase="ambassador",
        deck=["E01", "E03", "E04"],
    )
    state, _ = step(G, state, 0, {"type": "end_turn"})
    assert state["pending"]["count"] == 2 and len(G.legal_moves(state, 0)) == 6  # 3 * 2 orders
    state, _ = step(G, state, 0, {"type": "look_bottom", "cards": ["E04", "E01"]})
    assert state["hands"][0][-1] == "E03" and state["deck"][-2:] == ["E04", "E01"]


def test_T36_discount_stacks_but_never_below_one():
    state = position(rows=[["E04/B", "E25/B", "E33/B"], []])
    assert effective_cost(state, 0, "E35") == 1 and effective_cost(state, 0, "E01") == 1


# -- down arrow (one-shot) -----------------------------------------------------------------------


def test_T19_one_shot_may_be_declined_and_is_then_lost():
    state = position(hands=[["E24", "E30", "E31"], []], phase="empire")
    state = play_and_pay(state, "E24", "A")  # Bully
    assert state["phase"] == "ability"
    assert {"type": "decline_ability", "source": "E24"} in G.legal_moves(state, 0)
    state, _ = step(G, state, 0, {"type": "decline_ability", "source": "E24"})
    assert state["rows"][0][0]["used"] and state["bully"] == [0, 0] and state["phase"] == "attack"


def test_T19_option_any_own_turn_uses_a_one_shot_later_once():
    opts = {"one_shot_timing": "any_own_turn"}
    state = position(hands=[["E24", "E30", "E31"], []], phase="empire", options=opts)
    state = play_and_pay(state, "E24", "A")
    state, _ = step(G, state, 0, {"type": "decline_ability", "source": "E24"})
    assert not state["rows"][0][0]["used"] and uses(state) == []  # not in the same turn
    for seat, move in (
        (0, {"type": "end_attacks"}),
        (0, {"type": "end_turn"}),
        (1, {"type": "exchange", "cards": []}),
        (1, {"type": "skip_empire"}),
        (1, {"type": "end_attacks"}),
        (1, {"type": "end_turn"}),
    ):
        state, _ = step(G, state, seat, move)
    assert uses(state) == [{"type": "use_ability", "source": "E24"}]
    state, _ = step(G, state, 0, {"type": "use_ability", "source": "E24"})
    assert state["bully"] == [0, 1] and state["phase"] == "exchange" and uses(state) == []


def test_T37_take_a_random_card_then_the_victim_draws():
    state = position(hands=[["E07", "E30"], ["E31", "E32"]], phase="empire", deck=["E01"])
    state = play_and_pay(state, "E07", "A")
    assert [m.get("player") for m in uses(state)] == [1]
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E07", "player": 1})
    took = [e for e in events if e["type"] == "took"][0]
    assert took["card"] in ("E31", "E32") and took["reveal"]
    assert state["hands"][0] == [took["card"]] and sorted(state["hands"][1]) == sorted(
        [c for c in ("E31", "E32") if c != took["card"]] + ["E01"]
    )
    assert state["known"] == [[took["card"], 0, 1]]  # TSE-H3: the victim knows where it went


def test_T37_take_from_an_empty_hand_does_nothing():
    state = position(hands=[["E07", "E30"], []], phase="empire")
    state = play_and_pay(state, "E07", "A")
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E07", "player": 1})
    assert [e["type"] for e in events] == ["ability_used", "phase"] and state["hands"][1] == []


def test_T38_discard_two_at_random_then_draw_two():
    state = position(hands=[["E08", "E30"], ["E31", "E32", "E34"]], phase="empire", deck=["E01", "E02"])
    state = play_and_pay(state, "E08", "A")
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E08", "player": 1})
    gone = [e for e in events if e["type"] == "discarded"][0]["cards"]
    assert len(gone) == 2 and set(gone) < {"E31", "E32", "E34"}
    assert state["discard"] == ["E30", *gone]
    assert sorted(state["hands"][1]) == sorted({"E31", "E32", "E34"} - set(gone) | {"E01", "E02"})


def test_T39_thrive_tucks_a_red_card_and_restores_the_empire_card():
    rows = [[], [entry("E01/A", atk=("R04", "raid"))]]
    state = position(hands=[["E21", "E30", "E31"], []], rows=rows, phase="empire")
    state = play_and_pay(state, "E21", "A")
    assert uses(state) == [{"type": "use_ability", "source": "E21", "card": "R04"}]
    state, _ = step(G, state, 0, {"type": "use_ability", "source": "E21", "card": "R04"})
    assert state["tucked"][0] == ["R04"] and state["rows"][1][0]["atk"] is None
    assert breakdown(state)[0]["tucked"] == 1


def test_T39_thrive_without_red_cards_can_only_be_declined():
    state = position(hands=[["E21", "E30", "E31"], []], phase="empire")
    state = play_and_pay(state, "E21", "A")
    assert G.legal_moves(state, 0) == [{"type": "decline_ability", "source": "E21"}]


def test_T40_threat_the_victim_chooses_four_then_draws_four():
    victim = ["E30", "E31", "E32", "E34", "E36"]
    state = position(hands=[["E12", "E01", "E03"], victim], phase="empire")
    state = play_and_pay(state, "E12", "B")
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E12", "player": 1})
    assert G.active_seats(state) == [1] and G.legal_moves(state, 0) == []
    assert len(G.legal_moves(state, 1)) == 5 and any(e.get("reveal") for e in events)
    with pytest.raises(IllegalMove):
        G.decide(state, 1, {"type": "threat_discard", "cards": victim[:3]}, Rng(0))
    state, _ = step(G, state, 1, {"type": "threat_discard", "cards": victim[1:]})
    assert state["discard"][-4:] == victim[1:] and len(state["hands"][1]) == 5
    assert G.active_seats(state) == [0] and state["phase"] == "attack"


def test_T41_info_takes_any_discard_even_a_card_just_paid():
    state = position(hands=[["E03", "E30"], []], phase="empire", discard=["E01", "E02"])
    state = play_and_pay(state, "E03", "B")
    assert {m["card"] for m in uses(state)} == {"E01", "E02", "E30"}
    state, _ = step(G, state, 0, {"type": "use_ability", "source": "E03", "card": "E30"})
    assert state["hands"][0] == ["E30"] and state["discard"] == ["E01", "E02"]


def test_T42_rebirth_shuffles_discard_and_deck_together():
    state = position(hands=[["E09", "E30"], []], phase="empire", discard=["E01", "E02"])
    before = len(state["deck"])
    state = play_and_pay(state, "E09", "A")
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E09"})
    assert state["discard"] == [] and len(state["deck"]) == before + 3
    assert {"E01", "E02", "E30"} <= set(state["deck"])


def test_T43_bully_surcharge_for_the_next_player_expires_after_their_turn():
    state = position(3, hands=[["E01", "E30"], ["E02", "E31", "E32"], []], phase="empire")
    state = play_and_pay(state, "E01", "B")
    state, _ = step(G, state, 0, {"type": "use_ability", "source": "E01"})
    assert state["bully"] == [0, 1, 0]
    assert effective_cost(state, 1, "E02") == 2
    for seat, move in ((0, {"type": "end_attacks"}), (0, {"type": "end_turn"})):
        state, _ = step(G, state, seat, move)
    state, _ = step(G, state, 1, {"type": "exchange", "cards": []})
    state, events = step(G, state, 1, {"type": "play_empire", "card": "E02", "orientation": "A"})
    assert events[0]["cost"] == 2
    for card in state["hands"][1][:2]:
        state, _ = step(G, state, 1, {"type": "pay", "card": card})
    state, _ = step(G, state, 1, {"type": "end_attacks"})
    state, _ = step(G, state, 1, {"type": "end_turn"})
    assert state["bully"] == [0, 0, 0]


def test_T44_loss_three_random_cards_one_discarded_rest_returned():
    victim = ["E30", "E31", "E32", "E34"]
    state = position(hands=[["E13", "E01", "E03"], victim], phase="empire", deck=["E05"])
    state = play_and_pay(state, "E13", "B")
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E13", "player": 1})
    handed = [e for e in events if e["type"] == "loss_handed"][0]["cards"]
    assert len(handed) == 3 and set(handed) < set(victim) and state["phase"] == "loss"
    assert sorted(m["card"] for m in G.legal_moves(state, 0)) == sorted(handed)
    assert census(state)[handed[0]] == 1
    state, _ = step(G, state, 0, {"type": "loss_discard", "card": handed[0]})
    assert state["discard"][-1] == handed[0] and state["hands"][0] == []
    assert sorted(state["hands"][1]) == sorted(set(victim) - {handed[0]} | {"E05"})
    assert sorted(k[0] for k in state["known"]) == sorted(handed[1:])  # TSE-H3
    assert state["phase"] == "attack"
