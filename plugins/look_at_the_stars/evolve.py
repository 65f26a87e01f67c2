"""Folding events into state (``evolve``), copy-on-write.

The state's layout is documented in :mod:`.state`. Only the changed parts
are copied: a step copies the state dict, the players list and that one
player; everything else is shared.
"""

from __future__ import annotations

from .geometry import jkey, jpt
from .scoring import public_scores
from .state import TURN_RESET, new_player


def _keys(lines) -> list[int]:
    return [jkey(line) for line in lines]


def _pending(event) -> list[list[int]]:
    return [sorted(_keys(o)) for o in event["pending"]]


def _logged(event: dict) -> dict:
    """The step as published at the turn's end (pending lists are bookkeeping, not drawings)."""
    return {k: v for k, v in event.items() if k != "pending"}


def _card_placed(p, e):
    p["lines"] = p["lines"] + _keys(e["lines"])
    p["drawn"] = True
    p["pending"] = _pending(e)


def _shooting_star_placed(p, e):
    p["shooting"] = p["shooting"] + [_keys(e["segments"])]
    p["heads"] = p["heads"] + [jpt(e["head"])]
    p["drawn"] = True


def _card_skipped(p, e):
    p["drawn"] = True


def _occurrence_selected(p, e):
    p["selected"] = sorted(_keys(e["occurrence"]))


_FIELD = {
    "planet": "planets",
    "new_stars": "new_stars",
    "galaxy": "galaxies",
    "twinkling_star": "twinkles",
    "nova": "novas",
    "luminous_aura": "auras",
}


def _power_used(p, e):
    if "consumed" in e:
        p["consumed"] = p["consumed"] + _keys(e["consumed"])
    power = e["power"]
    if "line" in e:
        p["lines"] = p["lines"] + [jkey(e["line"])]
    elif "point" in e:
        point = jpt(e["point"])
        if power == "crescent_moon":
            p["moon"] = point
        elif power == "black_hole":
            p["black_hole"] = point
        else:
            field = _FIELD[power]
            p[field] = p[field] + [point]
    p["stars_left"] = e.get("new_stars_left", 0)
    p["selected"] = None
    p["pending"] = _pending(e)


def _power_declined(p, e):
    p["consumed"] = p["consumed"] + _keys(e["consumed"])
    p["selected"] = None
    p["pending"] = _pending(e)


def _turn_confirmed(p, e):
    p["confirmed"] = True


STEP_FOLDS = {
    "card_placed": _card_placed,
    "shooting_star_placed": _shooting_star_placed,
    "card_skipped": _card_skipped,
    "occurrence_selected": _occurrence_selected,
    "power_used": _power_used,
    "power_declined": _power_declined,
}


def evolve(state: dict | None, event: dict) -> dict:
    kind = event["type"]
    if kind == "game_set_up":
        players = [new_player(s) for s in event["sheets"]]
        rules = dict(event["rules"])
        return {
            "n": event["num_seats"],
            "rules": rules,
            "deck": list(event["deck"]),
            "turn": 0,
            "players": players,
            "public": list(players),
            "result": None,
            "public_scores": public_scores(players, rules) if rules["live_score"] else None,
        }
    if kind == "card_revealed":
        return {**state, "turn": event["turn"]}
    if kind == "fork_shuffled":  # a fork's deal: the cards not yet revealed, in a new order
        kept = len(state["deck"]) - len(event["unrevealed"])
        return {**state, "deck": state["deck"][:kept] + list(event["unrevealed"])}
    if kind in STEP_FOLDS or kind == "turn_confirmed":
        seat = event["seat"]
        player = dict(state["players"][seat])
        if kind == "turn_confirmed":
            _turn_confirmed(player, event)
        else:
            STEP_FOLDS[kind](player, event)
            player["log"] = player["log"] + [_logged(event)]
        players = list(state["players"])
        players[seat] = player
        return {**state, "players": players}
    if kind == "turn_revealed":
        # H2: every sheet becomes public at once, as it stands after this turn.
        players = [{**p, **TURN_RESET} for p in state["players"]]
        out = {**state, "players": players, "public": list(players)}
        if state["rules"]["live_score"]:  # H4; computed once per turn, not per view
            out["public_scores"] = public_scores(players, state["rules"])
        return out
    if kind == "game_ended":
        return {
            **state,
            "result": {
                "scores": list(event["scores"]),
                "winners": list(event["winners"]),
                "breakdown": [dict(b) for b in event["breakdown"]],
            },
        }
    raise ValueError(f"unknown event type {kind!r}")
