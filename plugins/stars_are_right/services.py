"""Phase 2: creature services and the minion powers A-C (SAR-B5, B10).

Which move a minion offers is driven by its power letter in the data:
``EXCHANGES`` maps the exchange powers to the servitor type they trade
(A = Gug: Lesser, B = Tindaloo: Greater) and ``DRAW_POWER`` is the Dhole's.
"""

from __future__ import annotations

from gameroom.plugin_api import IllegalMove

from .content import CARDS, GREATER, LESSER

#: move type -> (power letter, servitor type exchanged)
EXCHANGES = {"use_gug": ("A", LESSER), "use_tindaloo": ("B", GREATER)}
DRAW_POWER = "C"
PILES = ("draw", "discard")


def _int(move: dict, key: str) -> int:
    value = move.get(key)
    if type(value) is not int:
        raise IllegalMove("malformed-move", f"'{key}' must be an integer.")
    return value


def service_moves(state: dict, seat: int) -> list[dict]:
    """``use_service`` for each untapped creature whose ``X`` is in the pool (SAR-B5.1)."""
    pool, tapped = state["pool"], state["tapped"]
    return [
        {"type": "use_service", "creature": c}
        for c in state["tables"][seat]
        if CARDS[c].conversion and pool[CARDS[c].conversion[0]] and c not in tapped
    ]


def resolve_service(state: dict, seat: int, move: dict) -> dict:
    creature = _int(move, "creature")
    if creature not in state["tables"][seat]:
        raise IllegalMove("not-your-creature", "Use a creature you control.")
    conversion = CARDS[creature].conversion
    if conversion is None:
        raise IllegalMove("no-service", "That creature has no symbol power.")
    if creature in state["tapped"]:
        raise IllegalMove("tapped", "That creature has already been used this turn (B5.1).")
    src, dst = conversion
    if not state["pool"][src]:
        raise IllegalMove("symbol-not-in-pool", f"The pool holds no {src} to convert (B5.3).")
    return {"type": "service_used", "seat": seat, "creature": creature, "from": src, "to": dst}


def exchange_moves(state: dict, seat: int) -> list[dict]:
    """Gug / Tindaloo exchanges: every (minion, own untapped, opponent, theirs)."""
    moves = []
    table = state["tables"][seat]
    for kind, (letter, servitor) in EXCHANGES.items():
        minions = [c for c in table if CARDS[c].power == letter]
        if not minions:
            continue
        own = [c for c in table if CARDS[c].type == servitor and c not in state["tapped"]]
        theirs = [
            (o, c) for o, t in enumerate(state["tables"]) if o != seat for c in t if CARDS[c].type == servitor
        ]
        moves += [
            {"type": kind, "minion": m, "own": a, "opponent": o, "theirs": b}
            for m in minions
            for a in own
            for o, b in theirs
        ]
    return moves


def resolve_exchange(state: dict, seat: int, move: dict) -> dict:
    letter, servitor = EXCHANGES[move["type"]]
    minion, own, opponent, theirs = (_int(move, k) for k in ("minion", "own", "opponent", "theirs"))
    table = state["tables"][seat]
    if minion not in table or CARDS[minion].power != letter:
        raise IllegalMove("no-such-minion", f"You control no such minion with power {letter}.")
    if own not in table or CARDS[own].type != servitor:
        raise IllegalMove("bad-exchange", f"'own' must be one of your {servitor.replace('_', ' ')}s.")
    if own in state["tapped"]:
        raise IllegalMove("tapped", "A tapped creature cannot be given away (B5.6).")
    if not 0 <= opponent < state["n"] or opponent == seat:
        raise IllegalMove("bad-exchange", "'opponent' must be another seat.")
    if theirs not in state["tables"][opponent] or CARDS[theirs].type != servitor:
        raise IllegalMove(
            "bad-exchange", f"'theirs' must be a {servitor.replace('_', ' ')} that player controls."
        )
    return {
        "type": "servitors_exchanged",
        "seat": seat,
        "minion": minion,
        "power": letter,
        "own": own,
        "opponent": opponent,
        "theirs": theirs,
    }


def dhole_moves(state: dict, seat: int) -> list[dict]:
    """``use_dhole`` per Dhole and non-empty pile (the discard pile will hold the Dhole)."""
    dholes = [c for c in state["tables"][seat] if CARDS[c].power == DRAW_POWER]
    piles = ["draw", "discard"] if state["deck"] else ["discard"]
    return [{"type": "use_dhole", "minion": m, "pile": p} for m in dholes for p in piles]


def resolve_dhole(state: dict, seat: int, move: dict) -> dict:
    minion, pile = _int(move, "minion"), move.get("pile")
    if minion not in state["tables"][seat] or CARDS[minion].power != DRAW_POWER:
        raise IllegalMove("no-such-minion", "You control no such Dhole.")
    if pile not in PILES:
        raise IllegalMove("bad-pile", "Choose the 'draw' or the 'discard' pile.")
    if pile == "draw" and not state["deck"]:
        raise IllegalMove("empty-pile", "The draw pile is empty (B10.3).")
    event = {"type": "dhole_used", "seat": seat, "minion": minion, "pile": pile}
    if pile == "draw":
        # H3: the user sees the pile in card-id order, never in pile order.
        event.update(look=sorted(state["deck"]), reveal=True)
    return event


def dhole_take_moves(state: dict, seat: int) -> list[dict]:
    pile = state["deck"] if state["dhole"] == "draw" else state["discard"]
    return [{"type": "dhole_take", "card": c} for c in sorted(set(pile))]


def resolve_dhole_take(state: dict, seat: int, move: dict, rng) -> dict:
    card = _int(move, "card")
    pile = state["dhole"]
    if card not in (state["deck"] if pile == "draw" else state["discard"]):
        raise IllegalMove("not-in-pile", f"That card is not in the {pile} pile.")
    event = {"type": "dhole_took", "seat": seat, "pile": pile, "card": card}
    if pile == "draw":
        # B10.3 / X8: the draw pile is shuffled after the card is taken.
        event.update(order=rng.shuffled([c for c in state["deck"] if c != card]), reveal=True)
    return event
