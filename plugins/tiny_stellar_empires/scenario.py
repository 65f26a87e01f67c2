"""Building positions by hand, for scenario tests, docs and AI experiments.

:func:`position` makes a complete, consistent state: every card of the set
not placed explicitly goes to the deck (after any explicit ``deck`` cards),
undealt homeworlds are removed. :func:`census` counts where every card is,
for the card-conservation invariant.
"""

from __future__ import annotations

from collections import Counter

from gameroom.plugin_api import Rng

from .content import load_card_set
from .evolve import evolve
from .schemas import Options


def entry(spec, atk=None, amb=None, used=False, t=0):
    """A row entry from ``"E06/B"``; ``atk=("R01", "raid")``; ``amb=("G01", 1)``."""
    cid, o = spec.split("/") if "/" in spec else (spec, "A")
    return {
        "id": cid,
        "o": o,
        "atk": None if atk is None else {"id": atk[0], "mode": atk[1]},
        "amb": None if amb is None else {"id": amb[0], "end": amb[1]},
        "used": used,
        "t": t,
    }


def position(
    n=2,
    *,
    hands=None,
    rows=None,
    homeworlds=None,
    deck=None,
    discard=None,
    tucked=None,
    out=None,
    cur=0,
    start=0,
    phase="exchange",
    pending=None,
    turns=None,
    reds=None,
    bully=None,
    options=None,
    cards=None,
):
    """A state with the given parts; ``rows`` items may be specs (``"E01/A"``) or entries."""
    opts = Options().load(options or {})
    cs = cards or load_card_set(opts["card_set"])
    hands = [list(h) for h in (hands or [[] for _ in range(n)])]
    rows = [[entry(e) if isinstance(e, str) else e for e in r] for r in (rows or [[] for _ in range(n)])]
    homeworlds = list(homeworlds or sorted(cs["homeworld"])[:n])
    tucked = [list(t) for t in (tucked or [[] for _ in range(n)])]
    discard, out = list(discard or []), list(out or [])
    deck = list(deck or [])
    placed = _placed(hands, rows, tucked, discard, out) | set(deck)
    deck += [c for c in [*cs["empire"], *cs["attack"], *cs["ambassador"]] if c not in placed]
    started = {"type": "started", "set": cs, "num_seats": n, "start": start, "options": dict(opts.items())}
    state = evolve(None, started)
    state.update(
        {
            "cur": cur,
            "phase": phase,
            "pending": pending,
            "deck": deck,
            "discard": discard,
            "hands": hands,
            "rows": rows,
            "tucked": tucked,
            "out": out,
            "homeworlds": homeworlds,
            "removed": [h for h in cs["homeworld"] if h not in homeworlds],
            "turns": list(turns or [0] * n),
            "reds": list(reds or [0] * n),
            "bully": list(bully or [0] * n),
        }
    )
    return state


def _placed(hands, rows, tucked, discard, out) -> set:
    """The cards a scenario puts somewhere (the rest go to the deck)."""
    placed = {c for h in hands for c in h} | set(discard) | set(out) | {c for t in tucked for c in t}
    placed |= {
        c
        for r in rows
        for e in r
        for c in (e["id"], (e["atk"] or {}).get("id"), (e["amb"] or {}).get("id"))
        if c
    }
    return placed


def step(game, state, seat, move, seed=0):
    """Decide and fold one move; returns ``(new_state, events)``."""
    events = game.decide(state, seat, move, Rng(seed))
    for event in events:
        state = game.evolve(state, event)
    return state, events


def census(state):
    """How often each card id appears across every place a card can be."""
    seen = [*state["deck"], *state["discard"], *state["out"], *state["removed"]]
    for hand in state["hands"]:
        seen += hand
    for row in state["rows"]:
        for e in row:
            seen.append(e["id"])
            if e["atk"] is not None:
                seen.append(e["atk"]["id"])
            if e["amb"] is not None:
                seen.append(e["amb"]["id"])
    for t in state["tucked"]:
        seen += t
    seen += [h for h in state["homeworlds"] if h]
    return Counter(seen)


def all_card_ids(state):
    cs = state["set"]
    return [*cs["empire"], *cs["attack"], *cs["ambassador"], *cs["homeworld"]]
