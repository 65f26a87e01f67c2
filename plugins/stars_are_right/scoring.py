"""Victory points (SAR-B12.1) and the outcome with its per-type breakdown (B12.2-B12.4)."""

from __future__ import annotations

from .content import CARDS, GOO, GREATER, LESSER, MINION

#: Breakdown categories: the creature types that score.
CATEGORIES = (GOO, GREATER, LESSER, MINION)


def vp(state: dict, seat: int) -> int:
    """Victory points of ``seat`` (SAR-B12.1): the points of its creatures in play."""
    return sum(CARDS[c].points for c in state["tables"][seat])


def outcome(state: dict) -> dict | None:
    """The final scores, winners and points by creature type; ``None`` while the match runs."""
    if state["winners"] is None:
        return None
    n = state["n"]
    breakdown = []
    for seat in range(n):
        parts = dict.fromkeys(CATEGORIES, 0)
        for c in state["tables"][seat]:
            parts[CARDS[c].type] += CARDS[c].points
        breakdown.append(parts)
    return {
        "scores": [vp(state, s) for s in range(n)],
        "winners": list(state["winners"]),
        "breakdown": breakdown,
    }
