"""Hidden information (SAR-H1 .. H5): views, redacted events, sampling."""

import json

from gameroom.core.rng import rng_for
from gameroom.plugins.stars_are_right import StarsAreRight
from gameroom.plugins.stars_are_right.scenario import position, step
from gameroom.testing.conformance import play_random_match

GAME = StarsAreRight()


def _ids(data) -> set:
    text = json.dumps(data)
    return {
        int(tok)
        for tok in text.replace("[", " ").replace("]", " ").replace(",", " ").split()
        if tok.isdigit()
    }


def test_H1_H2_views_show_own_hand_only():
    hands = [[31, 32, 33], [40, 41, 42], [57, 58, 59]]  # ids no other view number can take
    state = position(3, hands=hands, tables=[[34], [], []], tapped=[34], discard=[5])
    for seat in (None, 0, 1, 2):
        view = GAME.view(state, seat)
        assert view["creatures"] == [[34], [], []] and view["tapped"] == [34]
        assert view["discard"] == [5] and view["hand_sizes"] == [3, 3, 3]
        assert view["deck_size"] == 75 - 9 - 2 and "deck" not in view
        visible_ids = _ids(view)
        for other in range(3):
            if other != seat:
                assert not set(hands[other]) & visible_ids
        assert state["deck"] not in view.values() and sorted(state["deck"]) not in view.values()
        assert view["hand"] == (hands[seat] if seat is not None else None)


def test_H2_H4_redacted_events_never_leak_hands_or_deck_order():
    _folded, entries = play_random_match(GAME, 3, "hidden-1", thorough=False, options=GAME.playout_options)
    for entry in entries:
        for event in entry["events"]:
            for seat in (None, 0, 1, 2):
                red = GAME.redact(event, seat)
                assert "order" not in red
                if event["type"] == "drew" and event["seat"] != seat:
                    assert "cards" not in red and red["count"] == len(event["cards"])
                if event["type"] == "dealt":
                    for s, hand in enumerate(red["hands"]):
                        assert (hand is not None) == (s == seat)


def test_H3_dhole_look_only_for_its_user_in_card_id_order():
    state = position(
        2,
        hands=[[], [3]],
        tables=[[67], []],
        phase="services",
        deck=[50, 9, 31],
        discard=[c for c in range(1, 76) if c not in (50, 9, 31, 67, 3)],
    )
    state, events = step(state, 0, {"type": "use_dhole", "minion": 67, "pile": "draw"})
    assert GAME.view(state, 0)["dhole"] == {"pile": "draw", "look": [9, 31, 50]}
    assert GAME.view(state, 1)["dhole"] == {"pile": "draw"}
    assert GAME.view(state, None)["dhole"] == {"pile": "draw"}
    assert GAME.redact(events[0], 0)["look"] == [9, 31, 50]
    # Sampling from the user's view keeps exactly the looked-at cards in the pile.
    sampled = GAME.sample_state(GAME.view(state, 0), 0, rng_for("x", 1))
    assert sorted(sampled["deck"]) == [9, 31, 50]
    assert GAME.view(sampled, 0) == GAME.view(state, 0)
    sampled = GAME.sample_state(GAME.view(state, 1), 1, rng_for("x", 2))
    assert GAME.view(sampled, 1) == GAME.view(state, 1)


def test_H5_sampled_states_keep_the_view_and_hide_the_rest():
    folded, _ = play_random_match(GAME, 4, "hidden-2", thorough=False, options=GAME.playout_options)
    state = folded.state
    for seat in range(4):
        view = GAME.view(state, seat)
        sampled = GAME.sample_state(view, seat, rng_for("s", seat))
        assert GAME.view(sampled, seat) == view
        hidden = {c for s in range(4) if s != seat for c in state["hands"][s]} | set(state["deck"])
        resampled = {c for s in range(4) if s != seat for c in sampled["hands"][s]} | set(sampled["deck"])
        assert resampled == hidden


def test_H3_H4_a_forks_deal_shuffles_the_draw_pile_and_keeps_a_dhole_look():
    """A fork deals the draw pile anew (H4); a Dhole look in progress shows the pile in card-id
    order (H3), which the shuffle leaves as it was, and the take still takes from it."""
    pile = [c for c in range(1, 76) if c not in (67, 3)][:40]
    state = position(2, hands=[[], [3]], tables=[[67], []], phase="services", deck=pile)
    state, _ = step(state, 0, {"type": "use_dhole", "minion": 67, "pile": "draw"})
    [deal] = GAME.fork_events(state, rng_for("fork", 5, "deal"))
    assert deal == {"type": "fork_shuffled", "count": 40, "order": deal["order"]}
    assert sorted(deal["order"]) == sorted(state["deck"]) and deal["order"] != state["deck"]
    dealt = GAME.evolve(state, deal)
    assert dealt["deck"] == deal["order"] and dealt["hands"] == state["hands"]
    for seat in (None, 0, 1):
        assert GAME.view(dealt, seat) == GAME.view(state, seat)
        assert GAME.redact(deal, seat) == {"type": "fork_shuffled", "count": 40}
    assert GAME.describe(GAME.redact(deal, 1), 1, ["A", "B"]) == (
        "This match is a fork: its draw pile (40 cards) is shuffled anew."
    )
    taken, _ = step(dealt, 0, {"type": "dhole_take", "card": pile[7]})
    assert pile[7] in taken["hands"][0] and sorted(taken["deck"]) == sorted(c for c in pile if c != pile[7])


def test_a_fork_at_the_end_or_with_a_pile_of_one_deals_nothing():
    state = position(2, deck=[9])
    assert GAME.fork_events(state, rng_for("fork", 2, "deal")) == []
    over = {**position(2), "winners": [0], "phase": "over"}
    assert GAME.fork_events(over, rng_for("fork", 2, "deal")) == []
