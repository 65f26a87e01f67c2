"""Folding events into state (copy-on-write; never mutates its input).

The state's layout is documented in :mod:`.state`.
"""

from __future__ import annotations


def _without(cards, gone):
    gone = set(gone)
    return [c for c in cards if c not in gone]


def _set_hand(state, seat, hand):
    hands = list(state["hands"])
    hands[seat] = hand
    state["hands"] = hands


def _forget(state, cards):
    """Cards that left a hand are no longer 'known to be held' (TSE-H3)."""
    if state["known"]:
        gone = set(cards)
        state["known"] = [k for k in state["known"] if k[0] not in gone]


def _take_from_hand(state, seat, cards):
    _set_hand(state, seat, _without(state["hands"][seat], cards))
    _forget(state, cards)


def _to_discard(state, seat, cards):
    _take_from_hand(state, seat, cards)
    state["discard"] = state["discard"] + list(cards)


def _set_entry(state, seat, cid, **changes):
    row = list(state["rows"][seat])
    for i, e in enumerate(row):
        if e["id"] == cid:
            row[i] = {**e, **changes}
    rows = list(state["rows"])
    rows[seat] = row
    state["rows"] = rows


def _bump(state, key, seat, by=1):
    values = list(state[key])
    values[seat] += by
    state[key] = values


def _started(_, ev):
    n = ev["num_seats"]
    return {
        "set": ev["set"],
        "opts": ev["options"],
        "n": n,
        "T": ev["set"]["rules"]["turns"][str(n)],
        "start": ev["start"],
        "cur": ev["start"],
        "phase": "exchange",
        "pending": None,
        "deck": [],
        "discard": [],
        "hands": [[] for _ in range(n)],
        "rows": [[] for _ in range(n)],
        "tucked": [[] for _ in range(n)],
        "out": [],
        "homeworlds": [None] * n,
        "removed": [],
        "turns": [0] * n,
        "reds": [0] * n,
        "bully": [0] * n,
        "stuck": [False] * n,
        "attacked": [],
        "ambs": 0,
        "known": [],
        "bottom": [],
        "over": False,
    }


def _homeworlds(s, ev):
    s["homeworlds"], s["removed"] = list(ev["homeworlds"]), list(ev["removed"])


def _deck_formed(s, ev):
    s["deck"], s["bottom"] = list(ev["deck"]), []
    if ev["source"] in ("discard", "rebirth"):
        s["discard"] = []


def _fork_shuffled(s, ev):
    s["deck"] = list(ev["deck"])  # the Look cards (``bottom``) kept their places


def _drew(s, ev):
    k = len(ev["cards"])
    s["deck"] = s["deck"][k:]
    _set_hand(s, ev["seat"], s["hands"][ev["seat"]] + list(ev["cards"]))
    if s["bottom"]:
        s["bottom"] = [b for b in s["bottom"] if b[0] not in ev["cards"]]


def _turn_started(s, ev):
    s["cur"], s["phase"], s["pending"] = ev["seat"], "exchange", None
    s["attacked"], s["ambs"] = [], 0
    if s["stuck"][ev["seat"]]:
        stuck = list(s["stuck"])
        stuck[ev["seat"]] = False
        s["stuck"] = stuck


def _phase(s, ev):
    s["phase"], s["pending"] = ev["phase"], ev.get("pending")


def _exchanged(s, ev):
    _to_discard(s, ev["seat"], ev["cards"])


def _looked(s, ev):
    _take_from_hand(s, ev["seat"], ev["cards"])
    s["deck"] = s["deck"] + list(ev["cards"])
    s["bottom"] = s["bottom"] + [[c, ev["seat"]] for c in ev["cards"]]


def _stuck(s, ev):
    _to_discard(s, ev["seat"], ev["cards"])
    if s["opts"]["stuck_redraw"] == "next_turn_start":
        stuck = list(s["stuck"])
        stuck[ev["seat"]] = True
        s["stuck"] = stuck


def _played(s, ev):
    seat = ev["seat"]
    _take_from_hand(s, seat, [ev["card"]])
    entry = {
        "id": ev["card"],
        "o": ev["orientation"],
        "atk": None,
        "amb": None,
        "used": False,
        "t": s["turns"][seat],
    }
    rows = list(s["rows"])
    rows[seat] = rows[seat] + [entry]
    s["rows"] = rows
    s["phase"], s["pending"] = "pay", {"due": ev["cost"], "for": "empire", "card": ev["card"]}


def _paid(s, ev):
    _to_discard(s, ev["seat"], [ev["card"]])
    s["pending"] = {**s["pending"], "due": s["pending"]["due"] - 1}


def _ability_used(s, ev):
    _set_entry(s, ev["seat"], ev["source"], used=True)


def _ability_declined(s, ev):
    if s["opts"]["one_shot_timing"] == "on_play":
        _set_entry(s, ev["seat"], ev["source"], used=True)


def _took(s, ev):
    _take_from_hand(s, ev["from"], [ev["card"]])
    _set_hand(s, ev["seat"], s["hands"][ev["seat"]] + [ev["card"]])
    s["known"] = s["known"] + [[ev["card"], ev["seat"], ev["from"]]]


def _discarded(s, ev):
    _to_discard(s, ev["seat"], ev["cards"])


def _thrived(s, ev):
    _set_entry(s, ev["owner"], ev["target"], atk=None)
    tucked = list(s["tucked"])
    tucked[ev["seat"]] = tucked[ev["seat"]] + [ev["card"]]
    s["tucked"] = tucked


def _info_taken(s, ev):
    discard = list(s["discard"])
    discard.remove(ev["card"])
    s["discard"] = discard
    _set_hand(s, ev["seat"], s["hands"][ev["seat"]] + [ev["card"]])


def _bullied(s, ev):
    _bump(s, "bully", ev["player"])


def _loss_handed(s, ev):
    _take_from_hand(s, ev["from"], ev["cards"])
    _set_hand(s, ev["seat"], s["hands"][ev["seat"]] + list(ev["cards"]))


def _loss_returned(s, ev):
    _take_from_hand(s, ev["seat"], ev["cards"])
    _set_hand(s, ev["to"], s["hands"][ev["to"]] + list(ev["cards"]))
    s["known"] = s["known"] + [[c, ev["to"], ev["seat"]] for c in ev["cards"]]


def _attacked(s, ev):
    seat = ev["seat"]
    _take_from_hand(s, seat, [ev["card"]])
    _set_entry(s, ev["player"], ev["target"], atk={"id": ev["card"], "mode": ev["mode"]})
    _bump(s, "reds", seat)
    s["attacked"] = s["attacked"] + [ev["player"]]
    s["phase"], s["pending"] = "pay", {"due": ev["cost"], "for": "attack", "card": ev["card"]}


def _ambassador_placed(s, ev):
    seat = ev["seat"]
    _take_from_hand(s, seat, [ev["card"]])
    _set_entry(s, seat, ev["target"], amb={"id": ev["card"], "end": ev["end"]}, atk=None)
    if ev["removed"] is not None:
        s["out"] = s["out"] + [ev["removed"]]
    s["ambs"] += 1
    s["phase"], s["pending"] = "pay", {"due": ev["cost"], "for": "ambassador", "card": ev["card"]}


def _turn_ended(s, ev):
    seat = ev["seat"]
    _bump(s, "turns", seat)
    if s["bully"][seat]:
        bully = list(s["bully"])
        bully[seat] = 0  # TSE-T43: surcharges expire at the end of that player's turn
        s["bully"] = bully
    s["pending"] = None


def _game_over(s, ev):
    s["phase"], s["pending"], s["over"] = "over", None, True


HANDLERS = {
    "homeworlds_dealt": _homeworlds,
    "deck_formed": _deck_formed,
    "fork_shuffled": _fork_shuffled,
    "drew": _drew,
    "turn_started": _turn_started,
    "phase": _phase,
    "exchanged": _exchanged,
    "looked": _looked,
    "stuck": _stuck,
    "played": _played,
    "paid": _paid,
    "ability_used": _ability_used,
    "ability_declined": _ability_declined,
    "took": _took,
    "discarded": _discarded,
    "thrived": _thrived,
    "info_taken": _info_taken,
    "bullied": _bullied,
    "loss_handed": _loss_handed,
    "loss_returned": _loss_returned,
    "attacked": _attacked,
    "ambassador_placed": _ambassador_placed,
    "turn_ended": _turn_ended,
    "game_over": _game_over,
}


def evolve(state, event):
    """Fold one event; returns a new state (only the changed parts are copied)."""
    kind = event["type"]
    if kind == "started":
        return _started(state, event)
    handler = HANDLERS.get(kind)
    new = dict(state)
    if handler is not None:
        handler(new, event)
    return new
