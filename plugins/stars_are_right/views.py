"""What each seat may see (SAR-H1 .. H5): views, redacted events, sampling.

Public: the sky, every creature and its tapped state, the discard pile, hand
and draw-pile sizes, the turn's bookkeeping. Private: a seat's own hand, the
cards it draws, the card it takes from the draw pile with a Dhole and (while
taking it) the draw pile's contents in card-id order (H3). Hidden from all:
the draw-pile order (``deck_shuffled``, ``reshuffled``, ``dhole_took`` and a
fork's ``fork_shuffled`` carry it only in the stored event).
"""

from __future__ import annotations

from .content import ALL_CARD_IDS, TILE_FACES
from .scoring import vp


def _look(state: dict, seat) -> list | None:
    if state["dhole"] == "draw" and seat is not None and seat == state["active"]:
        return sorted(state["deck"])
    return None


def view(state: dict, seat) -> dict:
    """The state as ``seat`` (``None`` = spectator) may see it."""
    n = state["n"]
    dhole = None
    if state["dhole"] is not None:
        dhole = {"pile": state["dhole"]}
        look = _look(state, seat)
        if look is not None:
            dhole["look"] = look
    faces = state["faces"]
    return {
        "num_seats": n,
        "options": dict(state["opts"]),
        "seat": seat,
        "current": state["active"],
        "phase": state["phase"],
        "turn": state["turn"],
        "first": state["first"],
        "sky": list(state["sky"]),
        "up": [TILE_FACES[t][faces[t]] for t in state["sky"]],
        "hand": list(state["hands"][seat]) if seat is not None else None,
        "hand_sizes": [len(h) for h in state["hands"]],
        "creatures": [list(t) for t in state["tables"]],
        "tapped": list(state["tapped"]),
        "discard": list(state["discard"]),
        "deck_size": len(state["deck"]),
        "invoked": state["invoked"],
        "pool": dict(state["pool"]),
        "no_cancel": None if state["nc"] is None else {k: list(v) for k, v in state["nc"].items()},
        "summoned": state["summoned"],
        "discards_made": state["discards"],
        "dhole": dhole,
        "vp": [vp(state, s) for s in range(n)],
        "winners": None if state["winners"] is None else list(state["winners"]),
        "end": state["end"],
    }


_SECRET_ORDER = ("deck_shuffled", "reshuffled", "dhole_took", "fork_shuffled")


def redact(event: dict, seat) -> dict:
    """``event`` as ``seat`` may see it."""
    kind = event["type"]
    if kind == "dealt":
        return {**event, "hands": [h if i == seat else None for i, h in enumerate(event["hands"])]}
    if kind not in _SECRET_ORDER and kind not in ("drew", "dhole_used"):
        return event
    out = {k: v for k, v in event.items() if k != "order"}
    if kind == "deck_shuffled":
        out["count"] = len(event["order"])
    own = seat is not None and seat == event.get("seat")
    if kind == "drew" and not own:
        del out["cards"]
    elif kind == "dhole_used" and not own:
        out.pop("look", None)
    elif kind == "dhole_took" and event["pile"] == "draw" and not own:
        del out["card"]
    return out


def sample_state(v: dict, seat: int, rng) -> dict:
    """A full state matching ``seat``'s view, the unseen cards dealt at random."""
    n = v["num_seats"]
    faces = [0] * 25
    for tile, code in zip(v["sky"], v["up"]):
        faces[tile] = TILE_FACES[tile].index(code)
    known = set(v["hand"]) | set(v["discard"]) | {c for t in v["creatures"] for c in t}
    if v["invoked"] is not None:
        known.add(v["invoked"])
    look = (v["dhole"] or {}).get("look")
    unseen = [c for c in ALL_CARD_IDS if c not in known and (look is None or c not in look)]
    unseen = rng.shuffled(unseen)
    hands = []
    for s in range(n):
        if s == seat:
            hands.append(list(v["hand"]))
        else:
            hands.append(unseen[: v["hand_sizes"][s]])
            unseen = unseen[v["hand_sizes"][s] :]
    deck = rng.shuffled(look) if look is not None else unseen
    nc = v["no_cancel"]
    return {
        "n": n,
        "opts": dict(v["options"]),
        "sky": list(v["sky"]),
        "faces": faces,
        "deck": deck,
        "discard": list(v["discard"]),
        "hands": hands,
        "tables": [list(t) for t in v["creatures"]],
        "tapped": list(v["tapped"]),
        "active": v["current"],
        "phase": v["phase"],
        "invoked": v["invoked"],
        "pool": dict(v["pool"]),
        "nc": None if nc is None else {k: list(x) for k, x in nc.items()},
        "summoned": v["summoned"],
        "discards": v["discards_made"],
        "dhole": None if v["dhole"] is None else v["dhole"]["pile"],
        "turn": v["turn"],
        "first": v["first"],
        "winners": None if v["winners"] is None else list(v["winners"]),
        "end": v["end"],
    }
