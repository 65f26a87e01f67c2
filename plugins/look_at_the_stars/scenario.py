"""Helpers that build Look at the Stars positions directly (for tests and AI experiments).

Lines and points are written as in the spec's worked examples::

    state = new_state(sheets=[0])
    state = with_lines(state, 0, "0,0-1,1", "1,1-1,2")
    state, events = step(state, 0, {"type": "place_card", "rotation": 0, "dx": 4, "dy": 1})
"""

from __future__ import annotations

from gameroom.plugin_api import Rng

from .evolve import evolve
from .game import LookAtTheStars
from .geometry import line_json, line_key, pt
from .powers import detect
from .scoring import public_scores, score_sheet

GAME = LookAtTheStars()


def parse_point(text: str) -> list:
    x, y = text.split(",")
    return [int(x), int(y)]


def parse_line(text: str) -> list:
    """``"4,5-5,6"`` -> ``[[4, 5], [5, 6]]``."""
    a, b = text.replace("–", "-").split("-")
    return [parse_point(a), parse_point(b)]


def key(text: str) -> int:
    (x1, y1), (x2, y2) = parse_line(text)
    return line_key(pt(x1, y1), pt(x2, y2))


def canon(text: str) -> list:
    """A line as events and views write it (lower point code first)."""
    return line_json(key(text))


def new_state(num_seats: int = 1, *, sheets=None, card: int | None = None, turn: int = 1, **options) -> dict:
    """A fresh match with the given sheets, the ``turn``-th card revealed (``card`` if given).

    One seat (the default, for scenarios on a single sheet) plays the solo variant."""
    if num_seats == 1:
        options.setdefault("solo_variant", True)
    opts = GAME.load_options(options)
    events = GAME.setup(num_seats, opts, Rng("scenario"))
    setup = dict(events[0])
    if sheets is not None:
        setup["sheets"] = list(sheets)
    state = evolve(None, setup)
    state = evolve(
        state,
        {
            "type": "card_revealed",
            "turn": turn,
            "pile": (turn - 1) // 6 + 1,
            "card": state["deck"][turn - 1],
            "reveal": True,
        },
    )
    return set_card(state, card) if card is not None else state


def set_card(state: dict, card: int) -> dict:
    """``state`` with ``card`` as the current card (swapped into place in the deck)."""
    deck = list(state["deck"])
    i, j = deck.index(card), state["turn"] - 1
    deck[i], deck[j] = deck[j], deck[i]
    return {**state, "deck": deck}


def with_player(state: dict, seat: int, public: bool = True, **changes) -> dict:
    """``state`` with fields of ``seat``'s player replaced (and its public snapshot too)."""
    players = list(state["players"])
    players[seat] = {**players[seat], **changes}
    out = {**state, "players": players}
    if public:
        snap = list(state["public"])
        snap[seat] = {
            **state["public"][seat],
            **{
                k: v
                for k, v in changes.items()
                if k not in ("drawn", "pending", "selected", "stars_left", "confirmed", "log")
            },
        }
        out["public"] = snap
        if state["rules"]["live_score"]:
            out["public_scores"] = public_scores(snap, state["rules"])
    return out


def with_lines(state: dict, seat: int, *lines: str) -> dict:
    """``state`` with ``lines`` (spec notation) already drawn on ``seat``'s sheet."""
    player = state["players"][seat]
    return with_player(state, seat, lines=player["lines"] + [key(t) for t in lines])


def with_points(state: dict, seat: int, field: str, *points: str) -> dict:
    """``state`` with ``points`` added to a list field (``planets``, ``novas``, ...)."""
    codes = [pt(*parse_point(p)) for p in points]
    return with_player(state, seat, **{field: state["players"][seat][field] + codes})


def with_pending(state: dict, seat: int) -> dict:
    """``state`` as right after drawing a line card: Power Bonus occurrences detected (R6.1)."""
    player = state["players"][seat]
    return with_player(state, seat, public=False, drawn=True, pending=detect(player, state["rules"]))


def step(state: dict, seat: int, move: dict) -> tuple[dict, list[dict]]:
    """Decide ``move`` and fold its events; returns the new state and the events."""
    events = GAME.decide(state, seat, move, Rng("step"))
    for event in events:
        state = GAME.evolve(state, event)
    return state, events


def score(state: dict, seat: int = 0) -> dict:
    return score_sheet(state["players"][seat], state["rules"])
