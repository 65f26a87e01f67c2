"""Event building for ``decide``: draws, reshuffles, abilities and turn ends.

A :class:`Flow` emits events one by one and folds each into a working copy of
the state at once, so later decisions in the same step see their effect (a
draw that empties the deck, then a reshuffle, then the rest of the draw).
"""

from __future__ import annotations

from .evolve import evolve
from .rules import ONE_SHOT, count_working, find, half

#: Abilities whose use names another player / a card.
PLAYER_TARGET = ("take", "discard", "threat", "loss")
CARD_TARGET = ("thrive", "info")


class Flow:
    """The events of one step, with the state they lead to."""

    def __init__(self, state, rng):
        self.state, self.rng, self.events = state, rng, []

    def emit(self, event):
        self.events.append(event)
        self.state = evolve(self.state, event)

    def phase(self, name, pending=None, **extra):
        event = {"type": "phase", "phase": name, "seat": self.state["cur"]}
        if pending is not None:
            event["pending"] = pending
        event.update(extra)
        self.emit(event)


def draw(flow, seat, n, reason, look=False, then=None):
    """Draw ``n`` cards for ``seat`` (TSE-X4), reshuffling the discard pile
    when the deck runs out (TSE-T27). With ``look`` the seat's working Look
    abilities add L cards and open a ``look`` decision (TSE-T35); returns
    True when that decision is now pending."""
    extra_look = count_working(flow.state, seat, "look") if look and n > 0 else 0
    want, drawn = n + extra_look, []
    while len(drawn) < want:
        state = flow.state
        if not state["deck"]:
            if not state["discard"]:
                break  # TSE-T27: both empty, the remaining draws are skipped
            flow.emit(
                {
                    "type": "deck_formed",
                    "source": "discard",
                    "deck": flow.rng.shuffled(state["discard"]),
                }
            )
            continue
        cards = state["deck"][: want - len(drawn)]
        flow.emit({"type": "drew", "seat": seat, "cards": cards, "reason": reason, "reveal": True})
        drawn += cards
    to_bottom = len(drawn) - min(n, len(drawn))
    if to_bottom > 0:
        flow.phase("look", {"seat": seat, "drawn": drawn, "count": to_bottom, "then": then})
        return True
    return False


def after_look(flow, then):
    """Continue where a Look decision interrupted."""
    if then in ("end", "end_stuck"):
        finish_turn(flow)
    else:
        flow.phase(then)


def finish_turn(flow):
    """Count the turn (TSE-T6, T25), end the game or start the next turn."""
    state = flow.state
    seat = state["cur"]
    flow.emit({"type": "turn_ended", "seat": seat})
    state = flow.state
    if all(t >= state["T"] for t in state["turns"]):
        flow.emit({"type": "game_over", "homeworlds": list(state["homeworlds"]), "reveal": True})
        return
    nxt = (seat + 1) % state["n"]
    owed = state["stuck"][nxt]
    flow.emit({"type": "turn_started", "seat": nxt})
    if owed:  # TSE-T26: the stuck player draws 5 before step 1 (Look applies)
        draw(flow, nxt, state["set"]["rules"]["hand_size"], "stuck", look=True, then="exchange")


def after_payment(flow):
    """Where a completed payment leads (TSE-T19: the one-shot comes next)."""
    pending = flow.state["pending"]
    if pending["for"] == "empire":
        state = flow.state
        row = state["rows"][state["cur"]]
        entry = row[find(row, pending["card"])]
        kind = half(state, entry)["ability"]
        if kind is not None and state["set"]["abilities"].get(kind) == ONE_SHOT:
            flow.phase("ability", {"source": entry["id"], "ability": kind, "return": "attack"})
        else:
            flow.phase("attack")
    elif pending["for"] == "attack":
        flow.phase("attack")
    else:
        flow.phase("ambassador")


def resolve(flow, seat, source, kind, player, card, ret):
    """Use one-shot ability ``kind`` of row card ``source`` (TSE-T37..T44)."""
    event = {"type": "ability_used", "seat": seat, "source": source, "ability": kind}
    if kind in PLAYER_TARGET:
        event["player"] = player
    if kind in CARD_TARGET:
        event["card"] = card
    if kind == "info":
        # TSE-H5: whether others may see the card taken (info_taken says the same).
        event["public"] = flow.state["opts"]["discard_pile_public"]
    flow.emit(event)
    state = flow.state
    if kind in PLAYER_TARGET:  # acts on the target's hand: nothing happens when it is empty
        hand = state["hands"][player]
        if hand and _resolve_on_hand(flow, seat, kind, player, hand, ret):
            return  # the decision passed to a player
    else:
        _resolve_other(flow, state, seat, kind, card)
    flow.phase(ret)


def _resolve_on_hand(flow, seat, kind, player, hand, ret) -> bool:
    """Take, discard, threaten or hand over from ``player``'s ``hand``; True when that opens a
    phase in which someone decides (threat, loss)."""
    rng = flow.rng
    if kind == "take":
        taken = rng.choice(hand)
        flow.emit({"type": "took", "seat": seat, "from": player, "card": taken, "reveal": True})
        draw(flow, player, 1, "take")
    elif kind == "discard":
        cards = rng.sample(hand, min(2, len(hand)))
        flow.emit({"type": "discarded", "seat": player, "cards": cards, "reason": "discard", "by": seat})
        draw(flow, player, len(cards), "discard")
    elif kind == "threat":
        # TSE-T40: the target chooses; the decision passes to them (an undo barrier).
        flow.phase(
            "threat",
            {"player": player, "count": min(4, len(hand)), "by": seat, "return": ret},
            reveal=True,
        )
        return True
    else:  # loss
        cards = rng.sample(hand, min(3, len(hand)))
        flow.emit({"type": "loss_handed", "seat": seat, "from": player, "cards": cards, "reveal": True})
        flow.phase("loss", {"from": player, "cards": cards, "return": ret})
        return True
    return False


def _resolve_other(flow, state, seat, kind, card) -> None:
    """Thrive, Info, Rebirth and Bully."""
    if kind == "thrive":
        for owner, target, red in _reds(state):
            if red == card:
                flow.emit({"type": "thrived", "seat": seat, "card": card, "owner": owner, "target": target})
    elif kind == "info":
        public = state["opts"]["discard_pile_public"]
        flow.emit({"type": "info_taken", "seat": seat, "card": card, "public": public, "reveal": not public})
    elif kind == "rebirth":
        deck = flow.rng.shuffled(state["discard"] + state["deck"])
        flow.emit({"type": "deck_formed", "source": "rebirth", "seat": seat, "deck": deck})
    elif kind == "bully":
        flow.emit({"type": "bullied", "seat": seat, "player": (seat + 1) % state["n"]})


def _reds(state):
    return [
        (p, e["id"], e["atk"]["id"])
        for p in range(state["n"])
        for e in state["rows"][p]
        if e["atk"] is not None
    ]
