"""The steps a seat may send (LATS section 9) and the parsing of their fields.

A move is a JSON object whose ``type`` is one of :data:`MOVE_KEYS` and which
carries no other keys than that type's. The helpers here only read the shape
of a field (an integer in range, a point on the grid) and raise
``IllegalMove`` with a stable code otherwise; whether the step is allowed by
the rules is :mod:`.decide`'s business.
"""

from __future__ import annotations

from gameroom.plugin_api import IllegalMove

from .geometry import point_from_json

#: Keys each move type may carry (anything else is malformed).
MOVE_KEYS = {
    "place_card": {"type", "rotation", "dx", "dy", "mirror"},
    "place_shooting_star": {"type", "length", "rotation", "dx", "dy", "mirror"},
    "skip_card": {"type"},
    "select_occurrence": {"type", "lines"},
    "use_power": {"type", "point", "line", "stop"},
    "decline_power": {"type"},
    "confirm_turn": {"type"},
}

MOVE_TYPES = tuple(MOVE_KEYS)


def move_type(move: dict) -> str:
    """The move's ``type``, once it is known and no unexpected key comes with it."""
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in MOVE_KEYS:
        raise IllegalMove("unknown-move", "Unknown step type.")
    extra = set(move) - MOVE_KEYS[kind]
    if extra:
        raise IllegalMove("malformed-move", f"Unexpected keys: {', '.join(sorted(map(str, extra)))}.")
    return kind


def integer(move: dict, key: str, lo: int, hi: int, code: str) -> int:
    """``move[key]`` as an integer in ``lo..hi`` (``code`` when out of range)."""
    value = move.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalMove("malformed-move", f"'{key}' must be an integer.")
    if not lo <= value <= hi:
        raise IllegalMove(code, f"'{key}' must be between {lo} and {hi}.")
    return value


def target_point(move: dict) -> int:
    """The point code of ``move["point"]``, the target of a power."""
    if "point" not in move:
        raise IllegalMove("missing-target", "Give the 'point' the power targets.")
    p = point_from_json(move["point"])
    if p is None:
        raise IllegalMove("malformed-move", "'point' must be [x, y] on the sheet.")
    return p


def placement_move(kind: str, place, length: int | None = None) -> dict:
    """The move that makes placement ``place`` (a :func:`~.geometry.placements` entry)."""
    move = {"type": kind}
    if length is not None:
        move["length"] = length
    move.update(rotation=place[2], dx=place[0], dy=place[1])
    if place[3]:
        move["mirror"] = True
    return move
