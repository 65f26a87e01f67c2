"""What each seat may see (spec section 6): views, redacted events, sampling.

Public (TSE-H1): rows with their red cards and ambassadors, used one-shots,
hand sizes, deck size, the discard pile (only its top with
``discard_pile_public = false``, TSE-H5), tucked cards, counters. Private
(TSE-H2): a seat's hand, homeworld, draws and Look bottom cards. Shared by
two (TSE-H3): the card taken with Take, the cards handed over with Loss.
Hidden from all (TSE-H4): deck order and removed homeworlds.
"""

from __future__ import annotations

from .decide import active_seats
from .rules import ability, deferred_sources, find
from .scoring import result, standing


def _pending_for(state_pending, phase, cur, seat):
    """The open decision as ``seat`` may see it."""
    pending = state_pending
    if pending is None:
        return None
    if phase == "look" and seat != pending["seat"]:
        return {**pending, "drawn": None, "drawn_count": len(pending["drawn"])}
    if phase == "loss" and seat not in (cur, pending["from"]):
        return {**pending, "cards": None, "cards_count": len(pending["cards"])}
    return pending


def _sees_discard(state, seat):
    """TSE-H5: with a hidden pile, Info shows the whole pile to its user only."""
    if state["opts"]["discard_pile_public"]:
        return True
    if seat is None or seat != state["cur"] or state["over"]:
        return False
    if state["phase"] == "ability":
        return state["pending"]["ability"] == "info"
    row = state["rows"][seat]
    return any(ability(state, row[find(row, c)]) == "info" for c in deferred_sources(state, seat))


def view(state, seat):
    over = state["over"]
    own = seat is not None
    return {
        "set": state["set"],
        "options": state["opts"],
        "num_seats": state["n"],
        "turns_per_player": state["T"],
        "first": state["start"],
        "current": state["cur"],
        "phase": state["phase"],
        "pending": _pending_for(state["pending"], state["phase"], state["cur"], seat),
        "active": active_seats(state),
        "seat": seat,
        "hand": list(state["hands"][seat]) if own else None,
        "homeworld": state["homeworlds"][seat] if own else None,
        "homeworlds": list(state["homeworlds"]) if over else None,
        "hand_sizes": [len(h) for h in state["hands"]],
        "deck_size": len(state["deck"]),
        "discard": list(state["discard"]) if _sees_discard(state, seat) else None,
        "discard_top": state["discard"][-1] if state["discard"] else None,
        "discard_size": len(state["discard"]),
        "rows": state["rows"],
        "tucked": state["tucked"],
        "out": state["out"],
        "turns": state["turns"],
        "reds_played": state["reds"],
        "bully": state["bully"],
        "stuck_owed": state["stuck"],
        "attacked": state["attacked"],
        "ambassadors_this_turn": state["ambs"],
        "known": [[c, h] for c, h, v in state["known"] if v == seat] if own else [],
        "deck_bottom_mine": [c for c, s in state["bottom"] if s == seat] if own else [],
        "over": over,
        "outcome": result(state) if over else None,
        "standing": standing(state, seat),
    }


def redact(event, seat):
    """``event`` as ``seat`` may see it (draws show only a count to others ...)."""
    kind = event["type"]
    if kind == "homeworlds_dealt":
        return {
            "type": kind,
            "removed": None,
            "removed_count": len(event["removed"]),
            "homeworlds": [h if i == seat else None for i, h in enumerate(event["homeworlds"])],
        }
    if kind in ("deck_formed", "fork_shuffled"):
        return {**event, "deck": None, "size": len(event["deck"])}
    if kind in ("drew", "looked") and seat != event["seat"]:
        return {**event, "cards": None, "count": len(event["cards"])}
    if kind == "took" and seat not in (event["seat"], event["from"]):
        return {**event, "card": None}
    if kind == "loss_handed" and seat not in (event["seat"], event["from"]):
        return {**event, "cards": None, "count": len(event["cards"])}
    if kind == "loss_returned" and seat not in (event["seat"], event["to"]):
        return {**event, "cards": None, "count": len(event["cards"])}
    if kind == "info_taken" and not event["public"] and seat != event["seat"]:
        return {**event, "card": None}
    if (
        kind == "ability_used"
        and event["ability"] == "info"
        and not event.get("public", False)
        and seat != event["seat"]
    ):
        # TSE-H5: the card Info takes from a hidden pile is its user's alone, here as in
        # info_taken (events logged before the flag existed are treated as hidden).
        return {**event, "card": None}
    if kind == "phase" and "pending" in event:
        return {
            **event,
            "pending": _pending_for(event["pending"], event["phase"], event["seat"], seat),
        }
    return event


# -- sampling ------------------------------------------------------------------------------------


def sample_state(v, seat, rng):
    """A full state that shows ``seat`` exactly view ``v`` (hidden parts at random)."""
    cs, n = v["set"], v["num_seats"]
    pool = [*cs["empire"], *cs["attack"], *cs["ambassador"]]
    forced = _forced_cards(v, seat)
    seen = _seen_cards(v, forced)
    unseen = rng.shuffled([c for c in pool if c not in seen])
    hands, discard, deck = _deal_unseen(v, seat, forced, unseen)
    homes = list(cs["homeworld"])
    if v["homeworlds"] is not None:
        homeworlds = list(v["homeworlds"])
    else:
        others = rng.shuffled([h for h in homes if h != v["homeworld"]])
        homeworlds = [v["homeworld"] if p == seat else others.pop() for p in range(n)]
    removed = [h for h in homes if h not in homeworlds]
    pending = _sample_pending(v, hands, rng)
    return {
        "set": cs,
        "opts": v["options"],
        "n": n,
        "T": v["turns_per_player"],
        "start": v["first"],
        "cur": v["current"],
        "phase": v["phase"],
        "pending": pending,
        "deck": deck,
        "discard": discard,
        "hands": hands,
        "rows": v["rows"],
        "tucked": v["tucked"],
        "out": v["out"],
        "homeworlds": homeworlds,
        "removed": removed,
        "turns": v["turns"],
        "reds": v["reds_played"],
        "bully": v["bully"],
        "stuck": v["stuck_owed"],
        "attacked": v["attacked"],
        "ambs": v["ambassadors_this_turn"],
        "known": [[c, h, seat] for c, h in v["known"]],
        "bottom": [[c, seat] for c in v["deck_bottom_mine"]],
        "over": v["over"],
    }


def _forced_cards(v, seat) -> list[list]:
    """Per seat, the cards ``seat`` knows it holds (known cards; a loss's cards shown to it)."""
    forced: list[list] = [[] for _ in range(v["num_seats"])]
    for card, holder in v["known"]:
        forced[holder].append(card)
    pending = v["pending"]
    if v["phase"] == "loss" and pending["cards"] is not None and seat != v["current"]:
        forced[v["current"]] += [c for c in pending["cards"] if c not in forced[v["current"]]]
    return forced


def _seen_cards(v, forced) -> set:
    """Every card whose place the view shows (or that a seat is known to hold)."""
    seen = set(v["hand"])
    seen |= {
        c
        for row in v["rows"]
        for e in row
        for c in (e["id"], e["atk"] and e["atk"]["id"], e["amb"] and e["amb"]["id"])
        if c
    }
    seen |= {c for t in v["tucked"] for c in t} | set(v["out"]) | set(v["deck_bottom_mine"])
    seen |= {c for f in forced for c in f}
    if v["discard"] is None and v["discard_top"] is not None:
        seen.add(v["discard_top"])
    elif v["discard"] is not None:
        seen |= set(v["discard"])
    return seen


def _deal_unseen(v, seat, forced, unseen: list) -> tuple[list, list, list]:
    """``(hands, discard, deck)``: the shuffled ``unseen`` cards dealt where the view hides cards."""
    hands = []
    for p in range(v["num_seats"]):
        if p == seat:
            hands.append(list(v["hand"]))
            continue
        need = v["hand_sizes"][p] - len(forced[p])
        hands.append(forced[p] + unseen[:need])
        unseen = unseen[need:]
    discard = v["discard"]
    if discard is None:
        hidden = v["discard_size"] - (1 if v["discard_top"] is not None else 0)
        discard = unseen[:hidden] + ([v["discard_top"]] if v["discard_top"] is not None else [])
        unseen = unseen[hidden:]
    return hands, discard, unseen + list(v["deck_bottom_mine"])


def _sample_pending(v, hands, rng):
    """The pending step with the cards the view hides (a look's draw, a loss's cards) sampled."""
    pending = v["pending"]
    if pending is not None:
        pending = dict(pending)
        if v["phase"] == "look" and pending["drawn"] is None:
            pending["drawn"] = rng.sample(hands[pending["seat"]], pending.pop("drawn_count"))
        if v["phase"] == "loss" and pending["cards"] is None:
            pending["cards"] = rng.sample(hands[v["current"]], pending.pop("cards_count"))
    return pending
