"""How the AI levels judge a Tiny Stellar Empires position (``Game.evaluate``).

The AI levels themselves are the platform's. The evaluation reads the state
the search gives it, which for a seat is sampled from that seat's view
(``views.sample_state``), so it never sees more than the seat may.
"""

from __future__ import annotations

from .scoring import breakdown, result


def evaluate(state: dict, seat: int) -> float:
    """Score lead over the best opponent (as if the game ended now), plus a
    little for cards in hand and turns still to play."""
    if state["over"]:
        scores = result(state)["scores"]
    else:
        scores = [sum(p.values()) for p in breakdown(state)]
    best_other = max(s for p, s in enumerate(scores) if p != seat)
    return scores[seat] - best_other + 0.25 * len(state["hands"][seat])
