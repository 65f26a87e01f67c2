"""Dice race: a tiny game with a mid-game random draw, for testing the platform.

Each turn the active seat either ``step``s (1 square, deterministic) or
``roll``s (1–6 squares, drawn from the platform's rng). First to reach
``goal`` wins. Rolls are exactly the undo barriers the platform must respect.
Not registered as an entry point: tests register it with ``extra_plugins``.
"""

from marshmallow import Schema, fields, validate

from ..plugin_api import Game, GameInfo, GameSchemas, IllegalMove, hookimpl


class Options(Schema):
    goal = fields.Integer(load_default=12, validate=validate.Range(2, 100))


class Move(Schema):
    type = fields.String(required=True, validate=validate.OneOf(["step", "roll"]))


class Event(Schema):
    type = fields.String(required=True)
    seat = fields.Integer(allow_none=True)
    squares = fields.Integer()
    players = fields.Integer()
    goal = fields.Integer()


class View(Schema):
    positions = fields.List(fields.Integer(), required=True)
    turn = fields.Integer(allow_none=True)
    goal = fields.Integer(required=True)


class DiceRace(Game):
    info = GameInfo(slug="dice-race", title="Dice race", min_players=2, max_players=4, max_steps=400)

    def schemas(self):
        return GameSchemas(options=Options, move=Move, view=View, event=Event)

    def setup(self, num_seats, options, rng):
        return [{"type": "started", "players": num_seats, "goal": options["goal"]}]

    def evolve(self, state, event):
        if event["type"] == "started":
            return {"positions": [0] * event["players"], "turn": 0, "goal": event["goal"]}
        positions = list(state["positions"])
        positions[event["seat"]] += event["squares"]
        done = positions[event["seat"]] >= state["goal"]
        return {
            **state,
            "positions": positions,
            "turn": None if done else (event["seat"] + 1) % len(positions),
        }

    def active_seats(self, state):
        return [] if state["turn"] is None else [state["turn"]]

    def legal_moves(self, state, seat):
        return [{"type": "step"}, {"type": "roll"}] if seat == state["turn"] else []

    def decide(self, state, seat, move, rng):
        if move.get("type") == "step":
            return [{"type": "moved", "seat": seat, "squares": 1}]
        if move.get("type") == "roll":
            return [{"type": "rolled", "seat": seat, "squares": rng.randint(1, 6)}]
        raise IllegalMove("unknown-move", "Step or roll.")

    def view(self, state, seat):
        return dict(state)

    def redact(self, event, seat):
        return event

    def outcome(self, state):
        if state["turn"] is not None:
            return None
        best = max(state["positions"])
        winners = [s for s, p in enumerate(state["positions"]) if p == best]
        return {"scores": list(state["positions"]), "winners": winners}

    def sample_state(self, view, seat, rng):
        return dict(view)


@hookimpl
def gameroom_games():
    return [DiceRace()]
