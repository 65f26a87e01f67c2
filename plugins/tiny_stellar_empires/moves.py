"""Enumerating the legal atomic steps (spec section 9) for a seat."""

from __future__ import annotations

from itertools import combinations, permutations

from .flow import PLAYER_TARGET
from .rules import (
    ability,
    ambassador_targets,
    attack_opponents,
    attackable,
    deferred_sources,
    empire_plays,
    find,
)


def active_seats(state):
    if state["over"]:
        return []
    if state["phase"] == "threat":
        return [state["pending"]["player"]]
    return [state["cur"]]


def ability_targets(state, seat, kind):
    """The target part of every legal use of ``kind`` (``{}``, ``{"player"}`` or ``{"card"}``)."""
    if kind in PLAYER_TARGET:
        return [{"player": p} for p in range(state["n"]) if p != seat]
    if kind == "thrive":
        return [{"card": e["atk"]["id"]} for row in state["rows"] for e in row if e["atk"]]
    if kind == "info":
        return [{"card": c} for c in dict.fromkeys(state["discard"])]
    return [{}]


def _uses(state, seat, sources):
    out = []
    for source in sources:
        row = state["rows"][seat]
        kind = ability(state, row[find(row, source)])
        out += [{"type": "use_ability", "source": source, **t} for t in ability_targets(state, seat, kind)]
    return out


def legal_moves(state, seat):
    """Every step ``seat`` may take now; ``[]`` when it is not that seat's decision."""
    if seat not in active_seats(state):
        return []
    phase, pending, hand = state["phase"], state["pending"], state["hands"][seat]
    if phase == "threat":
        return [{"type": "threat_discard", "cards": list(c)} for c in combinations(hand, pending["count"])]
    if phase == "look":
        return [
            {"type": "look_bottom", "cards": list(c)}
            for c in permutations(pending["drawn"], pending["count"])
        ]
    if phase == "pay":
        return [{"type": "pay", "card": c} for c in hand]
    if phase == "loss":
        return [{"type": "loss_discard", "card": c} for c in pending["cards"]]
    if phase == "ability":
        source = pending["source"]
        return _uses(state, seat, [source]) + [{"type": "decline_ability", "source": source}]
    moves = []
    if phase in ("exchange", "empire"):
        plays = empire_plays(state, seat)
        if not plays:
            moves.append({"type": "declare_stuck"})
        if phase == "exchange":
            most = state["set"]["rules"]["exchange_max"]
            for k in range(most + 1):
                moves += [{"type": "exchange", "cards": list(c)} for c in combinations(hand, k)]
        else:
            moves += [{"type": "play_empire", "card": c, "orientation": o} for c, o in plays]
            if not (plays and state["opts"]["empire_play_mandatory"]):
                moves.append({"type": "skip_empire"})
    elif phase == "attack":
        reds = [c for c in hand if c in state["set"]["attack"]]
        for red in reds:
            if len(hand) - 1 < state["set"]["attack"][red]:
                continue
            for p in attack_opponents(state, seat):
                for target in attackable(state, p):
                    for mode in ("raid", "invasion"):
                        moves.append(
                            {
                                "type": "attack",
                                "card": red,
                                "player": p,
                                "target": target,
                                "mode": mode,
                            }
                        )
        moves.append({"type": "end_attacks"})
    elif phase == "ambassador":
        if len(hand) - 1 >= state["ambs"]:
            greens = [c for c in hand if c in state["set"]["ambassador"]]
            targets = ambassador_targets(state, seat)
            moves += [
                {"type": "ambassador", "card": g, "target": t, "end": end}
                for g in greens
                for t in targets
                for end in (0, 1)
            ]
        moves.append({"type": "end_turn"})
    return moves + _uses(state, seat, deferred_sources(state, seat))
