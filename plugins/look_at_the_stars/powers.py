"""Power Bonus: detecting occurrences (R6.1-R6.3) and the targets of each power kind.

A power is dispatched by its *kind* (the ``power`` name of the card in the
data file), never by card id. Each kind has a target finder returning the
legal ``use_power`` parameters on a :class:`~.state.Sheet`; :func:`target_problem`
checks one submitted target against the same rules.
"""

from __future__ import annotations

from .content import CONTENT, PowerBonus
from .geometry import COLUMNS, NEIGHBOURS, placements
from .state import Sheet, endpoints

#: Where a once-per-game power records its use (R6.3).
ONCE_FIELD = {"black_hole": "black_hole", "crescent_moon": "moon"}

#: Powers whose target is a single unused star.
POINT_ON_UNUSED_STAR = ("planet", "twinkling_star", "crescent_moon", "black_hole")


def power_card(rules: dict) -> PowerBonus:
    return CONTENT.power_bonus[rules["power_bonus"]]


def exhausted(player: dict, card: PowerBonus) -> bool:
    """R6.3: a once-per-game power that was used is no longer detected."""
    field = ONCE_FIELD.get(card.power)
    return bool(card.once_per_game and field and player[field] is not None)


def detect(player: dict, rules: dict) -> list[list[int]]:
    """R6.1: every occurrence of the power shape among the unconsumed lines, in scan order."""
    card = power_card(rules)
    if exhausted(player, card):
        return []
    free = set(player["lines"]).difference(player["consumed"])
    if len(free) < 3:
        return []
    return [
        list(p[4])
        for p in placements(card.shape, rules["allow_mirror"])
        if p[4][0] in free and p[4][1] in free and p[4][2] in free
    ]


def current_occurrence(player: dict) -> list[int] | None:
    """The occurrence being resolved: the selected one, or the only pending one (auto-selected)."""
    if player["selected"] is not None:
        return player["selected"]
    if len(player["pending"]) == 1:
        return player["pending"][0]
    return None


# -- targets ----------------------------------------------------------------


def _group_targets(sheet: Sheet, rules: dict, kind: str) -> list[int]:
    """Nova / aura: a star (line endpoint) of a group of 3+ lines (R6.10, R6.11)."""
    player = sheet.player
    out = set()
    aura_points = set(player["auras"])
    novas = set(player["novas"])
    for group in sheet.groups:
        if len(group) < 3:
            continue
        points = endpoints(group)
        if kind == "luminous_aura" and points & aura_points:
            continue
        for p in points:
            if p in sheet.bh_zone:
                continue
            if rules["sun_blocks"] and not sheet.open_row(p):
                continue
            if kind == "nova" and p in novas:
                continue
            out.add(p)
    return sorted(out)


def _galaxy_targets(sheet: Sheet, occurrence: list[int]) -> list[int]:
    """R6.8: left points of 2 horizontally adjacent unused stars next to the occurrence's group."""
    group = sheet.group_of_line(occurrence[0])
    near = set()
    for p in endpoints(group):
        near.update(NEIGHBOURS[p])
    out = []
    for p in sorted(sheet.stars):
        if p % COLUMNS == COLUMNS - 1:
            continue
        if sheet.unused(p) and sheet.unused(p + 1) and (p in near or p + 1 in near):
            out.append(p)
    return out


def new_star_targets(sheet: Sheet) -> list[int]:
    """R6.7: illustration points not yet stars, in an open row, away from a black hole."""
    return sorted(
        p
        for p in sheet.printed.illustration
        if p not in sheet.stars and sheet.open_row(p) and p not in sheet.bh_zone
    )


def targets(sheet: Sheet, rules: dict, occurrence: list[int]) -> tuple[str, list[int]]:
    """The power kind and its legal targets: point codes, or line keys for ``line``."""
    kind = power_card(rules).power
    if kind in POINT_ON_UNUSED_STAR:
        return kind, sheet.unused_stars()
    if kind == "line":
        return kind, sorted(sheet.legal_lines())
    if kind == "new_stars":
        return kind, new_star_targets(sheet)
    if kind == "galaxy":
        return kind, _galaxy_targets(sheet, occurrence)
    if kind in ("nova", "luminous_aura"):
        return kind, _group_targets(sheet, rules, kind)
    raise ValueError(f"unknown power kind {kind!r}")  # pragma: no cover - content is validated


def target_ok(sheet: Sheet, rules: dict, occurrence: list[int], target: int) -> bool:
    """Whether ``target`` (point code, or line key for ``line``) is legal for the power."""
    kind = power_card(rules).power
    if kind in POINT_ON_UNUSED_STAR:
        return sheet.unused(target)
    if kind == "line":
        return sheet.line_ok(target)
    if kind == "galaxy":
        return target in _galaxy_targets(sheet, occurrence)
    if kind == "new_stars":
        return target in new_star_targets(sheet)
    return target in _group_targets(sheet, rules, kind)


def apply_target(player: dict, kind: str, target: int) -> dict:
    """A copy of ``player`` with the power's object drawn (copy-on-write of changed fields)."""
    player = dict(player)
    if kind == "line":
        player["lines"] = player["lines"] + [target]
    elif kind == "planet":
        player["planets"] = player["planets"] + [target]
    elif kind == "new_stars":
        player["new_stars"] = player["new_stars"] + [target]
    elif kind == "galaxy":
        player["galaxies"] = player["galaxies"] + [target]
    elif kind == "twinkling_star":
        player["twinkles"] = player["twinkles"] + [target]
    elif kind == "nova":
        player["novas"] = player["novas"] + [target]
    elif kind == "luminous_aura":
        player["auras"] = player["auras"] + [target]
    elif kind == "crescent_moon":
        player["moon"] = target
    elif kind == "black_hole":
        player["black_hole"] = target
    return player
