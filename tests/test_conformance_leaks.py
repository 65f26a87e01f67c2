"""The conformance kit's leak check catches a secret carried by an event other than
the one that redacts it (issue 13 item 8: TSE's Info under a hidden discard pile)."""

import pytest
from marshmallow import Schema

from gameroom.plugin_api import Game, GameInfo, GameSchemas, IllegalMove
from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.plugins.tiny_stellar_empires import views as tse_views
from gameroom.testing.conformance import check_no_leaks, check_secrets_stay_hidden


class PeekGame(Game):
    """A toy: two seats in turn take a card from a face-down pile. ``took`` hides the card
    from the other seat; ``used`` (the ability) names it too unless ``careful``."""

    info = GameInfo(
        slug="peek", title="Peek", min_players=2, max_players=2, hidden_information=True, max_steps=10
    )

    def __init__(self, careful: bool, text_leaks: bool = False):
        self.careful, self.text_leaks = careful, text_leaks

    def schemas(self):
        return GameSchemas(options=Schema, move=Schema, view=Schema, event=Schema)

    def setup(self, num_seats, options, rng):
        return [{"type": "dealt", "pile": rng.shuffled(["ace", "king", "queen", "jack"])}]

    def evolve(self, state, event):
        if event["type"] == "dealt":
            return {"pile": list(event["pile"]), "hands": [[], []], "turn": 0}
        if event["type"] == "took":
            hands = [list(h) for h in state["hands"]]
            hands[event["seat"]].append(event["card"])
            return {
                "pile": [c for c in state["pile"] if c != event["card"]],
                "hands": hands,
                "turn": state["turn"] + 1,
            }
        return state

    def active_seats(self, state):
        return [] if state["turn"] >= 2 else [state["turn"]]

    def legal_moves(self, state, seat):
        return (
            [{"type": "peek", "card": c} for c in state["pile"]] if seat in self.active_seats(state) else []
        )

    def decide(self, state, seat, move, rng):
        if move not in self.legal_moves(state, seat):
            raise IllegalMove("not-in-pile")
        return [
            {"type": "used", "seat": seat, "ability": "peek", "card": move["card"]},
            {"type": "took", "seat": seat, "card": move["card"]},
        ]

    def view(self, state, seat):
        return {
            "pile_size": len(state["pile"]),
            "hand": state["hands"][seat] if seat is not None else None,
            "hand_sizes": [len(h) for h in state["hands"]],
        }

    def redact(self, event, seat):
        if event["type"] == "dealt":
            return {"type": "dealt", "pile": None}
        if event["type"] == "took" and seat != event["seat"]:
            return {**event, "card": None}
        if event["type"] == "used" and seat != event["seat"] and self.careful:
            return {**event, "card": None}
        return event

    def describe(self, event, seat, names):
        if self.text_leaks and event["type"] == "took" and seat != event["seat"]:
            return "Someone took a card (it was the ace, the king, the queen or the jack: the jack)."
        return super().describe(event, seat, names)

    def outcome(self, state):
        return {"scores": [0, 0], "winners": [0, 1]} if state["turn"] >= 2 else None


def test_leak_check_fails_on_a_secret_carried_by_another_event():
    with pytest.raises(AssertionError, match="used shows viewer .* which took hides from it"):
        check_no_leaks(PeekGame(careful=False), 2, "peek", differential=False)


def test_leak_check_passes_when_every_event_hides_the_secret():
    assert check_no_leaks(PeekGame(careful=True), 2, "peek", differential=False) > 0


def test_leak_check_fails_on_a_secret_named_in_an_event_text():
    game = PeekGame(careful=True, text_leaks=True)
    events = [
        {"type": "used", "seat": 0, "ability": "peek", "card": "jack"},
        {"type": "took", "seat": 0, "card": "jack"},
    ]
    with pytest.raises(AssertionError, match="the text .* shows viewer 1 the card 'jack'"):
        check_secrets_stay_hidden(game, events, 1, ["A", "B"])
    assert check_secrets_stay_hidden(game, events, 0, ["A", "B"]) == 0  # the taker sees it


def test_a_secret_hidden_in_a_shuffle_may_show_as_a_card_drawn_from_it():
    """A deck's order is hidden from everyone; the seat that draws sees its own cards."""
    game = TinyStellarEmpires()
    events = [
        {"type": "deck_formed", "source": "reshuffle", "deck": ["E01", "E02", "E03"]},
        {"type": "drew", "seat": 1, "cards": ["E01"], "reason": "refill", "reveal": True},
    ]
    assert check_secrets_stay_hidden(game, events, 1, ["A", "B"]) == 3
    assert check_secrets_stay_hidden(game, events, 0, ["A", "B"]) == 4


def test_kit_fails_on_the_old_tse_info_redaction(monkeypatch):
    """TSE-H5 before the fix: ``ability_used`` still named the card Info took."""
    game = TinyStellarEmpires()
    old = tse_views.redact
    monkeypatch.setattr(game, "redact", lambda e, seat: e if e["type"] == "ability_used" else old(e, seat))
    options = {"discard_pile_public": False}
    with pytest.raises(AssertionError, match="ability_used shows viewer .* which info_taken hides from it"):
        for i in range(4):
            for n in (3, 4):
                check_no_leaks(
                    game,
                    n,
                    f"leaks-tiny-stellar-empires-{n}-{i}",
                    max_steps=2400,
                    options=options,
                    differential=False,
                )
