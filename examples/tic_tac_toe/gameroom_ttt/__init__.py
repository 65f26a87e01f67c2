"""Tic-tac-toe, as a gameroom plugin: the game the peer benchmark plays.

Two seats mark cells 0..8 of a 3 x 3 grid in turn, seat 0 first. Three of
one seat's marks in a row, a column or a diagonal (the 8 lines) win; a full
grid with no line is a draw. Nothing is hidden and nothing is random, so the
view is the state. The one move is ``{"type": "mark", "cell": i}``.

Like ``examples/nim``, it imports nothing from gameroom but ``gameroom.plugin_api``.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from marshmallow import Schema, fields, validate

from gameroom.plugin_api import (
    Game,
    GameInfo,
    GameSchemas,
    IllegalMove,
    Rng,
    Seat,
    StrictInteger,
    hookimpl,
    tagged_variants,
)

#: The 8 lines: 3 rows, 3 columns, 2 diagonals (cells numbered row by row).
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class Options(Schema):
    """No options."""


class Move(Schema):
    type = fields.String(required=True, validate=validate.Equal("mark"))
    cell = StrictInteger(required=True, validate=validate.Range(0, 8))


class Event(Schema):
    type = fields.String(required=True)
    seat = fields.Integer()
    cell = fields.Integer()


#: One schema per event type: the OpenAPI document publishes the game's event as
#: their union, discriminated on ``type``.
EVENTS = tagged_variants(Event, {"started": (), "marked": ("seat", "cell")}, suffix="Event")


class View(Schema):
    cells = fields.List(
        fields.Integer(allow_none=True),
        required=True,
        metadata={"description": "9 cells, row by row: null, or the seat that marked it"},
    )
    turn = fields.Integer(allow_none=True, required=True)
    winner = fields.Integer(allow_none=True, required=True)
    line = fields.List(
        fields.Integer(), allow_none=True, required=True, metadata={"description": "the winning line's cells"}
    )
    draw = fields.Boolean(required=True)


class TicTacToeState(TypedDict):
    """The state, which is also every seat's view (nothing is hidden)."""

    cells: list[int | None]  #: 9 cells, row by row: ``None``, or the seat that marked it
    turn: int | None  #: the seat to move; ``None`` once the match is over
    winner: int | None
    line: list[int] | None  #: the winning line's cells
    draw: bool


def _line_of(cells: list[int | None], seat: int) -> list[int] | None:
    return next((list(line) for line in LINES if all(cells[c] == seat for c in line)), None)


class TicTacToe(Game):
    info = GameInfo(
        slug="tic-tac-toe",
        title="Tic-tac-toe",
        min_players=2,
        max_players=2,
        rules_version=1,
        hidden_information=False,
        max_steps=9,
        description="Mark cells in turn; three in a row wins, a full grid is a draw.",
    )

    def schemas(self) -> GameSchemas:
        return GameSchemas(options=Options, move=Move, view=View, event=Event, events=EVENTS)

    def renderer(self) -> str:
        """The web board: the grid as nine buttons (``ui/``, shipped as package data)."""
        return str(Path(__file__).with_name("ui"))

    def setup(self, num_seats: int, options: dict, rng: Rng) -> list[dict]:
        return [{"type": "started"}]

    def evolve(self, state: TicTacToeState | None, event: dict) -> TicTacToeState:
        if event["type"] == "started":
            return {"cells": [None] * 9, "turn": 0, "winner": None, "line": None, "draw": False}
        if state is None:
            raise ValueError("a match of tic-tac-toe starts with a 'started' event")
        seat = event["seat"]
        cells = list(state["cells"])
        cells[event["cell"]] = seat
        line = _line_of(cells, seat)
        draw = line is None and None not in cells
        over = line is not None or draw
        return {
            "cells": cells,
            "turn": None if over else 1 - seat,
            "winner": seat if line else None,
            "line": line,
            "draw": draw,
        }

    def active_seats(self, state: TicTacToeState) -> list[int]:
        return [] if state["turn"] is None else [state["turn"]]

    def legal_moves(self, state: TicTacToeState, seat: int) -> list[dict]:
        if seat != state["turn"]:
            return []
        return [{"type": "mark", "cell": c} for c, owner in enumerate(state["cells"]) if owner is None]

    def decide(self, state: TicTacToeState, seat: int, move: dict, rng: Rng) -> list[dict]:
        if move.get("type") != "mark":
            raise IllegalMove("unknown-move", "The only move is 'mark'.")
        cell = move.get("cell")
        if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell <= 8:
            raise IllegalMove("no-such-cell", "Cells are numbered 0 to 8, row by row.")
        if state["cells"][cell] is not None:
            raise IllegalMove("cell-taken", "That cell is already marked.")
        return [{"type": "marked", "seat": seat, "cell": cell}]

    def view(self, state: TicTacToeState, seat: Seat) -> dict:
        return dict(state)  # nothing is hidden

    def redact(self, event: dict, seat: Seat) -> dict:
        return event

    def outcome(self, state: TicTacToeState) -> dict | None:
        if state["winner"] is not None:
            return {
                "scores": [1 if s == state["winner"] else 0 for s in range(2)],
                "winners": [state["winner"]],
            }
        if state["draw"]:
            return {"scores": [0.5, 0.5], "winners": []}
        return None

    def describe(self, event: dict, seat: Seat, names: Sequence[str]) -> str:
        if event["type"] == "started":
            return f"{names[0]} plays first."
        row, col = divmod(event["cell"], 3)
        return f"{names[event['seat']]} marked row {row + 1}, column {col + 1}."

    def evaluate(self, state: TicTacToeState, seat: int) -> float:
        result = self.outcome(state)
        if result is None:
            return 0.5
        return result["scores"][seat]

    def sample_state(self, view: dict, seat: int, rng: Rng) -> TicTacToeState:
        """The view is the whole state: a copy of it."""
        return {
            "cells": list(view["cells"]),
            "turn": view["turn"],
            "winner": view["winner"],
            "line": view["line"],
            "draw": view["draw"],
        }


@hookimpl
def gameroom_games() -> list[Game]:
    return [TicTacToe()]
