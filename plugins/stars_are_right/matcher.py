"""Constellation matching (SAR-B8), fast enough to be the AI's hot path.

The sky is packed into one integer with 4 bits per cell (cell ``i`` at bits
``4i .. 4i+3`` holds the index of its up face in ``FACE_CODES``). Every
(orientation, anchor) placement of a group is precomputed as a pair
``(mask, value)``: ``mask`` has ``0xF`` on the group's star cells and
``value`` the codes they need, so a placement is visible iff
``sky & mask == value`` - one AND and one compare, whatever the group's
size. Dark cells are simply absent from ``mask``. Each placement also keeps a
25-bit mask of the cells its stars use, for the disjointness of multi-group
cards (SAR-B8.5), which a short backtracking search checks.
"""

from __future__ import annotations

from functools import cache

from .content import CARDS, FACE_CODES, TILE_FACES

CODE_INDEX = {code: i for i, code in enumerate(FACE_CODES)}
#: Packed code of tile ``t`` showing face ``f`` (0 = face A, 1 = face B).
TILE_CODE = tuple(tuple(CODE_INDEX[c] for c in faces) for faces in TILE_FACES)


def pack_sky(sky, faces) -> int:
    """The packed sky of a state's ``sky`` (tile per cell) and ``faces`` (face per tile)."""
    value = 0
    for cell, tile in enumerate(sky):
        value |= TILE_CODE[tile][faces[tile]] << (4 * cell)
    return value


def rotate(grid: tuple) -> tuple:
    """A clockwise quarter turn: ``g'[r][c] = g[h-1-c][r]`` (SAR-B8.2)."""
    h, w = len(grid), len(grid[0])
    return tuple(tuple(grid[h - 1 - c][r] for c in range(h)) for r in range(w))


def mirror(grid: tuple) -> tuple:
    """The mirror image ``g'[r][c] = g[r][w-1-c]`` (option ``allow_mirror``)."""
    return tuple(tuple(reversed(row)) for row in grid)


def orientations(grid: tuple, allow_mirror: bool) -> list[tuple]:
    """The 4 rotations (0, 90, 180, 270 degrees), plus those of the mirror image."""
    result, g = [], grid
    for _ in range(4):
        result.append(g)
        g = rotate(g)
    if allow_mirror:
        g = mirror(grid)
        for _ in range(4):
            result.append(g)
            g = rotate(g)
    return result


def raw_placements(grid: tuple, allow_mirror: bool, overhang: bool) -> list[tuple]:
    """Every (orientation, anchor) pair as ``(orientation, r0, c0)`` (SAR-B8.3, B8.6).

    Without ``overhang`` the whole rectangle lies in the sky; with it, only
    the star cells must.
    """
    result = []
    for g in orientations(grid, allow_mirror):
        h, w = len(g), len(g[0])
        stars = [(r, c) for r in range(h) for c in range(w) if g[r][c] is not None]
        if overhang:
            anchors = [
                (r0, c0)
                for r0 in range(-h + 1, 5)
                for c0 in range(-w + 1, 5)
                if all(0 <= r0 + r < 5 and 0 <= c0 + c < 5 for r, c in stars)
            ]
        else:
            anchors = [(r0, c0) for r0 in range(6 - h) for c0 in range(6 - w)]
        result.extend((g, r0, c0) for r0, c0 in anchors)
    return result


@cache
def group_placements(grid: tuple, allow_mirror: bool, overhang: bool) -> tuple:
    """Distinct ``(mask, value, cells)`` triples of a group, in a stable order."""
    seen, result = set(), []
    for g, r0, c0 in raw_placements(grid, allow_mirror, overhang):
        mask = value = cells = 0
        for r, row in enumerate(g):
            for c, code in enumerate(row):
                if code is not None:
                    idx = 5 * (r0 + r) + c0 + c
                    mask |= 0xF << (4 * idx)
                    value |= CODE_INDEX[code] << (4 * idx)
                    cells |= 1 << idx
        if (mask, value) not in seen:
            seen.add((mask, value))
            result.append((mask, value, cells))
    return tuple(result)


def darken(grid: tuple, dark: frozenset) -> tuple:
    """``grid`` with every cell whose code is in ``dark`` made dark (SAR-B9.1)."""
    return tuple(tuple(None if c in dark else c for c in row) for row in grid)


def _single(placements):
    pairs = tuple((m, v) for m, v, _ in placements)

    def check(sky: int) -> bool:
        for m, v in pairs:
            if sky & m == v:
                return True
        return False

    return check


def _singletons(groups_placements):
    # Minions: four 1x1 groups. Cells of different codes never overlap, so
    # "pairwise disjoint" reduces to enough cells showing each code.
    need = {}
    for placements in groups_placements:
        key = tuple((m, v) for m, v, _ in placements)
        need[key] = need.get(key, 0) + 1
    needs = tuple(need.items())

    def check(sky: int) -> bool:
        for pairs, count in needs:
            for m, v in pairs:
                if sky & m == v:
                    count -= 1
                    if not count:
                        break
            else:
                return False
        return True

    return check


def _disjoint(groups_placements):
    groups = tuple(groups_placements)

    def check(sky: int) -> bool:
        options = []
        for placements in groups:
            cells = [c for m, v, c in placements if sky & m == v]
            if not cells:
                return False
            options.append(cells)
        options.sort(key=len)
        return _search(options, 0, 0)

    return check


def _search(options, i, used) -> bool:
    if i == len(options):
        return True
    for cells in options[i]:
        if not cells & used and _search(options, i + 1, used | cells):
            return True
    return False


@cache
def card_checker(card_id: int, dark: frozenset, allow_mirror: bool, overhang: bool):
    """A function ``sky -> bool``: is this card's constellation visible?

    ``dark`` holds the codes that supporting servitors turn dark (GOOs only).
    """
    card = CARDS[card_id]
    groups = [darken(g, dark) if dark else g for g in card.groups]
    placements = [group_placements(g, allow_mirror, overhang) for g in groups]
    if len(groups) == 1:
        return _single(placements[0])
    if all(len(g) == 1 and len(g[0]) == 1 for g in groups):
        return _singletons(placements)
    return _disjoint(placements)


def visible(card_id: int, sky: int, opts: dict, dark: frozenset = frozenset()) -> bool:
    """Whether ``card_id`` is visible in the packed ``sky`` under the match options."""
    return card_checker(card_id, dark, opts["allow_mirror"], opts["dark_cells_may_overhang"])(sky)


def visible_cards(card_ids, sky: int, opts: dict) -> list[int]:
    """The cards among ``card_ids`` visible without supporters, in the given order."""
    m, o = opts["allow_mirror"], opts["dark_cells_may_overhang"]
    empty = frozenset()
    return [c for c in card_ids if card_checker(c, empty, m, o)(sky)]
