"""Who may act, the legal steps, and the events a step produces (``Game.decide``).

All seats act at once on their own sheets (R2.2). A seat is active until it
confirms the turn; when the last seat confirms, one ``turn_revealed`` event
publishes every seat's drawings of the turn (H2) and the next card is
revealed (``card_revealed``, ``"reveal": true``; its identity follows from
the setup shuffle) -- or, after the 18th card, the game is scored.

Steps (LATS section 9): ``place_card`` / ``place_shooting_star`` / ``skip_card``
while nothing is drawn; then ``select_occurrence`` / ``use_power`` /
``decline_power`` while a Power Bonus occurrence is pending; then
``confirm_turn``. A seat's steps depend only on its own sheet, the revealed
card, the pile and the bonus cards (players act in parallel, R2.2).
"""

from __future__ import annotations

from gameroom.plugin_api import IllegalMove

from .content import CONTENT, TURNS
from .geometry import (
    any_placement_keys,
    key_from_json,
    line_json,
    placement_index,
    placements,
    xy,
)
from .memo import Table, drawing_key
from .moves import integer, move_type, placement_move, target_point
from .powers import (
    apply_target,
    current_occurrence,
    detect,
    new_star_targets,
    power_card,
    target_ok,
    targets,
)
from .scoring import final_result
from .state import Sheet, pile_of


def current_card(state: dict):
    return CONTENT.night_cards[state["deck"][state["turn"] - 1]]


def occurrence_json(keys) -> list:
    return [line_json(k) for k in keys]


# -- legal moves -------------------------------------------------------------


#: Placement steps by (drawing, card, pile, mirror option), as item tuples: see
#: :mod:`.memo`. About 8 KB per entry, so at most ~32 MB.
_PLACEMENTS = Table(4096)


def _placement_steps(state: dict, player: dict, rules: dict) -> list[dict]:
    """Every placement of the revealed card (or shooting star) on ``player``'s sheet, then skip."""
    sheet = Sheet(player, pile_of(state["turn"]))
    card = current_card(state)
    moves = []
    if card.kind == "lines":
        ok = sheet.legal_lines()
        for place in placements(card.shape, rules["allow_mirror"]):
            a, b = place[4]
            if a in ok and b in ok:
                moves.append(placement_move("place_card", place))
    else:
        ok = sheet.legal_segments()
        for length, (shape, head) in sorted(CONTENT.shooting_shapes.items()):
            for place in placements(shape, rules["allow_mirror"], head):
                if all(k in ok for k in place[4]):
                    moves.append(placement_move("place_shooting_star", place, length))
    moves.append({"type": "skip_card"})
    return moves


def legal_steps(state: dict, seat: int) -> list[dict]:
    """Every legal step of ``seat`` now, in canonical order."""
    player = state["players"][seat]
    rules = state["rules"]
    if not player["drawn"]:
        key = (
            drawing_key(player),
            state["deck"][state["turn"] - 1],
            pile_of(state["turn"]),
            rules["allow_mirror"],
        )
        moves = _PLACEMENTS.get(key)
        if moves is None:
            moves = tuple(tuple(m.items()) for m in _placement_steps(state, player, rules))
            _PLACEMENTS.put(key, moves)
        return [dict(m) for m in moves]
    sheet = Sheet(player, pile_of(state["turn"]))
    if player["stars_left"]:
        moves = [{"type": "use_power", "point": xy(p)} for p in new_star_targets(sheet)]
        return moves + [{"type": "use_power", "stop": True}]
    if player["pending"]:
        occurrence = current_occurrence(player)
        if occurrence is None:
            return [{"type": "select_occurrence", "lines": occurrence_json(o)} for o in player["pending"]]
        kind, found = targets(sheet, rules, occurrence)
        if kind == "line":
            moves = [{"type": "use_power", "line": line_json(k)} for k in found]
        else:
            moves = [{"type": "use_power", "point": xy(p)} for p in found]
        return moves + [{"type": "decline_power"}]
    return [{"type": "confirm_turn"}]


# -- deciding one step -------------------------------------------------------


def _placement(state: dict, move: dict, shape: tuple, head=None):
    """Validate rotation/dx/dy/mirror; return the canonical placement entry."""
    rotation = integer(move, "rotation", 0, 3, "bad-rotation")
    dx = integer(move, "dx", -100, 100, "off-sheet")
    dy = integer(move, "dy", -100, 100, "off-sheet")
    mirror = move.get("mirror", False)
    if not isinstance(mirror, bool):
        raise IllegalMove("malformed-move", "'mirror' must be a boolean.")
    if mirror and not state["rules"]["allow_mirror"]:
        raise IllegalMove("mirror-not-allowed", "Mirror images are not allowed (R4.2).")
    if "mirror" in move and not mirror:
        raise IllegalMove("malformed-move", "Leave 'mirror' out for an unmirrored placement.")
    if any_placement_keys(shape, dx, dy, rotation, mirror) is None:
        raise IllegalMove("off-sheet", "The placement leaves the sheet.")
    place = placement_index(shape, state["rules"]["allow_mirror"], head).get((dx, dy, rotation, mirror))
    if place is None:
        raise IllegalMove(
            "duplicate-placement",
            "An earlier rotation/translation gives the same lines; use that one (R4.2).",
        )
    return place


def _must_draw(player: dict, card, kind: str):
    if player["drawn"]:
        raise IllegalMove("already-drawn", "You have already drawn or skipped this card.")
    if card.kind != kind:
        raise IllegalMove("wrong-card-kind", "That step does not fit the revealed card.")


def _place_card(state, seat, player, move):
    card = current_card(state)
    _must_draw(player, card, "lines")
    place = _placement(state, move, card.shape)
    sheet = Sheet(player, pile_of(state["turn"]))
    for key in place[4]:
        problem = sheet.line_problem(key)
        if problem:
            raise IllegalMove(problem, f"The line {line_json(key)} cannot be drawn ({problem}).")
    after = {**player, "lines": player["lines"] + list(place[4])}
    event = {
        "type": "card_placed",
        "seat": seat,
        "card": card.id,
        "rotation": place[2],
        "dx": place[0],
        "dy": place[1],
        "lines": occurrence_json(place[4]),
        "pending": [occurrence_json(o) for o in detect(after, state["rules"])],
    }
    if place[3]:
        event["mirror"] = True
    return [event]


def _place_shooting_star(state, seat, player, move):
    card = current_card(state)
    _must_draw(player, card, "shooting_star")
    length = integer(move, "length", 1, 3, "bad-length")
    shape, head = CONTENT.shooting_shapes[length]
    place = _placement(state, move, shape, head)
    sheet = Sheet(player, pile_of(state["turn"]))
    for key in place[4]:
        problem = sheet.segment_problem(key)
        if problem:
            raise IllegalMove(problem, f"The segment {line_json(key)} cannot be drawn ({problem}).")
    event = {
        "type": "shooting_star_placed",
        "seat": seat,
        "card": card.id,
        "length": length,
        "rotation": place[2],
        "dx": place[0],
        "dy": place[1],
        "segments": occurrence_json(place[4]),
        "head": xy(place[5]),
    }
    if place[3]:
        event["mirror"] = True
    return [event]


def _skip_card(state, seat, player, move):
    if player["drawn"]:
        raise IllegalMove("already-drawn", "You have already drawn or skipped this card.")
    return [{"type": "card_skipped", "seat": seat, "card": current_card(state).id}]


def _resolving(player, allow_new_star: bool = False):
    if player["stars_left"] and not allow_new_star:
        raise IllegalMove("new-star-in-progress", "Place your second new star or stop first (R6.7).")
    if not player["pending"] and not player["stars_left"]:
        raise IllegalMove("no-power-pending", "No Power Bonus occurrence is pending.")


def _select_occurrence(state, seat, player, move):
    _resolving(player)
    if player["selected"] is not None or len(player["pending"]) == 1:
        raise IllegalMove("occurrence-already-selected", "An occurrence is already being resolved.")
    lines = move.get("lines")
    if not isinstance(lines, list) or len(lines) != 3:
        raise IllegalMove("malformed-move", "'lines' must list the 3 lines of an occurrence.")
    keys = [key_from_json(line) for line in lines]
    if None in keys:
        raise IllegalMove("malformed-move", "'lines' must hold unit lines [[x1, y1], [x2, y2]].")
    keys = sorted(keys)
    if keys not in player["pending"]:
        raise IllegalMove("no-such-occurrence", "That is not a pending Power Bonus occurrence.")
    return [{"type": "occurrence_selected", "seat": seat, "occurrence": occurrence_json(keys)}]


def _use_power(state, seat, player, move):
    _resolving(player, allow_new_star=True)
    rules = state["rules"]
    sheet = Sheet(player, pile_of(state["turn"]))
    if player["stars_left"]:
        event = {"type": "power_used", "seat": seat, "power": "new_stars", "new_stars_left": 0}
        if "stop" in move:
            if move["stop"] is not True or "point" in move or "line" in move:
                raise IllegalMove("malformed-move", "'stop' must be true and alone.")
            return [{**event, "stop": True, "pending": [occurrence_json(o) for o in player["pending"]]}]
        if "line" in move:
            raise IllegalMove("malformed-move", "New Stars targets a 'point'.")
        p = target_point(move)
        if p not in new_star_targets(sheet):
            raise IllegalMove("illegal-target", "No new star may be placed there (R6.7).")
        return [{**event, "point": xy(p), "pending": [occurrence_json(o) for o in player["pending"]]}]
    if "stop" in move:
        raise IllegalMove("stop-not-allowed", "'stop' only ends a New Stars power (R6.7).")
    occurrence = current_occurrence(player)
    if occurrence is None:
        raise IllegalMove("select-occurrence-first", "Select which pending occurrence to resolve.")
    kind = power_card(rules).power
    if kind == "line":
        if "point" in move or "line" not in move:
            raise IllegalMove("missing-target", "The Line power targets a 'line'.")
        target = key_from_json(move["line"])
        if target is None:
            raise IllegalMove("malformed-move", "'line' must be a unit line [[x1, y1], [x2, y2]].")
        problem = sheet.line_problem(target)
        if problem:
            raise IllegalMove(problem, f"The line {line_json(target)} cannot be drawn ({problem}).")
    else:
        if "line" in move:
            raise IllegalMove("missing-target", "This power targets a 'point'.")
        target = target_point(move)
        if not target_ok(sheet, rules, occurrence, target):
            raise IllegalMove("illegal-target", f"The {kind.replace('_', ' ')} cannot go there.")
    after = apply_target(player, kind, target)
    after["consumed"] = player["consumed"] + occurrence
    event = {
        "type": "power_used",
        "seat": seat,
        "power": kind,
        "occurrence": occurrence_json(occurrence),
        "consumed": occurrence_json(occurrence),
    }
    if kind == "line":
        event["line"] = line_json(target)
    else:
        event["point"] = xy(target)
    if kind == "new_stars":
        event["new_stars_left"] = 1 if new_star_targets(Sheet(after, pile_of(state["turn"]))) else 0
    event["pending"] = [occurrence_json(o) for o in detect(after, rules)]
    return [event]


def _decline_power(state, seat, player, move):
    _resolving(player)
    occurrence = current_occurrence(player)
    if occurrence is None:
        raise IllegalMove("select-occurrence-first", "Select which pending occurrence to resolve.")
    if state["rules"]["decline_all"]:
        consumed = sorted({k for o in player["pending"] for k in o})
    else:
        consumed = list(occurrence)
    after = {**player, "consumed": player["consumed"] + consumed}
    return [
        {
            "type": "power_declined",
            "seat": seat,
            "occurrence": occurrence_json(occurrence),
            "consumed": occurrence_json(consumed),
            "pending": [occurrence_json(o) for o in detect(after, state["rules"])],
        }
    ]


def _confirm_turn(state, seat, player, move):
    if not player["drawn"]:
        raise IllegalMove("draw-or-skip-first", "Draw or skip the card before confirming (R2.2).")
    if player["pending"] or player["stars_left"]:
        raise IllegalMove("power-pending", "Resolve every Power Bonus occurrence first (R6.2).")
    return [{"type": "turn_confirmed", "seat": seat}]


HANDLERS = {
    "place_card": _place_card,
    "place_shooting_star": _place_shooting_star,
    "skip_card": _skip_card,
    "select_occurrence": _select_occurrence,
    "use_power": _use_power,
    "decline_power": _decline_power,
    "confirm_turn": _confirm_turn,
}


def decide_step(state: dict, seat: int, move: dict) -> list[dict]:
    """Validate one step of ``seat`` and return its events (without the turn's end)."""
    kind = move_type(move)
    player = state["players"][seat]
    if player["confirmed"]:
        raise IllegalMove("already-confirmed", "You have already confirmed this turn.")
    return HANDLERS[kind](state, seat, player, move)


# -- the turn ----------------------------------------------------------------


def active_seats(state: dict) -> list[int]:
    """R2.2: every seat that has not confirmed the turn yet."""
    if state["result"] is not None:
        return []
    return [s for s, p in enumerate(state["players"]) if not p["confirmed"]]


def legal_moves(state: dict, seat) -> list[dict]:
    """``seat``'s legal steps now (none once it confirmed or the night is over)."""
    if state["result"] is not None or not isinstance(seat, int) or not 0 <= seat < state["n"]:
        return []
    if state["players"][seat]["confirmed"]:
        return []
    return legal_steps(state, seat)


def decide(state: dict, seat, move) -> list[dict]:
    """Validate ``move`` of ``seat``; its events, with the turn's end after the last confirm."""
    if state["result"] is not None:
        raise IllegalMove("match-over", "The night is over.")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state["n"]:
        raise IllegalMove("no-such-seat", "There is no such seat.")
    if not isinstance(move, dict):
        raise IllegalMove("malformed-move", "A move is a JSON object.")
    events = decide_step(state, seat, move)
    if move["type"] == "confirm_turn" and all(
        p["confirmed"] for s, p in enumerate(state["players"]) if s != seat
    ):
        events += end_turn(state)
    return events


def end_turn(state: dict) -> list[dict]:
    """R2.3: every seat has confirmed -- publish the turn, then reveal or score."""
    turn = state["turn"]
    events = [{"type": "turn_revealed", "turn": turn, "drawings": [list(p["log"]) for p in state["players"]]}]
    if turn < TURNS:
        events.append(
            {
                "type": "card_revealed",
                "turn": turn + 1,
                "pile": pile_of(turn + 1),
                "card": state["deck"][turn],
                "reveal": True,
            }
        )
    else:
        events.append({"type": "game_ended", **final_result(state)})
    return events
