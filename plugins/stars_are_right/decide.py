"""The turn as atomic steps (SAR-B3 .. B12, spec section 10): who acts, legal moves, decide.

Each phase has its own small set of move types (:data:`.moves.PHASE_MOVES`). ``decide``
validates a move with the same ``resolve_*`` functions that ``legal_moves``
relies on, so a listed move is always accepted and anything else is refused
with a rule code.
"""

from __future__ import annotations

from gameroom.plugin_api import IllegalMove, clone

from . import services, sky, summon
from .content import CARDS, CONTENT
from .evolve import evolve
from .moves import PHASE_MOVES, card_id, move_type
from .scoring import vp
from .state import has_power

#: Static minion powers (SAR-B10.4, B10.5): letter -> larger limit.
GHAST, GHOULS = "D", "E"
DRAW_TO = {False: CONTENT.hand_size, True: CONTENT.hand_size + 1}
DISCARD_UP_TO = {False: 1, True: 2}

#: An upper bound on the steps of one turn, derived from the rules:
#: 1 invoke + phase 2 (<= 6 services, <= 6 minion uses, <= 6 Dhole takes, 1 end)
#: + phase 3 (<= 3 + 2 * 6 symbols) + 1 summon + 1 limit discard + 2 discards + 1 end.
STEPS_PER_TURN = 1 + 19 + 15 + 1 + 1 + 2 + 1


def max_steps(num_seats: int, options: dict) -> int | None:
    """An upper bound on the moves of a match: ``None`` (no bound) unless ``turn_limit``
    is set (SAR-B12.4). Without it a match ends only by victory (B12.2), which
    players may put off for ever; matches started under rules version 1 carry
    that version's 100-round cap in their state (``round_cap``, see ``upcast``)."""
    rounds = options.get("turn_limit")
    return None if rounds is None else rounds * num_seats * STEPS_PER_TURN


def round_limit(state: dict) -> tuple[int | None, str]:
    """After how many full rounds the match ends, and the ``game_over`` reason it gives."""
    limit = state["opts"]["turn_limit"]
    if limit is not None:
        return limit, "turn_limit"
    return state.get("round_cap"), "safeguard"  # only matches begun under rules version 1


def discard_limit(state: dict, seat: int) -> int:
    return DISCARD_UP_TO[has_power(state, seat, GHOULS)]


def hand_target(state: dict, seat: int) -> int:
    return DRAW_TO[has_power(state, seat, GHAST)]


# -- legal moves ------------------------------------------------------------


def active_seats(state: dict) -> list[int]:
    """SAR-B3: the seat whose turn it is, until the match is over."""
    return [] if state["phase"] == "over" else [state["active"]]


def legal_moves(state: dict, seat: int) -> list[dict]:
    if state["phase"] == "over" or seat != state["active"]:
        return []
    phase = state["phase"]
    if phase == "invoke":
        return [{"type": "invoke", "card": c} for c in state["hands"][seat]] + [{"type": "skip_invoke"}]
    if phase == "services":
        return (
            services.service_moves(state, seat)
            + services.exchange_moves(state, seat)
            + services.dhole_moves(state, seat)
            + [{"type": "end_services"}]
        )
    if phase == "dhole":
        return services.dhole_take_moves(state, seat)
    if phase == "sky":
        return clone(sky.legal_actions(state))
    if phase == "summon":
        return summon.summon_options(state, seat) + [{"type": "skip_summon"}]
    if phase == "limit":
        return [
            {"type": "discard_creature", "card": c}
            for c in state["tables"][seat]
            if _may_limit_discard(state, c)
        ]
    moves = []
    if state["discards"] < discard_limit(state, seat):
        moves = [{"type": "discard", "card": c} for c in state["hands"][seat]]
    return moves + [{"type": "end_turn"}]


def _may_limit_discard(state: dict, card: int) -> bool:
    return state["opts"]["limit_discard_may_choose_new"] or card != state["summoned"]


# -- decide -----------------------------------------------------------------


def decide(state: dict, seat: int, move: dict, rng) -> list[dict]:
    kind = move_type(move)
    if state["phase"] == "over":
        raise IllegalMove("match-over", "The match is over.")
    if seat != state["active"]:
        raise IllegalMove("not-your-turn", "It is not your turn.")
    if kind not in PHASE_MOVES[state["phase"]]:
        raise IllegalMove("wrong-phase", f"'{kind}' is not allowed in the {state['phase']} phase (B3.1).")
    return DECIDERS[kind](state, seat, move, rng)


def _invoke(state, seat, move, rng):
    card = card_id(move)
    if card not in state["hands"][seat]:
        raise IllegalMove("not-in-hand", "Invoke a card from your hand (B4.1).")
    pool = {"P": 0, "S": 0, "F": 0}
    for symbol in CARDS[card].invocation:
        pool[symbol] += 1
    return [{"type": "invoked", "seat": seat, "card": card, "pool": pool}]


def _skip_invoke(state, seat, move, rng):
    return [{"type": "invoke_skipped", "seat": seat}]


def _use_service(state, seat, move, rng):
    return [services.resolve_service(state, seat, move)]


def _exchange(state, seat, move, rng):
    return [services.resolve_exchange(state, seat, move)]


def _use_dhole(state, seat, move, rng):
    return [services.resolve_dhole(state, seat, move)]


def _dhole_take(state, seat, move, rng):
    return [services.resolve_dhole_take(state, seat, move, rng)]


def _forfeits(state: dict, seat: int) -> list[dict]:
    """SAR-B6.6: symbols with no legal action left are removed without effect."""
    events = []
    while state["phase"] == "sky":
        for symbol in ("P", "S", "F"):
            if state["pool"][symbol] and not sky.legal_actions(state, symbol, first=True):
                event = {"type": "symbol_forfeited", "seat": seat, "symbol": symbol}
                events.append(event)
                state = evolve(state, event)
                break
        else:
            break
    return events


def _end_services(state, seat, move, rng):
    event = {"type": "services_ended", "seat": seat}
    return [event] + _forfeits(evolve(state, event), seat)


def _sky_action(state, seat, move, rng):
    event, _, _ = sky.resolve(state, move)
    event = {"type": event.pop("type"), "seat": seat, **event}
    return [event] + _forfeits(evolve(state, event), seat)


def _summon(state, seat, move, rng):
    return [summon.resolve_summon(state, seat, move)]


def _skip_summon(state, seat, move, rng):
    return [{"type": "summon_skipped", "seat": seat}]


def _discard_creature(state, seat, move, rng):
    card = card_id(move)
    if card not in state["tables"][seat]:
        raise IllegalMove("not-your-creature", "Discard a creature you control (B7.3).")
    if not _may_limit_discard(state, card):
        raise IllegalMove("keep-new-creature", "The creature just summoned may not be discarded (option).")
    return [{"type": "creature_discarded", "seat": seat, "card": card}]


def _discard(state, seat, move, rng):
    card = card_id(move)
    if state["discards"] >= discard_limit(state, seat):
        raise IllegalMove("discard-limit", "No more discards this turn (B11.1, B10.5).")
    if card not in state["hands"][seat]:
        raise IllegalMove("not-in-hand", "Discard a card from your hand.")
    return [{"type": "card_discarded", "seat": seat, "card": card}]


def _draw_events(state: dict, seat: int, rng) -> list[dict]:
    """Refill the hand (SAR-B11.2), reshuffling the discard pile when needed (B11.3)."""
    need = hand_target(state, seat) - len(state["hands"][seat])
    deck, discard, events = state["deck"], state["discard"], []
    while need > 0:
        if not deck:
            if not discard:
                break
            deck, discard = rng.shuffled(discard), []
            events.append({"type": "reshuffled", "count": len(deck), "order": deck})
        cards = deck[:need]
        deck, need = deck[len(cards) :], need - len(cards)
        events.append({"type": "drew", "seat": seat, "cards": cards, "count": len(cards), "reveal": True})
    return events


def _end_turn(state, seat, move, rng):
    events = _draw_events(state, seat, rng)
    n = state["n"]
    events.append({"type": "turn_ended", "seat": seat, "next": (seat + 1) % n})
    scores = [vp(state, s) for s in range(n)]
    rounds, reason = round_limit(state)
    if scores[seat] >= CONTENT.target_points:
        events.append({"type": "game_over", "winners": [seat], "reason": "victory", "scores": scores})
    elif rounds is not None and state["turn"] + 1 >= rounds * n:
        best = max(scores)
        events.append(
            {
                "type": "game_over",
                "winners": [s for s in range(n) if scores[s] == best],
                "reason": reason,
                "scores": scores,
            }
        )
    return events


DECIDERS = {
    "invoke": _invoke,
    "skip_invoke": _skip_invoke,
    "use_service": _use_service,
    "use_gug": _exchange,
    "use_tindaloo": _exchange,
    "use_dhole": _use_dhole,
    "dhole_take": _dhole_take,
    "end_services": _end_services,
    "push": _sky_action,
    "swap": _sky_action,
    "flip": _sky_action,
    "summon": _summon,
    "skip_summon": _skip_summon,
    "discard_creature": _discard_creature,
    "discard": _discard,
    "end_turn": _end_turn,
}
