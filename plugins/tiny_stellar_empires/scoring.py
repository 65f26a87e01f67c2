"""Final scoring (spec section 5, TSE-T45..T50), category by category."""

from __future__ import annotations

from .rules import ability, half, is_wormhole, symbols

CATEGORIES = ("cards", "abilities", "majorities", "mission", "tucked")


def _edge_value(state, entry, side):
    routes = state["set"]["empire"][entry["id"]]["routes"]
    if routes is None:
        return state["set"]["rules"]["wormhole"]
    left, right = (routes[0], routes[1]) if entry["o"] == "A" else (routes[1], routes[0])
    return left if side == 0 else right


def trade_sum(state, row, i):
    """TSE-T33: the trade-route total of row card ``i`` (option ``trade_count``)."""
    wormhole = state["set"]["rules"]["wormhole"]
    total = 0
    for side, j in ((0, i - 1), (1, i + 1)):
        has_neighbour = 0 <= j < len(row)
        touches_wormhole = has_neighbour and (
            is_wormhole(state, row[j]["id"]) or is_wormhole(state, row[i]["id"])
        )
        if touches_wormhole:
            total += wormhole
        elif has_neighbour or state["opts"]["trade_count"] == "own_edges":
            total += _edge_value(state, row[i], side)
    return total


def _ambassadors_in_play(state):
    return sum(1 for row in state["rows"] for e in row if e["amb"] is not None)


def ability_points(state, seat):
    """TSE-T29..T33: end-game abilities of working active halves."""
    row, points = state["rows"][seat], 0
    for i, entry in enumerate(row):
        kind = ability(state, entry)
        if kind == "plus1":
            points += 1
        elif kind == "plus2":
            points += 2
        elif kind == "double":
            near = [row[j]["id"] for j in (i - 1, i + 1) if 0 <= j < len(row)]
            if any(is_wormhole(state, c) for c in near):
                points += half(state, entry)["points"]
        elif kind == "ambassador_bonus":
            points += _ambassadors_in_play(state)
        elif kind == "trade_routes":
            points += trade_sum(state, row, i) // 2
    return points


def symbol_counts(state, seat, homeworld=True):
    """TSE-T47: weighted count of each civilization symbol for ``seat``.

    ``homeworld=False`` leaves out the homeworld's main symbol (hidden until the end, TSE-T4).
    """
    card_w, amb_w, home_w = state["set"]["rules"]["weights"]
    counts = dict.fromkeys(state["set"]["symbols"], 0)
    for entry in state["rows"][seat]:
        for sym in symbols(state, entry):
            counts[sym] += card_w
        if entry["amb"] is not None:
            counts[_amb_symbol(state, entry)] += amb_w
    home = state["homeworlds"][seat] if homeworld else None
    if home is not None:
        counts[state["set"]["homeworld"][home]["main"]] += home_w
    return counts


def _amb_symbol(state, entry):
    return state["set"]["ambassador"][entry["amb"]["id"]][entry["amb"]["end"]]


def majority_table(state, homeworlds=True):
    """TSE-T47, symbol by symbol: each seat's count, the leaders and the VP each seat scores.

    A sole leader scores 2 VP, tied leaders 1 VP each; a highest count of 0 scores nothing.
    ``homeworlds=False`` counts no homeworld (what everyone may see while they are hidden).
    """
    sole, tied = state["set"]["rules"]["majority"]
    counts = [symbol_counts(state, s, homeworlds) for s in range(state["n"])]
    table = []
    for sym in state["set"]["symbols"]:
        column = [c[sym] for c in counts]
        best = max(column)
        leaders = [s for s in range(state["n"]) if column[s] == best] if best > 0 else []
        vp = sole if len(leaders) == 1 else tied
        table.append(
            {
                "symbol": sym,
                "counts": column,
                "leaders": leaders,
                "points": [vp if s in leaders else 0 for s in range(state["n"])],
            }
        )
    return table


def majority_points(state, homeworlds=True):
    """TSE-T47: 2 VP to a sole leader of a symbol, 1 VP to each tied leader."""
    table = majority_table(state, homeworlds)
    return [sum(row["points"][s] for row in table) for s in range(state["n"])]


def mission_progress(state, seat):
    """TSE-T48: the number the seat's secret mission measures."""
    mission = state["set"]["homeworld"][state["homeworlds"][seat]]["mission"]
    kind, row = mission["type"], state["rows"][seat]
    if kind == "warmonger":
        military = sum(1 for e in row if mission["symbol"] in symbols(state, e))
        return state["reds"][seat] + military
    if kind == "wormholes_in_row":
        return sum(1 for e in row if is_wormhole(state, e["id"]))
    if kind == "ability_kinds_shown":
        timings = state["set"]["abilities"]
        return len({timings[ability(state, e)] for e in row if ability(state, e) is not None})
    # distinct_symbols: row symbols (not raided) and own ambassador ends, homeworld excluded
    shown = {sym for e in row for sym in symbols(state, e)}
    shown |= {_amb_symbol(state, e) for e in row if e["amb"] is not None}
    return len(shown)


def mission_points(state, seat):
    home = state["homeworlds"][seat]
    progress, points = mission_progress(state, seat), 0
    for threshold, vp in state["set"]["homeworld"][home]["mission"]["tiers"]:
        if progress >= threshold:
            points = max(points, vp)
    return points


def _parts(state, seat, majors, mission=True):
    return {
        "cards": sum(half(state, e)["points"] for e in state["rows"][seat]),
        "abilities": ability_points(state, seat),
        "majorities": majors[seat],
        "mission": mission_points(state, seat) if mission else None,
        "tucked": state["set"]["rules"]["tucked_vp"] * len(state["tucked"][seat]),
    }


def breakdown(state):
    """Per-seat ``{category: points}`` (TSE-T45..T49)."""
    majors = majority_points(state)
    return [_parts(state, seat, majors) for seat in range(state["n"])]


def standing(state, seat):
    """The score as if the game ended now, from what ``seat`` may see (TSE-H1, H2, H6).

    Once the game is over every homeworld is public: the standing is the final scoring.
    Before, homeworlds are hidden (TSE-T4), so they are left out for every seat alike:
    majorities are counted without the +3 main symbols and missions are not scored
    (``mission`` is None). ``seat``'s own homeworld is reported apart, in ``own``: its
    main symbol, the count it adds, and its mission's progress and VP so far.
    """
    final = state["over"]
    table = majority_table(state, homeworlds=final)
    majors = [sum(row["points"][s] for row in table) for s in range(state["n"])]
    parts = [_parts(state, s, majors, mission=final) for s in range(state["n"])]
    own = None
    if seat is not None and not final and state["homeworlds"][seat] is not None:
        home = state["set"]["homeworld"][state["homeworlds"][seat]]
        own = {
            "symbol": home["main"],
            "symbol_count": state["set"]["rules"]["weights"][2],
            "mission_progress": mission_progress(state, seat),
            "mission_points": mission_points(state, seat),
        }
    return {
        "basis": "final" if final else "public",
        "majorities": table,
        "scores": parts,
        "totals": [sum(v for v in p.values() if v is not None) for p in parts],
        "own": own,
    }


def result(state):
    """``{"scores", "winners", "breakdown"}`` with the tie-break of TSE-T50."""
    parts = breakdown(state)
    scores = [sum(p.values()) for p in parts]
    best = max(scores)
    winners = [s for s in range(state["n"]) if scores[s] == best]
    if state["opts"]["tie_breaker"] == "empire_points" and len(winners) > 1:
        top = max(parts[s]["cards"] for s in winners)
        winners = [s for s in winners if parts[s]["cards"] == top]
    return {"scores": scores, "winners": winners, "breakdown": parts}


def outcome(state):
    """``Game.outcome``: the :func:`result` once the game is over, else ``None``."""
    return result(state) if state["over"] else None
