"""Rule predicates over a state: geometry, costs, targets (pure, no events).

The state layout is documented in :mod:`.state`. Every function here reads
only the card data recorded in the state (``state["set"]``), never a file.
"""

from __future__ import annotations

ONE_SHOT, ONGOING, END_GAME = "one_shot", "ongoing", "end_game"


def card(state, cid):
    """The compact record of empire card ``cid``."""
    return state["set"]["empire"][cid]


def half(state, entry):
    """The active half of a row entry (TSE-T12)."""
    return state["set"]["empire"][entry["id"]][entry["o"]]


def is_wormhole(state, cid):
    return state["set"]["empire"][cid]["kind"] == "wormhole"


def edges(state, cid, orientation):
    """``(left, right)`` edge values in ``orientation`` (TSE-T8); ``None`` for a wormhole."""
    routes = state["set"]["empire"][cid]["routes"]
    if routes is None:
        return None
    return (routes[0], routes[1]) if orientation == "A" else (routes[1], routes[0])


def fits(state, row, cid, orientation):
    """TSE-T10: may ``cid`` in ``orientation`` follow the last card of ``row``?"""
    if not row:
        return True
    last = row[-1]
    mine, theirs = edges(state, cid, orientation), edges(state, last["id"], last["o"])
    return mine is None or theirs is None or mine[0] == theirs[1]


def ability(state, entry):
    """The working ability of a row entry: its active half's, unless invaded (TSE-T29..T44)."""
    atk = entry["atk"]
    if atk is not None and atk["mode"] == "invasion":
        return None
    return half(state, entry)["ability"]


def printed_ability(state, entry):
    return half(state, entry)["ability"]


def symbols(state, entry):
    """Symbols shown by a row entry's active half; none while raided (TSE-T20)."""
    atk = entry["atk"]
    if atk is not None and atk["mode"] == "raid":
        return []
    return half(state, entry)["symbols"]


def count_working(state, seat, kind):
    """How many working ``kind`` abilities are in ``seat``'s row (Look, Discount ...)."""
    return sum(1 for e in state["rows"][seat] if ability(state, e) == kind)


def turns_left(state, seat):
    return state["T"] - state["turns"][seat]


def effective_cost(state, seat, cid):
    """TSE-T17: ``max(min_cost, cost - discounts) + bully surcharges``."""
    printed = card(state, cid)["cost"]
    floor = state["set"]["rules"]["min_cost"]
    return max(floor, printed - count_working(state, seat, "discount")) + state["bully"][seat]


def empire_plays(state, seat):
    """Every legal, affordable ``(card, orientation)`` for ``seat`` (TSE-T10, T17, T18)."""
    hand, row, out = state["hands"][seat], state["rows"][seat], []
    empire = state["set"]["empire"]
    for cid in hand:
        if cid not in empire or len(hand) - 1 < effective_cost(state, seat, cid):
            continue
        for o in ("A", "B"):
            if fits(state, row, cid, o):
                out.append((cid, o))
    return out


def attackable(state, player):
    """Row cards of ``player`` that a red card may target (TSE-T20, T24, T34)."""
    return [
        e["id"]
        for e in state["rows"][player]
        if e["atk"] is None and e["amb"] is None and printed_ability(state, e) != "protection"
    ]


def attack_opponents(state, seat):
    """Opponents ``seat`` may still attack this turn (TSE-T20, T28, option max_attacks)."""
    if state["opts"]["max_attacks_per_turn"] == "1" and state["attacked"]:
        return []
    return [
        p for p in range(state["n"]) if p != seat and p not in state["attacked"] and turns_left(state, p) > 0
    ]


def ambassador_targets(state, seat):
    """Own row cards that may take an ambassador (TSE-T22, T24, option ambassador_targets)."""
    any_card = state["opts"]["ambassador_targets"] == "any_own_card"
    return [e["id"] for e in state["rows"][seat] if e["amb"] is None and (any_card or e["atk"] is not None)]


def find(row, cid):
    """Index of ``cid`` in ``row`` or -1."""
    for i, e in enumerate(row):
        if e["id"] == cid:
            return i
    return -1


def red_cards_in_play(state):
    """``[(owner, empire card, red card)]`` for every red card lying on a row."""
    return [
        (p, e["id"], e["atk"]["id"])
        for p in range(state["n"])
        for e in state["rows"][p]
        if e["atk"] is not None
    ]


def deferred_sources(state, seat):
    """Own one-shot cards usable now under ``one_shot_timing = any_own_turn`` (TSE-T19)."""
    if state["opts"]["one_shot_timing"] != "any_own_turn":
        return []
    timings = state["set"]["abilities"]
    return [
        e["id"]
        for e in state["rows"][seat]
        if not e["used"] and e["t"] < state["turns"][seat] and timings.get(ability(state, e)) == ONE_SHOT
    ]
