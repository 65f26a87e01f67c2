"""The move types of each phase (spec section 10) and the parsing of their fields.

Every phase has its own small set of move types (:data:`PHASE_MOVES`). The
helpers here only check a field's shape and raise ``IllegalMove`` with a
stable code; whether a move is allowed is :mod:`.decide`'s business.
"""

from __future__ import annotations

from gameroom.plugin_api import IllegalMove

PHASE_MOVES = {
    "invoke": ("invoke", "skip_invoke"),
    "services": ("use_service", "use_gug", "use_tindaloo", "use_dhole", "end_services"),
    "dhole": ("dhole_take",),
    "sky": ("push", "swap", "flip"),
    "summon": ("summon", "skip_summon"),
    "limit": ("discard_creature",),
    "discard": ("discard", "end_turn"),
}
MOVE_TYPES = tuple(t for moves in PHASE_MOVES.values() for t in moves)


def move_type(move) -> str:
    """The move's ``type``, once it is a known move type."""
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise IllegalMove("malformed-move", "A move is an object with a 'type'.")
    kind = move["type"]
    if kind not in MOVE_TYPES:
        raise IllegalMove("unknown-move", f"There is no move '{kind[:40]}'.")
    return kind


def card_id(move: dict, key: str = "card") -> int:
    """``move[key]`` as a card id (an integer; whether the card exists is for the rules)."""
    value = move.get(key)
    if type(value) is not int:
        raise IllegalMove("malformed-move", f"'{key}' must be a card id.")
    return value
