"""The atomic steps a seat may send (spec section 9) and the parsing of their fields.

The helpers here only check a field's shape and raise ``IllegalMove`` with a
stable code; whether a step is allowed now is :mod:`.decide`'s business.
"""

from __future__ import annotations

from gameroom.plugin_api import IllegalMove

MOVE_TYPES = [
    "exchange",
    "declare_stuck",
    "look_bottom",
    "play_empire",
    "skip_empire",
    "pay",
    "use_ability",
    "decline_ability",
    "threat_discard",
    "loss_discard",
    "attack",
    "ambassador",
    "end_attacks",
    "end_turn",
]

#: Which steps each phase accepts (deferred ``use_ability`` is checked apart).
PHASE_STEPS = {
    "exchange": {"exchange", "declare_stuck"},
    "empire": {"play_empire", "skip_empire", "declare_stuck"},
    "look": {"look_bottom"},
    "pay": {"pay"},
    "ability": {"use_ability", "decline_ability"},
    "threat": {"threat_discard"},
    "loss": {"loss_discard"},
    "attack": {"attack", "end_attacks"},
    "ambassador": {"ambassador", "end_turn"},
}
BETWEEN_STEPS = ("exchange", "empire", "attack", "ambassador")


def move_type(move) -> str:
    """The move's ``type``, once the move is an object with a known type."""
    if not isinstance(move, dict):
        raise IllegalMove("malformed-move", "A move is a JSON object.")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in MOVE_TYPES:
        raise IllegalMove("unknown-move", "Unknown step type.")
    return kind


def string(move, key):
    """``move[key]`` as a non-empty string."""
    value = move.get(key)
    if not isinstance(value, str) or not value:
        raise IllegalMove("malformed-move", f"'{key}' must be a non-empty string.")
    return value


def integer(move, key):
    """``move[key]`` as an integer."""
    value = move.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalMove("malformed-move", f"'{key}' must be an integer.")
    return value


def card_ids(move, key="cards"):
    """``move[key]`` as a list of distinct card ids."""
    value = move.get(key)
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise IllegalMove("malformed-move", f"'{key}' must be a list of card ids.")
    if len(set(value)) != len(value):
        raise IllegalMove("duplicate-cards", "A card is listed twice.")
    return value
