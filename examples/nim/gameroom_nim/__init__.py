"""Nim, as a gameroom plugin: the smallest complete game.

Players take turns removing 1 or more stones from one pile (at most
``max_take`` when that option is set). Whoever takes the last stone wins
(normal play), or loses with ``misere``. The first player is drawn at random,
to show how a game uses the platform's ``rng``.

Everything a game author needs comes from ``gameroom.plugin_api``.

Rules versions: version 1 wrote ``took`` events with a ``count``; version 2
names it ``stones``. Matches started under version 1 stay replayable because
:meth:`Nim.upcast` translates their events on the way in.
"""

from collections.abc import Sequence
from typing import TypedDict

from marshmallow import Schema, fields, validate

from gameroom.plugin_api import (
    Game,
    GameInfo,
    GameSchemas,
    IllegalMove,
    Rng,
    Seat,
    StrictBoolean,
    StrictInteger,
    hookimpl,
    tagged_variants,
)


class Options(Schema):
    piles = fields.List(
        StrictInteger(validate=validate.Range(1, 20)),
        load_default=lambda: [3, 4, 5],
        validate=validate.Length(1, 8),
    )
    max_take = StrictInteger(load_default=None, allow_none=True, validate=validate.Range(1, 20))
    misere = StrictBoolean(load_default=False)


class Move(Schema):
    type = fields.String(required=True, validate=validate.Equal("take"))
    pile = StrictInteger(required=True)
    count = StrictInteger(required=True)


class Event(Schema):
    type = fields.String(required=True)
    seat = fields.Integer(allow_none=True)
    pile = fields.Integer()
    stones = fields.Integer()
    piles = fields.List(fields.Integer())
    first = fields.Integer()
    max_take = fields.Integer(allow_none=True)
    misere = fields.Boolean()


#: One schema per event type: the OpenAPI document publishes ``NimEvent`` as
#: their union, discriminated on ``type``. (``Move`` allows one type only, so
#: it is its own union.)
EVENTS = tagged_variants(
    Event,
    {"started": ("piles", "first", "max_take", "misere"), "took": ("seat", "pile", "stones")},
    suffix="Event",
)


class View(Schema):
    piles = fields.List(fields.Integer(), required=True)
    turn = fields.Integer(allow_none=True)
    max_take = fields.Integer(allow_none=True)
    misere = fields.Boolean()
    winner = fields.Integer(allow_none=True)


class NimState(TypedDict):
    """The state, which is also every seat's view (nothing is hidden)."""

    piles: list[int]
    turn: int | None  #: the seat to move; ``None`` once the match is over
    max_take: int | None
    misere: bool
    winner: int | None


class Nim(Game):
    info = GameInfo(
        slug="nim",
        title="Nim",
        min_players=2,
        max_players=2,
        rules_version=2,
        hidden_information=False,
        max_steps=8 * 20,
        description="Take stones from one pile; whoever takes the last stone wins.",
    )

    def schemas(self) -> GameSchemas:
        return GameSchemas(options=Options, move=Move, view=View, event=Event, events=EVENTS)

    def setup(self, num_seats: int, options: dict, rng: Rng) -> list[dict]:
        return [
            {
                "type": "started",
                "piles": list(options["piles"]),
                "first": rng.randrange(num_seats),
                "max_take": options["max_take"],
                "misere": options["misere"],
            }
        ]

    def evolve(self, state: NimState | None, event: dict) -> NimState:
        if event["type"] == "started":
            return {
                "piles": event["piles"],
                "turn": event["first"],
                "max_take": event["max_take"],
                "misere": event["misere"],
                "winner": None,
            }
        if state is None:
            raise ValueError("a match of Nim starts with a 'started' event")
        piles = list(state["piles"])
        piles[event["pile"]] -= event["stones"]
        seat, winner = event["seat"], None
        if not any(piles):
            winner = 1 - seat if state["misere"] else seat
        return {**state, "piles": piles, "turn": None if winner is not None else 1 - seat, "winner": winner}

    def active_seats(self, state: NimState) -> list[int]:
        return [] if state["turn"] is None else [state["turn"]]

    def _limit(self, state: NimState, pile: int) -> int:
        return min(state["piles"][pile], state["max_take"] or state["piles"][pile])

    def legal_moves(self, state: NimState, seat: int) -> list[dict]:
        if seat != state["turn"]:
            return []
        return [
            {"type": "take", "pile": p, "count": c}
            for p in range(len(state["piles"]))
            for c in range(1, self._limit(state, p) + 1)
        ]

    def decide(self, state: NimState, seat: int, move: dict, rng: Rng) -> list[dict]:
        if move.get("type") != "take":
            raise IllegalMove("unknown-move", "The only move is 'take'.")
        pile, count = move.get("pile"), move.get("count")
        # type(...) is int: JSON true and false arrive as Python bools, which are ints too
        if type(pile) is not int or not 0 <= pile < len(state["piles"]):
            raise IllegalMove("no-such-pile", "There is no such pile.")
        if type(count) is not int or count < 1:
            raise IllegalMove("take-at-least-one", "Take at least one stone.")
        if count > self._limit(state, pile):
            raise IllegalMove("too-many", f"You may take at most {self._limit(state, pile)} from that pile.")
        return [{"type": "took", "seat": seat, "pile": pile, "stones": count}]

    def view(self, state: NimState, seat: Seat) -> dict:
        return dict(state)  # nothing is hidden in Nim

    def redact(self, event: dict, seat: Seat) -> dict:
        return event

    def outcome(self, state: NimState) -> dict | None:
        if state["winner"] is None:
            return None
        scores = [1 if s == state["winner"] else 0 for s in range(2)]
        return {"scores": scores, "winners": [state["winner"]]}

    def describe(self, event: dict, seat: Seat, names: Sequence[str]) -> str:
        if event["type"] == "started":
            return f"Piles {event['piles']}; {names[event['first']]} starts."
        return f"{names[event['seat']]} took {event['stones']} from pile {event['pile'] + 1}."

    def upcast(self, event: dict, rules_version: int) -> dict:
        """Version 1 called the number of stones taken ``count``."""
        if rules_version < 2 and event["type"] == "took":
            event = {k: v for k, v in event.items() if k != "count"} | {"stones": event["count"]}
        return event

    def evaluate(self, state: NimState, seat: int) -> float:
        """Nim-sum heuristic: a position with nim-sum 0 is lost for the player to move."""
        result = self.outcome(state)
        if result is not None:
            return 1.0 if seat in result["winners"] else 0.0
        nim_sum = 0
        for p in state["piles"]:
            nim_sum ^= p
        to_move_wins = nim_sum != 0
        return 0.75 if (state["turn"] == seat) == to_move_wins else 0.25

    def sample_state(self, view: dict, seat: int, rng: Rng) -> NimState:
        """The view is the whole state: a copy of it."""
        return {
            "piles": list(view["piles"]),
            "turn": view["turn"],
            "max_take": view["max_take"],
            "misere": view["misere"],
            "winner": view["winner"],
        }


@hookimpl
def gameroom_games() -> list[Game]:
    return [Nim()]
