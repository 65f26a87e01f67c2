"""Sealed cards: a tiny simultaneous game with hidden hands, for testing the platform's AI.

Cards 1..``deck`` are shuffled; each seat is dealt ``hand`` of them (the rest
stay unseen). Every round all seats play one card face down at the same time;
when the last card is down they are revealed and the highest scores its
value. After ``hand`` rounds the highest total wins.

A seat sees its own hand and face-down card, how many cards the others hold,
who has played this round, and everything revealed. Not registered as an
entry point: tests register it with ``extra_plugins``.
"""

from marshmallow import Schema, fields, validate

from ..plugin_api import Game, GameInfo, GameSchemas, IllegalMove, clone, hookimpl


class Options(Schema):
    deck = fields.Integer(load_default=12, validate=validate.Range(4, 60))
    hand = fields.Integer(load_default=3, validate=validate.Range(1, 10))


class Move(Schema):
    type = fields.String(required=True, validate=validate.Equal("play"))
    card = fields.Integer(required=True)


class Loose(Schema):
    class Meta:
        unknown = "include"


class SealedCards(Game):
    info = GameInfo(
        slug="sealed-cards",
        title="Sealed cards",
        min_players=2,
        max_players=4,
        hidden_information=True,
        simultaneous=True,
        max_steps=40,
    )

    def schemas(self):
        return GameSchemas(options=Options, move=Move, view=Loose, event=Loose)

    def setup(self, num_seats, options, rng):
        if num_seats * options["hand"] > options["deck"]:
            raise ValueError("not enough cards")
        deck = rng.shuffled(range(1, options["deck"] + 1))
        hands = [sorted(deck[i * options["hand"] : (i + 1) * options["hand"]]) for i in range(num_seats)]
        return [{"type": "dealt", "hands": hands, "deck": options["deck"]}]

    def evolve(self, state, event):
        if event["type"] == "dealt":
            n = len(event["hands"])
            return {
                "deck": event["deck"],
                "hands": event["hands"],
                "down": [None] * n,
                "scores": [0] * n,
                "revealed": [],
            }
        state = clone(state)
        if event["type"] == "played":
            state["hands"][event["seat"]].remove(event["card"])
            state["down"][event["seat"]] = event["card"]
        elif event["type"] == "revealed":
            cards = event["cards"]
            top = max(cards)
            if cards.count(top) == 1:
                state["scores"][cards.index(top)] += top
            state["revealed"].append(cards)
            state["down"] = [None] * len(cards)
        return state

    def active_seats(self, state):
        return [s for s, card in enumerate(state["down"]) if card is None and state["hands"][s]]

    def legal_moves(self, state, seat):
        if seat not in self.active_seats(state):
            return []
        return [{"type": "play", "card": c} for c in state["hands"][seat]]

    def decide(self, state, seat, move, rng):
        if move.get("type") != "play" or set(move) != {"type", "card"}:
            raise IllegalMove("unknown-move", "The only move is 'play' with a card.")
        if seat not in self.active_seats(state) or move["card"] not in state["hands"][seat]:
            raise IllegalMove("not-in-hand", "Play a card from your hand.")
        events = [{"type": "played", "seat": seat, "card": move["card"]}]
        down = list(state["down"])
        down[seat] = move["card"]
        if all(card is not None for card in down):
            events.append({"type": "revealed", "cards": down, "reveal": True})
        return events

    def view(self, state, seat):
        return {
            "hand": list(state["hands"][seat]) if seat is not None else None,
            "down": state["down"][seat] if seat is not None else None,
            "played": [card is not None for card in state["down"]],
            "hand_sizes": [len(h) for h in state["hands"]],
            "scores": list(state["scores"]),
            "revealed": clone(state["revealed"]),
            "deck": state["deck"],
        }

    def redact(self, event, seat):
        if event["type"] == "dealt":
            return {**event, "hands": [h if s == seat else None for s, h in enumerate(event["hands"])]}
        if event["type"] == "played" and event["seat"] != seat:
            return {k: v for k, v in event.items() if k != "card"}
        return event

    def outcome(self, state):
        if any(state["hands"]) or any(card is not None for card in state["down"]):
            return None
        best = max(state["scores"])
        return {
            "scores": list(state["scores"]),
            "winners": [s for s, v in enumerate(state["scores"]) if v == best],
        }

    def evaluate(self, state, seat):
        scores = state["scores"]
        lead = scores[seat] - max(v for s, v in enumerate(scores) if s != seat)
        return lead + 0.1 * sum(state["hands"][seat])

    def sample_state(self, view, seat, rng):
        seen = set(view["hand"]) | {c for cards in view["revealed"] for c in cards}
        if view["down"] is not None:
            seen.add(view["down"])
        unseen = rng.shuffled(c for c in range(1, view["deck"] + 1) if c not in seen)
        hands, down = [], []
        for s, size in enumerate(view["hand_sizes"]):
            if s == seat:
                hands.append(list(view["hand"]))
                down.append(view["down"])
                continue
            hands.append(sorted(unseen[:size]))
            unseen = unseen[size:]
            down.append(unseen.pop() if view["played"][s] else None)
        return {
            "deck": view["deck"],
            "hands": hands,
            "down": down,
            "scores": list(view["scores"]),
            "revealed": clone(view["revealed"]),
        }


@hookimpl
def gameroom_games():
    return [SealedCards()]
