"""Who decides, the legal atomic steps (spec section 9), and validating a step into events.

:func:`legal_moves` enumerates what :func:`decide` accepts. Each handler checks its move against the rules, raising ``IllegalMove`` with
a stable rule code, then emits events through a :class:`~.flow.Flow`.
Messages never mention hidden cards.
"""

from __future__ import annotations

from itertools import combinations, permutations

from gameroom.plugin_api import IllegalMove

from .flow import (
    CARD_TARGET,
    PLAYER_TARGET,
    Flow,
    after_look,
    after_payment,
    draw,
    finish_turn,
    resolve,
)
from .moves import BETWEEN_STEPS, PHASE_STEPS, card_ids, integer, move_type, string
from .rules import (
    ability,
    ambassador_targets,
    attack_opponents,
    attackable,
    deferred_sources,
    effective_cost,
    empire_plays,
    find,
    fits,
    turns_left,
)

# -- who decides, and what ---------------------------------------------------------------


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
        moves += _attacks(state, seat, hand)
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


def _attacks(state, seat, hand):
    """Every attack ``seat`` may make with a red card of its ``hand`` it can pay for."""
    moves = []
    for red in [c for c in hand if c in state["set"]["attack"]]:
        if len(hand) - 1 < state["set"]["attack"][red]:
            continue
        for p in attack_opponents(state, seat):
            for target in attackable(state, p):
                for mode in ("raid", "invasion"):
                    moves.append({"type": "attack", "card": red, "player": p, "target": target, "mode": mode})
    return moves


# -- shape checks -----------------------------------------------------------------------


def _in_hand(state, seat, cards):
    hand = state["hands"][seat]
    if any(c not in hand for c in cards):
        raise IllegalMove("not-in-hand", "That card is not in your hand.")


def _player(state, move, seat):
    p = integer(move, "player")
    if not 0 <= p < state["n"]:
        raise IllegalMove("no-such-player", "There is no such player.")
    if p == seat:
        raise IllegalMove("target-self", "Choose another player.")
    return p


# -- steps ---------------------------------------------------------------------------------


def _exchange(flow, seat, move):
    cards = card_ids(move)
    if len(cards) > flow.state["set"]["rules"]["exchange_max"]:
        raise IllegalMove("exchange-too-many", "Exchange at most 2 cards (TSE-T15).")
    _in_hand(flow.state, seat, cards)
    flow.emit({"type": "exchanged", "seat": seat, "cards": cards})
    if not draw(flow, seat, len(cards), "exchange", look=True, then="empire"):
        flow.phase("empire")


def _declare_stuck(flow, seat, move):
    state = flow.state
    if empire_plays(state, seat):
        raise IllegalMove("not-stuck", "You can still play an empire card (TSE-T26).")
    flow.emit({"type": "stuck", "seat": seat, "cards": list(state["hands"][seat]), "reveal": True})
    if state["opts"]["stuck_redraw"] == "immediate":
        if draw(flow, seat, state["set"]["rules"]["hand_size"], "stuck", look=True, then="end_stuck"):
            return
    finish_turn(flow)


def _look_bottom(flow, seat, move):
    pending = flow.state["pending"]
    cards = card_ids(move)
    if any(c not in pending["drawn"] for c in cards):
        raise IllegalMove("not-drawn", "Choose among the cards you just drew (TSE-T35).")
    if len(cards) != pending["count"]:
        raise IllegalMove("look-wrong-count", f"Put exactly {pending['count']} card(s) on the bottom.")
    flow.emit({"type": "looked", "seat": seat, "cards": cards})
    after_look(flow, pending["then"])


def _play_empire(flow, seat, move):
    state = flow.state
    cid, orientation = string(move, "card"), string(move, "orientation")
    if orientation not in ("A", "B"):
        raise IllegalMove("bad-orientation", "Orientation is 'A' or 'B'.")
    _in_hand(state, seat, [cid])
    if cid not in state["set"]["empire"]:
        raise IllegalMove("not-an-empire-card", "Only empire cards go into the row (TSE-T16).")
    if not fits(state, state["rows"][seat], cid, orientation):
        raise IllegalMove("route-mismatch", "The trade routes do not match the last card (TSE-T10).")
    cost = effective_cost(state, seat, cid)
    if len(state["hands"][seat]) - 1 < cost:
        raise IllegalMove("cannot-afford", f"This card costs {cost} cards (TSE-T17, T18).")
    flow.emit({"type": "played", "seat": seat, "card": cid, "orientation": orientation, "cost": cost})


def _skip_empire(flow, seat, move):
    state = flow.state
    if state["opts"]["empire_play_mandatory"] and empire_plays(state, seat):
        raise IllegalMove("empire-play-mandatory", "You must play an empire card (option).")
    flow.phase("attack")


def _pay(flow, seat, move):
    cid = string(move, "card")
    _in_hand(flow.state, seat, [cid])
    flow.emit({"type": "paid", "seat": seat, "card": cid})
    if flow.state["pending"]["due"] <= 0:
        after_payment(flow)


def _use_ability(flow, seat, move):
    state = flow.state
    source = string(move, "source")
    if state["phase"] == "ability":
        if source != state["pending"]["source"]:
            raise IllegalMove("ability-not-available", "Resolve the ability of the card just played.")
        ret = state["pending"]["return"]
    elif source in deferred_sources(state, seat):
        ret = state["phase"]
    else:
        raise IllegalMove("ability-not-available", "That card has no one-shot ability to use now.")
    row = state["rows"][seat]
    kind = ability(state, row[find(row, source)])
    player = card = None
    if kind in PLAYER_TARGET:
        player = _player(state, move, seat)
    elif kind in CARD_TARGET:
        card = string(move, "card")
        if {"card": card} not in ability_targets(state, seat, kind):
            raise IllegalMove("bad-target", "That card cannot be chosen for this ability.")
    resolve(flow, seat, source, kind, player, card, ret)


def _decline_ability(flow, seat, move):
    source = string(move, "source")
    pending = flow.state["pending"]
    if source != pending["source"]:
        raise IllegalMove("ability-not-available", "Only the card just played can be declined.")
    flow.emit({"type": "ability_declined", "seat": seat, "source": source})
    flow.phase(pending["return"])


def _threat_discard(flow, seat, move):
    pending = flow.state["pending"]
    cards = card_ids(move)
    _in_hand(flow.state, seat, cards)
    if len(cards) != pending["count"]:
        raise IllegalMove("threat-wrong-count", f"Discard exactly {pending['count']} cards (TSE-T40).")
    flow.emit({"type": "discarded", "seat": seat, "cards": cards, "reason": "threat", "by": pending["by"]})
    draw(flow, seat, len(cards), "threat")
    flow.phase(pending["return"])


def _loss_discard(flow, seat, move):
    pending = flow.state["pending"]
    cid = string(move, "card")
    if cid not in pending["cards"]:
        raise IllegalMove("not-received", "Discard one of the cards you received (TSE-T44).")
    flow.emit({"type": "discarded", "seat": seat, "cards": [cid], "reason": "loss"})
    rest = [c for c in pending["cards"] if c != cid]
    if rest:
        flow.emit({"type": "loss_returned", "seat": seat, "to": pending["from"], "cards": rest})
    draw(flow, pending["from"], 1, "loss")
    flow.phase(pending["return"])


def _attack(flow, seat, move):
    state = flow.state
    red, target, mode = string(move, "card"), string(move, "target"), string(move, "mode")
    player = _player(state, move, seat)
    _in_hand(state, seat, [red])
    if red not in state["set"]["attack"]:
        raise IllegalMove("not-a-red-card", "Attack with a Raid/Invasion card (TSE-T20).")
    if mode not in ("raid", "invasion"):
        raise IllegalMove("bad-mode", "The mode is 'raid' or 'invasion'.")
    if player in state["attacked"]:
        raise IllegalMove("already-attacked", "You attacked that player this turn (TSE-T20).")
    if turns_left(state, player) <= 0:
        raise IllegalMove("player-finished", "That player has finished their turns (TSE-T28).")
    if player not in attack_opponents(state, seat):
        raise IllegalMove("attack-limit", "No more attacks this turn (option max_attacks_per_turn).")
    row = state["rows"][player]
    i = find(row, target)
    if i < 0:
        raise IllegalMove("target-not-in-row", "That card is not in that player's row.")
    if target not in attackable(state, player):
        entry = row[i]
        code = (
            "target-attacked"
            if entry["atk"]
            else "target-has-ambassador"
            if entry["amb"]
            else "target-protected"
        )
        raise IllegalMove(code, "That card cannot be attacked (TSE-T20, T24, T34).")
    extra = state["set"]["attack"][red]
    if len(state["hands"][seat]) - 1 < extra:
        raise IllegalMove("cannot-afford", "An attack costs 1 extra discard (TSE-T20).")
    flow.emit(
        {
            "type": "attacked",
            "seat": seat,
            "card": red,
            "player": player,
            "target": target,
            "mode": mode,
            "cost": extra,
        }
    )
    if extra == 0:
        after_payment(flow)


def _ambassador(flow, seat, move):
    state = flow.state
    green, target, end = string(move, "card"), string(move, "target"), integer(move, "end")
    _in_hand(state, seat, [green])
    if green not in state["set"]["ambassador"]:
        raise IllegalMove("not-an-ambassador", "Play an Ambassador card (TSE-T22).")
    if end not in (0, 1):
        raise IllegalMove("bad-end", "Choose end 0 or 1 (TSE-T23).")
    row = state["rows"][seat]
    i = find(row, target)
    if i < 0:
        raise IllegalMove("not-your-card", "Ambassadors go on your own empire cards (TSE-T22).")
    if target not in ambassador_targets(state, seat):
        code = "target-has-ambassador" if row[i]["amb"] else "target-not-attacked"
        raise IllegalMove(code, "That card cannot take an ambassador (TSE-T22, T24).")
    cost = state["ambs"]
    if len(state["hands"][seat]) - 1 < cost:
        raise IllegalMove("cannot-afford", f"This ambassador costs {cost} extra discards (TSE-T22).")
    removed = row[i]["atk"]["id"] if row[i]["atk"] else None
    flow.emit(
        {
            "type": "ambassador_placed",
            "seat": seat,
            "card": green,
            "target": target,
            "end": end,
            "removed": removed,
            "cost": cost,
        }
    )
    if cost == 0:
        after_payment(flow)


def _end_attacks(flow, seat, move):
    flow.phase("ambassador")


def _end_turn(flow, seat, move):
    state = flow.state
    missing = max(0, state["set"]["rules"]["hand_size"] - len(state["hands"][seat]))
    if not draw(flow, seat, missing, "refill", look=True, then="end"):
        finish_turn(flow)


HANDLERS = {
    "exchange": _exchange,
    "declare_stuck": _declare_stuck,
    "look_bottom": _look_bottom,
    "play_empire": _play_empire,
    "skip_empire": _skip_empire,
    "pay": _pay,
    "use_ability": _use_ability,
    "decline_ability": _decline_ability,
    "threat_discard": _threat_discard,
    "loss_discard": _loss_discard,
    "attack": _attack,
    "ambassador": _ambassador,
    "end_attacks": _end_attacks,
    "end_turn": _end_turn,
}


def decide(state, seat, move, rng):
    """Validate ``move`` by ``seat`` and return its events."""
    kind = move_type(move)
    handler = HANDLERS[kind]
    if state["over"]:
        raise IllegalMove("match-over", "The match is over.")
    if seat not in active_seats(state):
        raise IllegalMove("not-your-turn", "It is not your decision.")
    phase = state["phase"]
    deferred = kind == "use_ability" and phase in BETWEEN_STEPS and deferred_sources(state, seat)
    if kind not in PHASE_STEPS.get(phase, ()) and not deferred:
        raise IllegalMove("wrong-step", f"'{kind}' is not possible in the {phase} step.")
    flow = Flow(state, rng)
    handler(flow, seat, move)
    return flow.events
