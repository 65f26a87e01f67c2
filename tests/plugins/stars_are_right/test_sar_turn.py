"""The turn (SAR-B2 .. B5, B7, B10 .. B12) and worked examples 5, 10, 11, 12, 13."""

from collections import Counter

import pytest

from gameroom.core.rng import rng_for
from gameroom.plugin_api import IllegalMove
from gameroom.plugins.stars_are_right import StarsAreRight
from gameroom.plugins.stars_are_right.decide import legal_moves
from gameroom.plugins.stars_are_right.scenario import census, position, step, steps
from gameroom.plugins.stars_are_right.scoring import vp

GAME = StarsAreRight()


def refused(state, move, code, seat=0):
    with pytest.raises(IllegalMove) as err:
        step(state, seat, move)
    assert err.value.code == code


def opening(n, options=None, seed="t"):
    state = None
    for event in GAME.setup(n, GAME.load_options(options), rng_for(seed, 1)):
        state = GAME.evolve(state, event)
    return state


# -- SAR-B2 setup --------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_B2_setup_sky_deal_and_first_player(n):
    state = opening(n)
    assert sorted(state["sky"]) == list(range(25))  # B2.1
    assert all(f in (0, 1) for f in state["faces"])
    assert [len(h) for h in state["hands"]] == [5] * n  # B2.2
    assert len(state["deck"]) == 75 - 5 * n and state["discard"] == []
    assert census(state) == Counter(range(1, 76))
    assert state["active"] in range(n) and state["phase"] == "invoke"  # B2.3
    firsts = {opening(n, seed=f"s{i}")["first"] for i in range(40)}
    assert firsts == set(range(n))
    assert {opening(n, {"first_player": "seat_0"}, seed=f"s{i}")["first"] for i in range(10)} == {0}


def test_B2_2_deal_one_card_at_a_time_in_seat_order():
    events = GAME.setup(3, GAME.load_options({}), rng_for("deal", 1))
    order = next(e for e in events if e["type"] == "deck_shuffled")["order"]
    hands = next(e for e in events if e["type"] == "dealt")["hands"]
    assert hands[0] == [order[0], order[3], order[6], order[9], order[12]]
    assert hands[2] == [order[2], order[5], order[8], order[11], order[14]]


# -- SAR-B3 phase order --------------------------------------------------------


def test_B3_1_phases_in_order_and_never_revisited():
    state = position(2, hands=[[34, 36], []])
    refused(state, {"type": "summon", "card": 34, "supporters": []}, "wrong-phase")
    state = steps(state, 0, [{"type": "skip_invoke"}, {"type": "end_services"}])
    assert state["phase"] == "summon"  # B4.3: phase 3 skipped without an invocation
    refused(state, {"type": "invoke", "card": 36}, "wrong-phase")
    state, _ = step(state, 0, {"type": "summon", "card": 34, "supporters": []})
    refused(state, {"type": "push", "line": "row", "index": 0, "direction": "left"}, "wrong-phase")
    refused(state, {"type": "summon", "card": 36, "supporters": []}, "wrong-phase")
    assert legal_moves(state, 1) == []
    refused(state, {"type": "end_turn"}, "not-your-turn", seat=1)


# -- SAR-B4 invoke -------------------------------------------------------------


def test_B4_1_B4_2_invoked_card_gives_its_pool_and_cannot_be_summoned():
    state = position(2, hands=[[34, 61], []])
    state, _ = step(state, 0, {"type": "invoke", "card": 34})  # Byakhee #34, invocation P
    assert state["pool"] == {"P": 1, "S": 0, "F": 0} and state["invoked"] == 34
    assert 34 not in state["hands"][0]
    state = steps(
        state, 0, [{"type": "end_services"}, {"type": "push", "line": "col", "index": 4, "direction": "up"}]
    )
    assert state["discard"] == [34]
    assert all(m.get("card") != 34 for m in legal_moves(state, 0))
    refused(state, {"type": "summon", "card": 34, "supporters": []}, "not-in-hand")


def test_B4_1_any_card_may_be_invoked_B10_6_minions_too():
    state, _ = step(position(2, hands=[[3], []]), 0, {"type": "invoke", "card": 3})
    assert state["pool"] == {"P": 0, "S": 3, "F": 0}
    state, _ = step(position(2, hands=[[62], []]), 0, {"type": "invoke", "card": 62})
    assert state["pool"] == {"P": 0, "S": 0, "F": 1}


def test_B4_3_no_invocation_no_symbol_services_but_minion_powers():
    state = position(2, hands=[[], []], tables=[[1, 67], []])
    state, _ = step(state, 0, {"type": "skip_invoke"})
    moves = legal_moves(state, 0)
    assert not any(m["type"] == "use_service" for m in moves)
    assert any(m["type"] == "use_dhole" for m in moves)
    refused(state, {"type": "use_service", "creature": 1}, "symbol-not-in-pool")


# -- SAR-B5 services -----------------------------------------------------------


def test_example_5_B5_1_to_B5_3_services_and_chaining():
    base = position(2, hands=[[36], []], tables=[[1, 31, 15], []])
    state, _ = step(base, 0, {"type": "invoke", "card": 36})
    assert state["pool"] == {"P": 1, "S": 0, "F": 0}
    state, _ = step(state, 0, {"type": "use_service", "creature": 1})
    assert state["pool"] == {"P": 3, "S": 0, "F": 0}
    state, _ = step(state, 0, {"type": "use_service", "creature": 31})
    assert state["pool"] == {"P": 2, "S": 1, "F": 0}
    state, _ = step(state, 0, {"type": "use_service", "creature": 15})
    assert state["pool"] == {"P": 2, "S": 2, "F": 0} and sorted(state["tapped"]) == [1, 15, 31]
    refused(state, {"type": "use_service", "creature": 1}, "tapped")
    # The other order: Deep Ones first leaves no P for Cthulhu.
    state = steps(base, 0, [{"type": "invoke", "card": 36}, {"type": "use_service", "creature": 31}])
    assert state["pool"] == {"P": 0, "S": 1, "F": 0}
    refused(state, {"type": "use_service", "creature": 1}, "symbol-not-in-pool")
    state, _ = step(state, 0, {"type": "use_service", "creature": 15})
    assert state["pool"] == {"P": 0, "S": 2, "F": 0}


def test_B5_4_services_end_before_the_first_sky_action():
    state = steps(position(2, hands=[[36], []], tables=[[15], []]), 0, [{"type": "invoke", "card": 36}])
    refused(state, {"type": "push", "line": "row", "index": 0, "direction": "left"}, "wrong-phase")
    state = steps(state, 0, [{"type": "end_services"}])
    refused(state, {"type": "use_service", "creature": 15}, "wrong-phase")


def test_example_11_B5_6_B5_8_B10_1_tapped_creatures_cannot_be_given_away():
    state = position(2, hands=[[13], []], tables=[[61, 28, 29], [40]])
    state = steps(state, 0, [{"type": "invoke", "card": 13}, {"type": "use_service", "creature": 28}])
    assert state["pool"] == {"P": 1, "S": 0, "F": 1}
    refused(state, {"type": "use_gug", "minion": 61, "own": 28, "opponent": 1, "theirs": 40}, "tapped")
    assert {"type": "use_gug", "minion": 61, "own": 29, "opponent": 1, "theirs": 40} in legal_moves(state, 0)
    state, _ = step(state, 0, {"type": "use_gug", "minion": 61, "own": 29, "opponent": 1, "theirs": 40})
    assert state["tables"][1] == [29] and sorted(state["tables"][0]) == [28, 40]
    assert state["discard"] == [61]
    assert vp(state, 0) == 2 and vp(state, 1) == 1  # B10.1: 1 <-> 1
    state, _ = step(state, 0, {"type": "use_service", "creature": 40})  # arrived untapped
    assert state["pool"] == {"P": 0, "S": 1, "F": 1}


def test_B10_2_tindaloo_exchanges_greater_servitors():
    state = position(2, hands=[[], []], tables=[[64, 13, 34], [20, 35]], phase="services")
    moves = [m for m in legal_moves(state, 0) if m["type"] in ("use_gug", "use_tindaloo")]
    assert moves == [{"type": "use_tindaloo", "minion": 64, "own": 13, "opponent": 1, "theirs": 20}]
    refused(
        state, {"type": "use_gug", "minion": 64, "own": 34, "opponent": 1, "theirs": 35}, "no-such-minion"
    )
    state, _ = step(state, 0, moves[0])
    assert sorted(state["tables"][0]) == [20, 34] and sorted(state["tables"][1]) == [13, 35]


def test_B5_7_untap_at_end_of_turn_and_only_active_player_taps():
    state = steps(
        position(2, hands=[[36, 1, 2, 3, 5], []], tables=[[15], [16]]),
        0,
        [{"type": "invoke", "card": 36}, {"type": "end_services"}],
    )
    assert state["tapped"] == []
    state = position(2, hands=[[36, 1, 2, 3, 5], [6, 7, 8, 9, 11]], tables=[[1], [16]])
    state = steps(
        state,
        0,
        [{"type": "invoke", "card": 36}, {"type": "use_service", "creature": 1}, {"type": "end_services"}],
    )
    assert state["tapped"] == [1]
    for _ in range(3):
        state, _ = step(state, 0, {"type": "push", "line": "row", "index": 4, "direction": "left"})
    state = steps(state, 0, [{"type": "skip_summon"}, {"type": "end_turn"}])
    assert state["tapped"] == [] and state["active"] == 1


def test_example_12_B5_9_ghouls_apply_on_the_turn_they_arrive():
    state = position(2, hands=[[74, 1, 2, 3], []], phase="summon")
    state, _ = step(state, 0, {"type": "summon", "card": 74, "supporters": []})
    assert state["phase"] == "discard"
    state = steps(state, 0, [{"type": "discard", "card": 1}, {"type": "discard", "card": 2}])
    assert state["discard"] == [1, 2]
    refused(state, {"type": "discard", "card": 3}, "discard-limit")


def test_B11_1_one_discard_without_ghouls():
    state = steps(position(2, hands=[[1, 2, 3], []], phase="discard"), 0, [{"type": "discard", "card": 1}])
    assert legal_moves(state, 0) == [{"type": "end_turn"}]
    refused(state, {"type": "discard", "card": 2}, "discard-limit")


def test_B5_9_summoned_creature_cannot_use_a_service_that_turn():
    state = position(2, hands=[[72], []], phase="summon")
    state, _ = step(state, 0, {"type": "summon", "card": 72, "supporters": []})
    assert not any(m["type"] in ("use_service", "use_dhole") for m in legal_moves(state, 0))


# -- SAR-B7 creature limit, SAR-B12 victory ------------------------------------


def example_10(options=None):
    return position(
        2, hands=[[34, 1, 2, 3, 5], []], tables=[[4, 13, 39, 41, 44, 73], []], phase="summon", options=options
    )


def test_example_10_B7_3_B12_2_creature_limit_and_victory():
    state = example_10()
    assert vp(state, 0) == 9
    state, _ = step(state, 0, {"type": "summon", "card": 34, "supporters": []})
    assert state["phase"] == "limit" and vp(state, 0) == 10
    assert sorted(m["card"] for m in legal_moves(state, 0)) == sorted([4, 13, 39, 41, 44, 73, 34])
    refused(state, {"type": "end_turn"}, "wrong-phase")
    won, _ = step(state, 0, {"type": "discard_creature", "card": 73})
    assert vp(won, 0) == 10 and GAME.outcome(won) is None  # victory only at the end of the turn
    won, events = step(won, 0, {"type": "end_turn"})
    assert events[-1]["type"] == "game_over" and GAME.outcome(won)["winners"] == [0]
    lost, _ = step(state, 0, {"type": "discard_creature", "card": 39})
    lost, _ = step(lost, 0, {"type": "end_turn"})
    assert vp(lost, 0) == 9 and GAME.outcome(lost) is None and lost["active"] == 1
    itself, _ = step(state, 0, {"type": "discard_creature", "card": 34})
    assert 34 in itself["discard"] and len(itself["tables"][0]) == 6


def test_B7_3_option_limit_discard_may_not_choose_new():
    state, _ = step(
        example_10({"limit_discard_may_choose_new": False}),
        0,
        {"type": "summon", "card": 34, "supporters": []},
    )
    assert 34 not in [m["card"] for m in legal_moves(state, 0)]
    refused(state, {"type": "discard_creature", "card": 34}, "keep-new-creature")


def test_B7_5_summoning_is_voluntary_B7_2_no_invocation_needed():
    state = steps(position(2, hands=[[34], []]), 0, [{"type": "skip_invoke"}, {"type": "end_services"}])
    assert {"type": "summon", "card": 34, "supporters": []} in legal_moves(state, 0)
    assert {"type": "skip_summon"} in legal_moves(state, 0)


def test_B12_3_B12_4_turn_limit_ends_after_full_rounds_with_shared_win():
    state = position(
        2,
        hands=[[1, 2, 3, 5, 6], [7, 8, 9, 10, 11]],
        tables=[[34], [35]],
        phase="discard",
        options={"turn_limit": 1},
    )
    state, _ = step(state, 0, {"type": "end_turn"})
    assert GAME.outcome(state) is None
    state = steps(
        state,
        1,
        [{"type": "skip_invoke"}, {"type": "end_services"}, {"type": "skip_summon"}, {"type": "end_turn"}],
    )
    result = GAME.outcome(state)
    assert result["winners"] == [0, 1] and result["scores"] == [1, 1]
    assert result["breakdown"][0]["lesser_servitor"] == 1


# -- SAR-B10 minion powers -----------------------------------------------------


def test_example_13_B10_3_dhole_on_the_draw_pile():
    deck = [2, 50, 20, 11]
    state = position(
        2,
        hands=[[], []],
        tables=[[67], []],
        deck=deck,
        discard=[c for c in range(1, 76) if c not in deck + [67]],
    )
    state, events = step(state, 0, {"type": "skip_invoke"})
    state, events = step(state, 0, {"type": "use_dhole", "minion": 67, "pile": "draw"})
    assert events[0]["look"] == [2, 11, 20, 50] and events[0]["reveal"] is True
    assert state["discard"][-1] == 67 and state["phase"] == "dhole"
    assert GAME.view(state, 0)["dhole"]["look"] == [2, 11, 20, 50]
    assert "look" not in GAME.view(state, 1)["dhole"]
    assert "look" not in GAME.redact(events[0], 1)
    assert [m["card"] for m in legal_moves(state, 0)] == [2, 11, 20, 50]
    state, events = step(state, 0, {"type": "dhole_take", "card": 2})
    assert state["hands"][0] == [2] and sorted(state["deck"]) == [11, 20, 50]
    assert sorted(events[0]["order"]) == [11, 20, 50]
    other = GAME.redact(events[0], 1)
    assert "card" not in other and "order" not in other
    assert GAME.describe(other, 1, ["A", "B"]) == "A took 1 card from the draw pile."
    assert state["phase"] == "services"


def test_B10_3_dhole_on_the_discard_pile_may_take_itself():
    state = position(2, hands=[[], []], tables=[[68], []], phase="services", discard=[5])
    assert {"type": "use_dhole", "minion": 68, "pile": "discard"} in legal_moves(state, 0)
    state, _ = step(state, 0, {"type": "use_dhole", "minion": 68, "pile": "discard"})
    assert sorted(m["card"] for m in legal_moves(state, 0)) == [5, 68]
    state, _ = step(state, 0, {"type": "dhole_take", "card": 68})
    assert state["hands"][0] == [68] and state["discard"] == [5]


def test_B10_4_ghast_draws_to_six_B11_2_no_forced_discard():
    state = position(2, hands=[[1, 2], []], tables=[[70, 71], []], phase="discard")
    state, events = step(state, 0, {"type": "end_turn"})
    assert len(state["hands"][0]) == 6  # several Ghasts do not add up
    big = position(2, hands=[[1, 2, 3, 4, 5, 6, 7], []], phase="discard")
    big, events = step(big, 0, {"type": "end_turn"})
    assert len(big["hands"][0]) == 7 and not any(e["type"] == "drew" for e in events)


def test_B11_3_reshuffle_discard_pile_when_the_draw_pile_runs_out():
    state = position(2, hands=[[1, 2], []], phase="discard", deck=[3, 4], discard=[c for c in range(5, 76)])
    state, events = step(state, 0, {"type": "end_turn"})
    assert [e["type"] for e in events[:3]] == ["drew", "reshuffled", "drew"]
    assert events[0]["cards"] == [3, 4] and len(events[2]["cards"]) == 1
    assert len(state["hands"][0]) == 5 and state["discard"] == []
    assert len(state["deck"]) == 70 and census(state) == Counter(range(1, 76))
    assert "order" not in GAME.redact(events[1], 0)
