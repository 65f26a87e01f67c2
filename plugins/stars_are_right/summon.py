"""Phase 4: summoning, with supporting servitors for Great Old Ones (SAR-B7, B9)."""

from __future__ import annotations

from itertools import combinations

from gameroom.plugin_api import IllegalMove

from .content import CARDS, GOO, LESSER, SERVITORS
from .matcher import pack_sky, visible


def supporter_cap(state: dict, seat: int, family: str) -> int:
    """3, or 2 when another player controls a GOO of ``family`` (SAR-B9.2, B9.3)."""
    for other, table in enumerate(state["tables"]):
        if other != seat and any(CARDS[c].type == GOO and CARDS[c].family == family for c in table):
            return 2
    return 3


def goo_barred(state: dict, seat: int, card_id: int) -> bool:
    """One GOO per family per player (SAR-B7.4)."""
    card = CARDS[card_id]
    return card.type == GOO and any(
        CARDS[c].type == GOO and CARDS[c].family == card.family for c in state["tables"][seat]
    )


def candidate_supporters(state: dict, seat: int, card_id: int) -> list[int]:
    """Own servitors of the GOO's family whose Bonus Star is one of its cells (SAR-B9.1)."""
    card = CARDS[card_id]
    codes = card.codes
    return sorted(
        c
        for c in state["tables"][seat]
        if CARDS[c].type in SERVITORS and CARDS[c].family == card.family and CARDS[c].bonus in codes
    )


def summon_options(state: dict, seat: int) -> list[dict]:
    """Every legal ``summon`` move: each (hand card, supporter set) once."""
    sky = pack_sky(state["sky"], state["faces"])
    opts = state["opts"]
    moves = []
    for card_id in state["hands"][seat]:
        card = CARDS[card_id]
        if card.type != GOO:
            if visible(card_id, sky, opts):
                moves.append({"type": "summon", "card": card_id, "supporters": []})
            continue
        if goo_barred(state, seat, card_id):
            continue
        cands = candidate_supporters(state, seat, card_id)
        for size in range(min(len(cands), supporter_cap(state, seat, card.family)) + 1):
            for combo in combinations(cands, size):
                dark = frozenset(CARDS[c].bonus for c in combo)
                if len(dark) == size and visible(card_id, sky, opts, dark):
                    moves.append({"type": "summon", "card": card_id, "supporters": list(combo)})
    return moves


def resolve_summon(state: dict, seat: int, move: dict) -> dict:
    """Validate a ``summon`` move and return its event (SAR-B7.1, B7.4, B8, B9)."""
    card_id, supporters = move.get("card"), move.get("supporters")
    if type(card_id) is not int or card_id not in state["hands"][seat]:
        raise IllegalMove("not-in-hand", "Summon a card from your hand.")
    if not isinstance(supporters, list) or any(type(c) is not int for c in supporters):
        raise IllegalMove("bad-supporter", "'supporters' is a list of creature ids.")
    if len(set(supporters)) != len(supporters):
        raise IllegalMove("bad-supporter", "A supporter is named only once.")
    card = CARDS[card_id]
    if card.type != GOO and supporters:
        raise IllegalMove("bad-supporter", "Only a Great Old One takes supporting servitors (B9.1).")
    if goo_barred(state, seat, card_id):
        raise IllegalMove("goo-family-limit", "You already control a Great Old One of that family (B7.4).")
    table = state["tables"][seat]
    for c in supporters:
        if c not in table:
            raise IllegalMove("bad-supporter", "Supporters must be creatures you control.")
        if CARDS[c].type not in SERVITORS or CARDS[c].family != card.family:
            raise IllegalMove("bad-supporter", "Supporters are servitors of the GOO's family (B9.1).")
        if CARDS[c].bonus not in card.codes:
            raise IllegalMove(
                "supporter-no-cell", "A supporter's Bonus Star must match a cell of the constellation (B9.1)."
            )
    dark = frozenset(CARDS[c].bonus for c in supporters)
    if len(dark) != len(supporters):
        raise IllegalMove("supporter-same-cell", "Two supporters cannot cover the same cell (B9.1).")
    if supporters and len(supporters) > supporter_cap(state, seat, card.family):
        raise IllegalMove("supporter-cap", "Too many supporters for this summon (B9.2, B9.3).")
    if not visible(card_id, pack_sky(state["sky"], state["faces"]), state["opts"], dark):
        raise IllegalMove("pattern-not-matched", "That constellation is not visible in the sky (B8).")
    supporters = sorted(supporters)
    return {
        "type": "summoned",
        "seat": seat,
        "card": card_id,
        "supporters": supporters,
        "discarded": [c for c in supporters if CARDS[c].type == LESSER],
    }
