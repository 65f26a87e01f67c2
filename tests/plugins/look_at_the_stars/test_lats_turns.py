"""LATS-R1 setup, R2 turn structure, X1-X5 randomness, H1-H4 hidden information, options."""

import json

import pytest
from marshmallow import ValidationError

from gameroom.core.decider import Folded, apply_entry, setup_entry
from gameroom.plugin_api import IllegalMove, Rng
from gameroom.plugins.look_at_the_stars.content import CONTENT
from gameroom.plugins.look_at_the_stars.scenario import GAME, new_state, step, with_lines

CONFIRM = {"type": "confirm_turn"}
SKIP = {"type": "skip_card"}


def opening(n, seed="s", **options):
    entry = setup_entry(GAME, n, GAME.load_options(options), seed)
    entry["version"] = 1
    return apply_entry(GAME, Folded(), entry).state, entry["events"]


def test_R1_1_R1_3_X1_X2_distinct_sheets_and_three_piles():
    state, events = opening(8)
    assert sorted(p["sheet"] for p in state["players"]) == list(range(8))
    assert sorted(state["deck"]) == list(range(30))
    assert events[-1] == {
        "type": "card_revealed",
        "turn": 1,
        "pile": 1,
        "card": state["deck"][0],
        "reveal": True,
    }
    for n in (1, 2, 5):
        st, _ = opening(n, seed=f"x{n}", solo_variant=n == 1)
        assert len({p["sheet"] for p in st["players"]}) == n


def test_R1_2_night_deck_composition():
    kinds = [c.kind for c in CONTENT.night_cards]
    assert kinds.count("lines") == 27 and kinds.count("shooting_star") == 3
    assert all(len(c.shape) == 2 for c in CONTENT.night_cards if c.kind == "lines")


def test_R1_4_X3_X4_bonus_cards_defaults_and_choices():
    state, _ = opening(2)
    assert (state["rules"]["point_bonus"], state["rules"]["power_bonus"]) == (2, 3)
    state, _ = opening(2, point_bonus_card=9, power_bonus_card="black_hole")
    assert state["rules"]["point_bonus"] == 8
    assert CONTENT.power_bonus[state["rules"]["power_bonus"]].power == "black_hole"
    basics = {
        opening(2, seed=f"b{i}", power_bonus_card="random_basic")[0]["rules"]["power_bonus"]
        for i in range(40)
    }
    assert basics <= {1, 2, 3, 4, 7} and len(basics) > 1
    alls = {
        opening(2, seed=f"a{i}", power_bonus_card="random_all")[0]["rules"]["power_bonus"] for i in range(60)
    }
    assert alls - {1, 2, 3, 4, 7}
    points = {
        opening(2, seed=f"p{i}", point_bonus_card="random")[0]["rules"]["point_bonus"] for i in range(40)
    }
    assert len(points) > 3 and points <= set(range(10))


def test_R1_5_sheet_contents():
    for sheet in CONTENT.sheets:
        assert len(sheet.stars) == 76 and len(sheet.planets) == 3 and len(sheet.illustration) == 11
        assert sorted(p // 10 for p in sheet.planets) == [2, 5, 8]


def test_options_table_defaults_and_validation():
    opts = GAME.load_options({})
    assert opts == {
        "point_bonus_card": "default",
        "power_bonus_card": "default",
        "allow_mirror": False,
        "point_bonus_counting": "max_disjoint",
        "decline_consumes_all_pending": False,
        "sun_blocks_nova_and_aura": True,
        "live_score": False,
        "solo_variant": False,
    }
    for bad in (
        {"point_bonus_card": 11},
        {"point_bonus_card": True},
        {"power_bonus_card": "comet"},
        {"point_bonus_counting": "best"},
        {"nope": 1},
    ):
        with pytest.raises(ValidationError):
            GAME.load_options(bad)


def test_R2_1_R2_2_simultaneous_turn_and_reveal_after_all_confirm():
    state = new_state(2, sheets=[0, 1], card=2)
    assert GAME.active_seats(state) == [0, 1]
    before_1 = GAME.legal_moves(state, 1)
    state, _ = step(state, 0, {"type": "place_card", "rotation": 0, "dx": 2, "dy": 2})
    assert GAME.legal_moves(state, 1) == before_1  # seats never interfere (R2.2)
    state, events = step(state, 0, CONFIRM)
    assert [e["type"] for e in events] == ["turn_confirmed"]
    assert GAME.active_seats(state) == [1] and GAME.legal_moves(state, 0) == []
    with pytest.raises(IllegalMove) as info:
        GAME.decide(state, 0, SKIP, None)
    assert info.value.code == "already-confirmed"
    state, _ = step(state, 1, SKIP)
    state, events = step(state, 1, CONFIRM)
    assert [e["type"] for e in events] == ["turn_confirmed", "turn_revealed", "card_revealed"]
    revealed = events[1]["drawings"]
    assert revealed[0][0]["type"] == "card_placed" and revealed[1][0]["type"] == "card_skipped"
    assert events[2]["reveal"] is True and events[2]["card"] == state["deck"][1] and events[2]["turn"] == 2
    assert GAME.active_seats(state) == [0, 1] and state["turn"] == 2


def test_R2_2_steps_in_order_draw_resolve_confirm():
    state = new_state(1, sheets=[0], card=2)
    with pytest.raises(IllegalMove) as info:
        GAME.decide(state, 0, CONFIRM, None)
    assert info.value.code == "draw-or-skip-first"
    state, _ = step(state, 0, SKIP)
    with pytest.raises(IllegalMove) as info:
        GAME.decide(state, 0, SKIP, None)
    assert info.value.code == "already-drawn"


def test_R2_2_confirm_waits_for_pending_powers():
    state = with_lines(new_state(1, sheets=[0], card=2, power_bonus_card="planet"), 0, "3,3-4,3")
    state, events = step(state, 0, {"type": "place_card", "rotation": 0, "dx": 3, "dy": 2})
    assert events[0]["pending"]
    with pytest.raises(IllegalMove) as info:
        GAME.decide(state, 0, CONFIRM, None)
    assert info.value.code == "power-pending"


def test_R2_5_game_ends_after_18_cards_with_shared_rank():
    state = new_state(2, sheets=[0, 3], turn=18)
    for seat in (0, 1):
        state, events = step(state, seat, SKIP)
        state, events = step(state, seat, CONFIRM)
    assert events[-1]["type"] == "game_ended"
    result = GAME.outcome(state)
    assert result["scores"] == [0, 0] and result["winners"] == [0, 1]
    assert set(result["breakdown"][0]) >= {"constellations", "planets", "point_bonus", "black_hole"}
    assert GAME.active_seats(state) == []


def test_solo_variant_has_no_winner():
    state = new_state(1, sheets=[0], turn=18)
    state, _ = step(state, 0, SKIP)
    state, _ = step(state, 0, CONFIRM)
    assert GAME.outcome(state)["winners"] == [] and state["rules"]["solo"]


def test_malformed_moves_are_refused_with_codes():
    state = new_state(1, sheets=[0], card=2)
    for move, code in (
        ({}, "unknown-move"),
        ({"type": 3}, "unknown-move"),
        ({"type": "place_card", "rotation": "1", "dx": 0, "dy": 0}, "malformed-move"),
        ({"type": "place_card", "rotation": 9, "dx": 0, "dy": 0}, "bad-rotation"),
        ({"type": "place_card", "rotation": 0, "dx": 40, "dy": 0}, "off-sheet"),
        ({"type": "place_card", "rotation": 0, "dx": 2, "dy": 2, "x": 1}, "malformed-move"),
        ({"type": "use_power", "point": [1, 1]}, "no-power-pending"),
        ({"type": "select_occurrence", "lines": "x"}, "no-power-pending"),
    ):
        with pytest.raises(IllegalMove) as info:
            GAME.decide(state, 0, move, None)
        assert info.value.code == code, move


# -- hidden information -------------------------------------------------------


def _secret_steps():
    state = new_state(3, sheets=[0, 1, 2], card=2)
    state, events = step(state, 0, {"type": "place_card", "rotation": 0, "dx": 2, "dy": 2})
    return state, events


def test_H2_unconfirmed_steps_are_sealed():
    state, events = _secret_steps()
    drawn = events[0]["lines"]
    for viewer in (None, 1, 2):
        view = GAME.view(state, viewer)
        assert (
            view["sheets"][0]["lines"]
            == GAME.view(new_state(3, sheets=[0, 1, 2], card=2), viewer)["sheets"][0]["lines"]
        )
        assert json.dumps(drawn[0]) not in json.dumps(view["sheets"][0])
        assert "pending" not in view["sheets"][0] and "turn_steps" not in view["sheets"][0]
        assert GAME.redact(events[0], viewer) == {"type": "step_taken", "seat": 0}
    own = GAME.view(state, 0)
    assert all(line in own["sheets"][0]["lines"] for line in drawn)
    assert own["sheets"][0]["turn_steps"][0]["type"] == "card_placed"
    assert GAME.redact(events[0], 0) == events[0]


def test_H2_turn_reveal_publishes_everyone_at_once():
    state, events = _secret_steps()
    state, _ = step(state, 0, CONFIRM)
    state, _ = step(state, 1, SKIP)
    state, _ = step(state, 1, CONFIRM)
    assert GAME.view(state, 2)["confirmed"] == [True, True, False]  # H1: who has confirmed
    state, _ = step(state, 2, SKIP)
    state, last = step(state, 2, CONFIRM)
    for viewer in (None, 1, 2):
        red = GAME.redact(last[1], viewer)
        assert red["drawings"][0][0]["lines"] == events[0]["lines"]
        assert all(line in GAME.view(state, viewer)["sheets"][0]["lines"] for line in events[0]["lines"])


def test_H3_deck_order_and_removed_cards_never_shown():
    state, events = opening(4)
    hidden = state["deck"][1:]
    for viewer in (None, 0, 1, 2, 3):
        view = GAME.view(state, viewer)
        assert view["revealed_cards"] == state["deck"][:1] and view["cards_left"] == 17
        assert "deck" not in json.dumps(view)
        assert "deck" not in GAME.redact(events[0], viewer)
        assert view["cards_left_in_pile"] == 5
    assert len(hidden) == 29


def test_H4_live_scores_only_with_option():
    state = with_lines(new_state(2, sheets=[0, 1]), 0, "0,0-1,1", "1,1-1,2", "1,2-1,3")
    assert GAME.view(state, 1)["scores"] is None
    live = with_lines(new_state(2, sheets=[0, 1], live_score=True), 0, "0,0-1,1", "1,1-1,2", "1,2-1,3")
    assert GAME.view(live, 1)["scores"] == [4, 0]


def test_sample_state_keeps_the_view_and_hides_the_deck():
    state, _ = _secret_steps()
    for seat in (0, 1):
        view = GAME.view(state, seat)
        sampled = GAME.sample_state(view, seat, Rng("sample"))
        assert GAME.view(sampled, seat) == view
        assert sampled["deck"][:1] == state["deck"][:1] and sorted(sampled["deck"]) == list(range(30))
    assert (
        GAME.view(GAME.sample_state(GAME.view(state, 1), 1, Rng(1)), 1)["sheets"][0]["lines"]
        == GAME.view(state, 1)["sheets"][0]["lines"]
    )


def test_describe_is_a_sentence():
    _state, events = _secret_steps()
    names = ["Ana", "Ben", "Cy"]
    assert GAME.describe(events[0], 0, names).startswith("Ana drew card 2")
    assert GAME.describe(GAME.redact(events[0], 1), 1, names) == "Ana is drawing."


# -- LATS section 1 and option solo_variant: who may play -------------------------


def test_section_1_one_player_only_with_solo_variant():
    with pytest.raises(IllegalMove) as refused:
        GAME.check_seats(1, GAME.load_options({}))
    assert refused.value.code == "solo-variant-required"
    with pytest.raises(IllegalMove):
        GAME.setup(1, GAME.load_options({}), Rng("solo"))
    GAME.check_seats(1, GAME.load_options({"solo_variant": True}))
    state, _ = opening(1, solo_variant=True)
    assert state["rules"]["solo"] and len(state["players"]) == 1


def test_section_1_two_to_eight_players_without_the_option():
    opts = GAME.load_options({})
    for n in range(2, 9):
        GAME.check_seats(n, opts)
    for n in (0, 9):
        with pytest.raises(IllegalMove):
            GAME.check_seats(n, GAME.load_options({"solo_variant": True}))


def test_solo_variant_with_several_players_changes_nothing():
    """Reading: the option *allows* one player; a match of 2+ players is the normal game."""
    state, _ = opening(2, seed="several", solo_variant=True)
    assert not state["rules"]["solo"]
    state = new_state(2, sheets=[0, 1], turn=18, solo_variant=True)
    for seat in (0, 1):
        state, _ = step(state, seat, SKIP)
        state, _ = step(state, seat, CONFIRM)
    assert GAME.outcome(state)["winners"] == [0, 1]


def test_section_1_a_one_seat_match_is_refused_without_solo_variant(plain_matches):
    from gameroom.errors import ValidationFailed

    with pytest.raises(ValidationFailed) as refused:
        plain_matches.create("look-at-the-stars", [{"name": "Ana"}])
    assert refused.value.code == "bad-seat-count" and "solo_variant" in str(refused.value)
    loaded, tokens = plain_matches.create(
        "look-at-the-stars", [{"name": "Ana"}], options={"solo_variant": True}
    )
    assert list(tokens) == [0] and loaded.folded.state["rules"]["solo"]


def test_H3_a_forks_deal_shuffles_the_unrevealed_and_the_removed_cards_together():
    """H3 hides both the order of the unrevealed cards and which 12 are out of the game, and R1.3
    deals them from one shuffle: a fork deals them anew together; the revealed cards stay."""
    state, _ = opening(2)
    state = {**state, "turn": 7}
    moved_in = set()
    for k in range(5):
        [deal] = GAME.fork_events(state, Rng(f"fork-{k}"))
        dealt = GAME.evolve(state, deal)
        assert dealt["deck"][:7] == state["deck"][:7]
        assert sorted(dealt["deck"]) == sorted(state["deck"]) and dealt["deck"] != state["deck"]
        for seat in (None, 0, 1):
            assert GAME.view(dealt, seat) == GAME.view(state, seat)
            assert GAME.redact(deal, seat) == {"type": "fork_shuffled", "count": 23}
        moved_in |= set(dealt["deck"][7:18]) & set(state["deck"][18:])
    assert moved_in, "a card that was out of the game may be in a pile after the deal"
    assert GAME.fork_events({**state, "turn": 29}, Rng("fork")) == []  # one card left: nothing to deal
