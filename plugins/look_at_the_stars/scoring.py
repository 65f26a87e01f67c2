"""Scoring (LATS-R7): one breakdown of points per category for a sheet; the final result; H4 live totals."""

from __future__ import annotations

from .content import CONTENT
from .geometry import COLUMNS, NEIGHBOURS, placements
from .memo import Table, drawing_key
from .state import Sheet, endpoints, groups_of

#: Breakdown categories, in the order they are reported.
CATEGORIES = (
    "constellations",
    "nova",
    "planets",
    "shooting_stars",
    "point_bonus",
    "galaxies",
    "twinkling_stars",
    "auras",
    "crescent_moon",
    "black_hole",
)

_POWER_PARAMS = {card.power: card.params for card in CONTENT.power_bonus}


def constellations(sheet: Sheet) -> list[tuple[int, set]]:
    """R7.1: the valid constellations as ``(size, star points)``."""
    novas = set(sheet.player["novas"])
    out = []
    for group in sheet.groups:
        size = len(group)
        if size < 3 or size > 10:
            continue
        points = endpoints(group)
        if size <= 8 or points & novas:
            out.append((size, points))
    return out


def point_bonus_occurrences(lines, rules: dict) -> list[tuple]:
    """R7.4: every occurrence of the Point Bonus shape (consumption ignored), in scan order."""
    card = CONTENT.point_bonus[rules["point_bonus"]]
    have = set(lines)
    return [p[4] for p in placements(card.shape, rules["allow_mirror"]) if all(k in have for k in p[4])]


def max_disjoint(occurrences: list[tuple]) -> int:
    """The largest number of pairwise line-disjoint occurrences (exact set packing)."""
    sets = [frozenset(o) for o in occurrences]
    n = len(sets)
    conflicts = [sum(1 << j for j in range(n) if sets[i] & sets[j]) for i in range(n)]
    memo: dict[int, int] = {}

    def best(mask: int) -> int:
        if not mask:
            return 0
        if mask in memo:
            return memo[mask]
        i = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << i)
        value = max(best(rest), 1 + best(mask & ~conflicts[i]))
        memo[mask] = value
        return value

    return best((1 << n) - 1)


def greedy_scan(occurrences: list[tuple]) -> int:
    """Option ``greedy_scan``: take occurrences in scan order, skipping overlaps."""
    taken: set = set()
    count = 0
    for occ in occurrences:
        if taken.isdisjoint(occ):
            taken.update(occ)
            count += 1
    return count


def _adjacent(points: set, p: int) -> bool:
    return any(q in points for q in NEIGHBOURS[p])


#: Breakdowns by (drawing, point bonus card, counting, mirror option): see :mod:`.memo`.
_SCORES = Table()


def score_sheet(player: dict, rules: dict) -> dict:
    """The per-category points of ``player``'s sheet (R7.1-R7.6), with their ``total``."""
    key = (drawing_key(player), rules["point_bonus"], rules["counting"], rules["allow_mirror"])
    found = _SCORES.get(key)
    if found is None:
        found = _score_sheet(player, rules)
        _SCORES.put(key, found)
    return dict(found)


def public_scores(players, rules) -> list[int]:
    """H4: running totals of the public sheets (kept only with ``live_score``)."""
    return [score_sheet(p, rules)["total"] for p in players]


def final_result(state: dict) -> dict:
    """R2.5 / R7.6: totals, breakdowns and the shared-rank winners (none in the solo variant)."""
    breakdowns = [score_sheet(p, state["rules"]) for p in state["players"]]
    scores = [b.pop("total") for b in breakdowns]
    best = max(scores)
    winners = [] if state["rules"]["solo"] else [s for s, v in enumerate(scores) if v == best]
    return {"scores": scores, "winners": winners, "breakdown": breakdowns}


def _score_sheet(player: dict, rules: dict) -> dict:
    sheet = Sheet(player, 1)
    valid = constellations(sheet)
    sizes = {size for size, _ in valid}
    out = dict.fromkeys(CATEGORIES, 0)
    out["constellations"] = sum(s for s in sizes if s <= 8)
    out["nova"] = sum(s for s in sizes if s >= 9)
    planets = list(sheet.printed.planets) + list(player["planets"])
    out["planets"] = sum(1 for p in planets for _, pts in valid if _adjacent(pts, p))
    out["shooting_stars"] = sum(len(star) for star in player["shooting"])
    occurrences = point_bonus_occurrences(player["lines"], rules)
    count = greedy_scan(occurrences) if rules["counting"] == "greedy_scan" else max_disjoint(occurrences)
    out["point_bonus"] = count * CONTENT.point_bonus[rules["point_bonus"]].points
    out["galaxies"] = len(player["galaxies"]) * _POWER_PARAMS["galaxy"].get("points_each", 2)
    twinkle = _POWER_PARAMS["twinkling_star"]
    exact = twinkle.get("exact_adjacent_constellations", 2)
    for p in player["twinkles"]:
        if sum(1 for _, pts in valid if _adjacent(pts, p)) == exact:
            out["twinkling_stars"] += twinkle.get("points_each", 3)
    out["auras"] = len(player["auras"]) * _POWER_PARAMS["luminous_aura"].get("points_each", 2)
    moon = player["moon"]
    if moon is not None:
        col, row = moon % COLUMNS, moon // COLUMNS
        aligned = sum(1 for _, pts in valid if any(q % COLUMNS == col or q // COLUMNS == row for q in pts))
        out["crescent_moon"] = aligned * _POWER_PARAMS["crescent_moon"].get(
            "points_per_aligned_constellation", 1
        )
    hole = player["black_hole"]
    if hole is not None:
        free = sum(1 for q in NEIGHBOURS[hole] if sheet.free_star(q))
        out["black_hole"] = free * _POWER_PARAMS["black_hole"].get("points_per_unused_neighbour", 1)
    out["total"] = sum(out[c] for c in CATEGORIES)
    return out


#: Growth outlooks by (drawing, pile): see :mod:`.memo`.
_OUTLOOKS = Table()


def outlook(player: dict, pile: int) -> tuple[int, int]:
    """``(growing, room)``: lines in groups still too small to score, and unused stars left (R6.4)."""
    key = (drawing_key(player), pile)
    found = _OUTLOOKS.get(key)
    if found is None:
        growing = sum(len(g) for g in groups_of(player["lines"]) if len(g) < 3)
        found = (growing, len(Sheet(player, pile).unused_stars()))
        _OUTLOOKS.put(key, found)
    return found
