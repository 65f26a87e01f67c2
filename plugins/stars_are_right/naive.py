"""A deliberately plain constellation matcher: the reference oracle.

It follows SAR-B8 word by word - rotate the grid, try every anchor, compare
cell by cell, search for pairwise disjoint tile sets - with no precomputation.
Tests compare it with :mod:`matcher` on random skies, and
``bench/bench_sar_matcher.py`` uses it as the baseline.
"""

from __future__ import annotations

from .content import CARDS, TILE_FACES


def _rotate(g):
    h, w = len(g), len(g[0])
    return [[g[h - 1 - c][r] for c in range(h)] for r in range(w)]


def _orientations(g, allow_mirror):
    result, cur = [], [list(row) for row in g]
    for _ in range(4):
        result.append(cur)
        cur = _rotate(cur)
    if allow_mirror:
        cur = [list(reversed(row)) for row in g]
        for _ in range(4):
            result.append(cur)
            cur = _rotate(cur)
    return result


def _group_matches(grid, up, allow_mirror, overhang):
    """Sets of sky cells (star cells only) where ``grid`` is visible."""
    found = []
    for g in _orientations(grid, allow_mirror):
        h, w = len(g), len(g[0])
        rows = range(-h + 1, 5) if overhang else range(6 - h)
        cols = range(-w + 1, 5) if overhang else range(6 - w)
        for r0 in rows:
            for c0 in cols:
                cells, ok = [], True
                for r in range(h):
                    for c in range(w):
                        code = g[r][c]
                        if code is None:
                            continue
                        rr, cc = r0 + r, c0 + c
                        if not (0 <= rr < 5 and 0 <= cc < 5) or up[rr][cc] != code:
                            ok = False
                            break
                        cells.append((rr, cc))
                    if not ok:
                        break
                if ok:
                    found.append(frozenset(cells))
    return found


def naive_visible(card_id, sky, faces, allow_mirror=False, overhang=False, dark=frozenset()):
    """Whether the card is visible: the spec's definition, computed the slow way."""
    up = [[TILE_FACES[sky[5 * r + c]][faces[sky[5 * r + c]]] for c in range(5)] for r in range(5)]
    groups = [[[None if cell in dark else cell for cell in row] for row in g] for g in CARDS[card_id].groups]
    options = [_group_matches(g, up, allow_mirror, overhang) for g in groups]

    def search(i, used):
        if i == len(options):
            return True
        return any(not (cells & used) and search(i + 1, used | cells) for cells in options[i])

    return search(0, frozenset())
