"""Hidden information (TSE-H1..H6): views, redacted events and sampling."""

import json

from gameroom.core.decider import fold
from gameroom.plugin_api import Rng
from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.plugins.tiny_stellar_empires.scenario import position, step
from gameroom.testing.conformance import play_random_match

G = TinyStellarEmpires()


def public_text(view):
    """The view without the (public) card catalogue."""
    return json.dumps({k: v for k, v in view.items() if k != "set"})


def ids_in(text, cards):
    return [c for c in cards if f'"{c}"' in text]


def test_H2_H4_views_never_show_other_hands_deck_order_or_homeworlds():
    _, entries = play_random_match(G, 4, "hidden-views", thorough=False)
    for cut in range(5, len(entries), 7):
        state = fold(G, entries[:cut]).state
        for viewer in [None, 0, 1, 2, 3]:
            view = G.view(state, viewer)
            text = public_text(view)
            known = {c for c, _ in view["known"]}
            for p in range(4):
                if p != viewer:
                    assert not ids_in(text, set(state["hands"][p]) - known)
                    assert state["homeworlds"][p] not in text
            assert not ids_in(text, set(state["deck"]) - set(view["deck_bottom_mine"]))
            assert not ids_in(text, state["removed"])
            assert "deck" not in view


def test_H2_draws_and_look_bottom_are_private_to_the_drawer():
    state = position(
        hands=[["E30", "E31", "E32"], []],
        rows=[["E02/B"], []],
        phase="ambassador",
        deck=["E01", "E03", "E04"],
    )
    state, events = step(G, state, 0, {"type": "end_turn"})
    drew = [e for e in events if e["type"] == "drew"][0]
    assert G.redact(drew, 0)["cards"] == ["E01", "E03", "E04"]
    assert G.redact(drew, 1) == {**drew, "cards": None, "count": 3}
    assert G.redact(drew, None)["cards"] is None
    assert G.view(state, 1)["pending"]["drawn"] is None
    assert G.view(state, 1)["pending"]["drawn_count"] == 3
    state, events = step(G, state, 0, {"type": "look_bottom", "cards": ["E04"]})
    looked = events[0]
    assert G.redact(looked, 1)["cards"] is None and G.redact(looked, 0)["cards"] == ["E04"]
    assert G.view(state, 0)["deck_bottom_mine"] == ["E04"]
    assert G.view(state, 1)["deck_bottom_mine"] == []


def test_H3_take_is_seen_by_taker_and_victim_only():
    state = position(3, hands=[["E07", "E30"], ["E31", "E32"], ["E34"]], phase="empire")
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "E07", "orientation": "A"})
    state, _ = step(G, state, 0, {"type": "pay", "card": "E30"})
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E07", "player": 1})
    took = [e for e in events if e["type"] == "took"][0]
    assert G.redact(took, 0)["card"] == took["card"] == G.redact(took, 1)["card"]
    assert G.redact(took, 2)["card"] is None and G.redact(took, None)["card"] is None
    assert G.view(state, 1)["known"] == [[took["card"], 0]]
    assert took["card"] not in public_text(G.view(state, 2))


def test_H3_loss_cards_are_known_to_both_players_only():
    victim = ["E30", "E31", "E32", "E34"]
    state = position(3, hands=[["E13", "E01", "E03"], victim, ["E36"]], phase="empire")
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "E13", "orientation": "B"})
    for card in ("E01", "E03"):
        state, _ = step(G, state, 0, {"type": "pay", "card": card})
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E13", "player": 1})
    handed = [e for e in events if e["type"] == "loss_handed"][0]
    assert G.redact(handed, 1)["cards"] == handed["cards"] and G.redact(handed, 2)["cards"] is None
    assert G.view(state, 1)["pending"]["cards"] == handed["cards"]
    assert G.view(state, 2)["pending"]["cards"] is None
    for seat in (0, 1, 2):  # sampling respects what each seat knows
        sampled = G.sample_state(G.view(state, seat), seat, Rng(seat))
        assert G.view(sampled, seat) == G.view(state, seat)
    state, events = step(G, state, 0, {"type": "loss_discard", "card": handed["cards"][0]})
    back = [e for e in events if e["type"] == "loss_returned"][0]
    assert G.redact(back, 1)["cards"] == back["cards"] and G.redact(back, 2)["cards"] is None
    assert sorted(c for c, _ in G.view(state, 0)["known"]) == sorted(back["cards"])
    assert G.view(state, 2)["known"] == []


def test_H1_stuck_hand_and_discards_are_public():
    hand = ["E01", "E04", "E08", "E10", "E16"]
    state = position(hands=[hand, []], rows=[["E02/A"], []])
    state, events = step(G, state, 0, {"type": "declare_stuck"})
    assert G.redact(events[0], 1)["cards"] == hand
    assert G.view(state, 1)["discard"] == hand and G.view(state, None)["discard"] == hand


def test_H5_hidden_discard_pile_shows_only_the_top_but_info_shows_all_to_its_user():
    opts = {"discard_pile_public": False}
    state = position(hands=[["E03", "E30"], []], phase="empire", discard=["E01", "E02"], options=opts)
    assert G.view(state, 1)["discard"] is None and G.view(state, 1)["discard_top"] == "E02"
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "E03", "orientation": "B"})
    state, _ = step(G, state, 0, {"type": "pay", "card": "E30"})
    assert G.view(state, 0)["discard"] == ["E01", "E02", "E30"]
    assert G.view(state, 1)["discard"] is None
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E03", "card": "E01"})
    taken = [e for e in events if e["type"] == "info_taken"][0]
    assert taken["reveal"] and G.redact(taken, 1)["card"] is None and G.redact(taken, 0)["card"] == "E01"
    sampled = G.sample_state(G.view(state, 1), 1, Rng(3))
    assert G.view(sampled, 1) == G.view(state, 1)


def test_H6_homeworlds_are_revealed_at_final_scoring():
    folded, entries = play_random_match(G, 3, "reveal", thorough=False)
    view = G.view(folded.state, None)
    assert view["homeworlds"] == folded.state["homeworlds"] and view["outcome"]["breakdown"]
    over = [e for e in entries[-1]["events"] if e["type"] == "game_over"][0]
    assert over["reveal"] and G.redact(over, None)["homeworlds"] == folded.state["homeworlds"]
    dealt = entries[0]["events"][1]
    assert G.redact(dealt, 1)["homeworlds"] == [None, folded.state["homeworlds"][1], None]
    assert G.redact(dealt, None)["removed"] is None


def test_H4_deck_order_is_hidden_from_everyone_in_events():
    _, entries = play_random_match(G, 2, "deck-order", thorough=False)
    for entry_ in entries:
        for event in entry_["events"]:
            if event["type"] == "deck_formed":
                for viewer in (None, 0, 1):
                    assert G.redact(event, viewer)["deck"] is None


def _info_step(discard_pile_public):
    """Seat 0 plays Quillon (E03, Info on side B), pays E30, and takes E01 from the pile."""
    state = position(
        hands=[["E03", "E30"], []],
        phase="empire",
        discard=["E01", "E02"],
        options={"discard_pile_public": discard_pile_public},
    )
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "E03", "orientation": "B"})
    state, _ = step(G, state, 0, {"type": "pay", "card": "E30"})
    return step(G, state, 0, {"type": "use_ability", "source": "E03", "card": "E01"})


def test_H5_the_card_info_takes_from_a_hidden_pile_reaches_no_other_seat():
    """Every path an entry takes to a client (history, stream, export, move response)
    goes through redact_entry: events and their text."""
    from gameroom.core.matches import redact_entry

    state, events = _info_step(False)
    entry = {
        "version": 9,
        "kind": "move",
        "seat": 0,
        "events": events,
        "move": {"type": "use_ability", "source": "E03", "card": "E01"},
    }
    names = ["Ana", "Bo"]
    used = [e for e in events if e["type"] == "ability_used"][0]
    assert used["card"] == "E01"  # the log keeps it: the user chose it
    for viewer in (1, None):
        shown = redact_entry(G, entry, viewer, names)
        assert "E01" not in json.dumps(shown), shown
        assert "move" not in shown
        assert G.redact(used, viewer) == {**used, "card": None}
        assert "E01" not in public_text(G.view(state, viewer))
    mine = redact_entry(G, entry, 0, names)
    assert "E01" in json.dumps(mine["events"]) and any("E01" in t for t in mine["text"])
    # Once the match is over, its whole history is public (architecture section 5).
    assert "E01" in json.dumps(redact_entry(G, entry, 1, names, public=True))


def test_H1_with_a_public_pile_everyone_sees_the_card_info_takes():
    from gameroom.core.matches import redact_entry

    _state, events = _info_step(True)
    entry = {"version": 9, "kind": "move", "seat": 0, "events": events}
    for viewer in (1, None):
        shown = redact_entry(G, entry, viewer, ["Ana", "Bo"])
        taken = [e for e in shown["events"] if e["type"] == "info_taken"][0]
        used = [e for e in shown["events"] if e["type"] == "ability_used"][0]
        assert taken["card"] == used["card"] == "E01"
        assert any("takes E01 from the discard pile" in t for t in shown["text"])


def test_T19_H5_a_deferred_info_with_a_hidden_pile_shows_the_pile_and_card_to_its_user_only():
    """Options one_shot_timing = any_own_turn and discard_pile_public = false together."""
    from gameroom.core.matches import redact_entry

    opts = {"one_shot_timing": "any_own_turn", "discard_pile_public": False}
    state = position(hands=[["E03", "E30"], []], phase="empire", discard=["E01", "E02"], options=opts)
    state, _ = step(G, state, 0, {"type": "play_empire", "card": "E03", "orientation": "B"})
    state, _ = step(G, state, 0, {"type": "pay", "card": "E30"})
    state, _ = step(G, state, 0, {"type": "decline_ability", "source": "E03"})
    for seat, move in (
        (0, {"type": "end_attacks"}),
        (0, {"type": "end_turn"}),
        (1, {"type": "exchange", "cards": []}),
        (1, {"type": "skip_empire"}),
        (1, {"type": "end_attacks"}),
        (1, {"type": "end_turn"}),
    ):
        state, _ = step(G, state, seat, move)
    # Seat 0's next turn: the deferred Info lets it (and only it) look through the pile.
    assert G.view(state, 0)["discard"] is not None and "E01" in G.view(state, 0)["discard"]
    assert G.view(state, 1)["discard"] is None and G.view(state, None)["discard"] is None
    uses = [m for m in G.legal_moves(state, 0) if m["type"] == "use_ability"]
    assert {"type": "use_ability", "source": "E03", "card": "E01"} in uses
    state, events = step(G, state, 0, {"type": "use_ability", "source": "E03", "card": "E01"})
    entry = {"version": 20, "kind": "move", "seat": 0, "events": events}
    for viewer in (1, None):
        assert "E01" not in json.dumps(redact_entry(G, entry, viewer, ["Ana", "Bo"]))
        assert "E01" not in public_text(G.view(state, viewer))
    assert "E01" in G.view(state, 0)["hand"]


def test_H2_H4_a_forks_deal_shuffles_the_deck_and_leaves_look_cards_in_place():
    """A fork deals the deck anew (H4); the cards a seat put under it with Look (H2) are known
    to that seat, in place: they stay there."""
    state = position(
        hands=[["E30", "E31", "E32"], []],
        rows=[["E02/B"], []],
        phase="ambassador",
        deck=["E01", "E03", "E04"],
    )
    state, _ = step(G, state, 0, {"type": "end_turn"})
    state, _ = step(G, state, 0, {"type": "look_bottom", "cards": ["E04"]})
    assert state["deck"][-1] == "E04" and len(state["deck"]) > 20
    [deal] = G.fork_events(state, Rng("fork"))
    assert deal["type"] == "fork_shuffled" and deal["deck"][-1] == "E04"
    assert sorted(deal["deck"]) == sorted(state["deck"]) and deal["deck"] != state["deck"]
    dealt = G.evolve(state, deal)
    assert dealt["deck"] == deal["deck"] and dealt["bottom"] == state["bottom"]
    assert dealt["homeworlds"] == state["homeworlds"] and dealt["removed"] == state["removed"]
    for viewer in (None, 0, 1):
        assert G.view(dealt, viewer) == G.view(state, viewer)
        assert G.redact(deal, viewer) == {"type": "fork_shuffled", "deck": None, "size": len(state["deck"])}
    assert G.view(dealt, 0)["deck_bottom_mine"] == ["E04"]
    assert G.fork_events({**state, "over": True}, Rng("fork")) == []
