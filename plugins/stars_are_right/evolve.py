"""Folding events into state (``evolve``); the state's layout is documented in :mod:`.state`.

``evolve`` never mutates its input: it copies the top-level dict and only the
lists it changes (copy-on-write), which keeps AI search cheap.
"""

from __future__ import annotations

from .content import CONTENT
from .sky import flip, pair_key, push, push_key, sky_key, swap
from .state import EMPTY_POOL


def _without(items: list, card: int) -> list:
    new = list(items)
    new.remove(card)
    return new


def _set_table(state, seat, table):
    tables = list(state["tables"])
    tables[seat] = table
    state["tables"] = tables


def _set_hand(state, seat, hand):
    hands = list(state["hands"])
    hands[seat] = hand
    state["hands"] = hands


def _end_sky_phase(s):
    """Pool empty: the invoked card goes to the discard pile (SAR-B6.7)."""
    if s["invoked"] is not None:
        s["discard"] = s["discard"] + [s["invoked"]]
    s["invoked"] = None
    s["nc"] = None
    s["phase"] = "summon"


def _spend(s, symbol):
    pool = dict(s["pool"])
    pool[symbol] -= 1
    s["pool"] = pool
    if not any(pool.values()):
        _end_sky_phase(s)


def _sky_step(s, new_sky, new_faces, symbol, record):
    nc = dict(s["nc"])
    for key, value in record.items():
        nc[key] = nc[key] + [value]
    nc["seen"] = nc["seen"] + [sky_key(new_sky, new_faces)]
    s["nc"] = nc
    s["sky"], s["faces"] = new_sky, new_faces
    _spend(s, symbol)


def _match_started(s, e):
    n = e["num_seats"]
    return {
        "n": n,
        "opts": dict(e["options"]),
        "sky": [],
        "faces": [],
        "deck": [],
        "discard": [],
        "hands": [[] for _ in range(n)],
        "tables": [[] for _ in range(n)],
        "tapped": [],
        "active": None,
        "phase": "setup",
        "invoked": None,
        "pool": dict(EMPTY_POOL),
        "nc": None,
        "summoned": None,
        "discards": 0,
        "dhole": None,
        "turn": 0,
        "first": None,
        "winners": None,
        "end": None,
        **({"round_cap": e["round_cap"]} if "round_cap" in e else {}),
    }


def _sky_laid(s, e):
    s["sky"], s["faces"] = list(e["sky"]), list(e["faces"])


def _deck_shuffled(s, e):
    s["deck"] = list(e["order"])


def _dealt(s, e):
    dealt = {c for hand in e["hands"] for c in hand}
    s["deck"] = [c for c in s["deck"] if c not in dealt]
    s["hands"] = [list(h) for h in e["hands"]]


def _first_player(s, e):
    s["first"] = s["active"] = e["first"]
    s["phase"] = "invoke"


def _invoked(s, e):
    _set_hand(s, e["seat"], _without(s["hands"][e["seat"]], e["card"]))
    s["invoked"] = e["card"]
    s["pool"] = dict(e["pool"])
    s["phase"] = "services"


def _invoke_skipped(s, e):
    s["phase"] = "services"


def _service_used(s, e):
    pool = dict(s["pool"])
    pool[e["from"]] -= 1
    for symbol in e["to"]:
        pool[symbol] += 1
    s["pool"] = pool
    s["tapped"] = s["tapped"] + [e["creature"]]


def _servitors_exchanged(s, e):
    seat, other = e["seat"], e["opponent"]
    mine = _without(s["tables"][seat], e["minion"])
    mine[mine.index(e["own"])] = e["theirs"]
    theirs = list(s["tables"][other])
    theirs[theirs.index(e["theirs"])] = e["own"]
    tables = list(s["tables"])
    tables[seat], tables[other] = mine, theirs
    s["tables"] = tables
    s["discard"] = s["discard"] + [e["minion"]]


def _dhole_used(s, e):
    _set_table(s, e["seat"], _without(s["tables"][e["seat"]], e["minion"]))
    s["discard"] = s["discard"] + [e["minion"]]
    s["dhole"] = e["pile"]
    s["phase"] = "dhole"


def _dhole_took(s, e):
    if e["pile"] == "draw":
        s["deck"] = list(e["order"])
    else:
        s["discard"] = _without(s["discard"], e["card"])
    _set_hand(s, e["seat"], s["hands"][e["seat"]] + [e["card"]])
    s["dhole"] = None
    s["phase"] = "services"


def _services_ended(s, e):
    if any(s["pool"].values()):
        s["phase"] = "sky"
        s["nc"] = {"flipped": [], "pushed": [], "swapped": [], "seen": [sky_key(s["sky"], s["faces"])]}
    else:
        _end_sky_phase(s)


def _pushed(s, e):
    new_sky = push(s["sky"], e["line"], e["index"], e["direction"])
    _sky_step(s, new_sky, s["faces"], "P", {"pushed": push_key(e["line"], e["index"], e["direction"])})


def _swapped(s, e):
    a, b = e["cells"]
    _sky_step(s, swap(s["sky"], a, b), s["faces"], "S", {"swapped": pair_key(s["sky"][a], s["sky"][b])})


def _flipped(s, e):
    tile = s["sky"][e["cell"]]
    _sky_step(s, s["sky"], flip(s["faces"], tile), "F", {"flipped": tile})


def _symbol_forfeited(s, e):
    _spend(s, e["symbol"])


def _summoned(s, e):
    seat = e["seat"]
    _set_hand(s, seat, _without(s["hands"][seat], e["card"]))
    gone = set(e["discarded"])
    _set_table(s, seat, [c for c in s["tables"][seat] if c not in gone] + [e["card"]])
    s["discard"] = s["discard"] + list(e["discarded"])
    s["tapped"] = [c for c in s["tapped"] if c not in gone]
    s["summoned"] = e["card"]
    s["phase"] = _after_summon(s, seat)


def _after_summon(s, seat):
    return "limit" if len(s["tables"][seat]) > CONTENT.max_creatures else "discard"


def _summon_skipped(s, e):
    s["phase"] = "discard"


def _creature_discarded(s, e):
    seat = e["seat"]
    _set_table(s, seat, _without(s["tables"][seat], e["card"]))
    s["discard"] = s["discard"] + [e["card"]]
    s["tapped"] = [c for c in s["tapped"] if c != e["card"]]
    s["phase"] = _after_summon(s, seat)


def _card_discarded(s, e):
    _set_hand(s, e["seat"], _without(s["hands"][e["seat"]], e["card"]))
    s["discard"] = s["discard"] + [e["card"]]
    s["discards"] += 1


def _reshuffled(s, e):
    s["deck"] = list(e["order"])
    s["discard"] = []


def _drew(s, e):
    k = len(e["cards"])
    s["deck"] = s["deck"][k:]
    _set_hand(s, e["seat"], s["hands"][e["seat"]] + list(e["cards"]))


def _turn_ended(s, e):
    s.update(
        tapped=[],
        active=e["next"],
        phase="invoke",
        invoked=None,
        pool=dict(EMPTY_POOL),
        nc=None,
        summoned=None,
        discards=0,
        dhole=None,
        turn=s["turn"] + 1,
    )


def _game_over(s, e):
    s.update(winners=list(e["winners"]), end=e["reason"], phase="over", active=None)


EVOLVERS = {
    "match_started": _match_started,
    "sky_laid": _sky_laid,
    "deck_shuffled": _deck_shuffled,
    "fork_shuffled": _deck_shuffled,  # a fork's deal: the draw pile in a new order
    "dealt": _dealt,
    "first_player": _first_player,
    "invoked": _invoked,
    "invoke_skipped": _invoke_skipped,
    "service_used": _service_used,
    "servitors_exchanged": _servitors_exchanged,
    "dhole_used": _dhole_used,
    "dhole_took": _dhole_took,
    "services_ended": _services_ended,
    "pushed": _pushed,
    "swapped": _swapped,
    "flipped": _flipped,
    "symbol_forfeited": _symbol_forfeited,
    "summoned": _summoned,
    "summon_skipped": _summon_skipped,
    "creature_discarded": _creature_discarded,
    "card_discarded": _card_discarded,
    "reshuffled": _reshuffled,
    "drew": _drew,
    "turn_ended": _turn_ended,
    "game_over": _game_over,
}
EVENT_TYPES = tuple(EVOLVERS)


def evolve(state: dict | None, event: dict) -> dict:
    """Fold one event into ``state`` (``None`` before the first); never mutates it."""
    handler = EVOLVERS[event["type"]]
    if state is None:
        return handler(None, event)
    new = dict(state)
    handler(new, event)
    return new
