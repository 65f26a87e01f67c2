"""The AI heuristic: VP lead plus the promise of the current hand."""

from __future__ import annotations

from .content import CARDS
from .matcher import pack_sky, visible_cards
from .scoring import vp


def evaluate(state: dict, seat: int) -> float:
    """Higher is better for ``seat``.

    A finished match is +/-100. Otherwise: own VP minus the best opponent's,
    plus half the points of hand cards whose constellation is visible now
    (they could be summoned on a coming turn if the sky holds), plus a small
    bonus for services (more symbols mean more control of the sky).
    """
    if state["winners"] is not None:
        return 100.0 if seat in state["winners"] else -100.0
    mine = vp(state, seat)
    best = max((vp(state, s) for s in range(state["n"]) if s != seat), default=0)
    sky = pack_sky(state["sky"], state["faces"])
    ready = visible_cards(state["hands"][seat], sky, state["opts"])
    promise = sum(CARDS[c].points for c in ready)
    services = sum(1 for c in state["tables"][seat] if CARDS[c].conversion)
    return float(mine - best) + 0.5 * promise + 0.1 * services
