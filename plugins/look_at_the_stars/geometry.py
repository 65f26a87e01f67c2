"""Points, lines and shape placements on the 10 x 11 sheet grid.

State and hot loops use small integers: a point ``[x, y]`` is ``y * 10 + x``
(0..109) and a line is ``a * 110 + b`` for its endpoints ``a < b``. Moves,
events and views use readable coordinates; the helpers here convert.

A *shape* (night card, bonus card, shooting star) is a list of lines in the
4 x 4 local frame. Its *placements* are every rotation (and mirror image, if
allowed) followed by every translation that keeps the shape on the grid,
deduplicated by the resulting line set and listed in the canonical order of
the spec (LATS section 9: dx ascending, then dy ascending, then rotation
0-3; mirror images after the four rotations of the same translation).
"""

from __future__ import annotations

from functools import cache

COLUMNS = 10
ROWS = 11
POINTS = COLUMNS * ROWS


def pt(x: int, y: int) -> int:
    """The integer code of point ``[x, y]``."""
    return y * COLUMNS + x


def xy(p: int) -> list:
    """The ``[x, y]`` coordinates of point code ``p``."""
    return [p % COLUMNS, p // COLUMNS]


def on_grid(x: int, y: int) -> bool:
    return 0 <= x < COLUMNS and 0 <= y < ROWS


def line_key(a: int, b: int) -> int:
    """The integer code of the (unordered) line between point codes ``a`` and ``b``."""
    return a * POINTS + b if a < b else b * POINTS + a


def ends(key: int) -> tuple[int, int]:
    """The two endpoint codes of a line key."""
    return divmod(key, POINTS)


def jkey(line) -> int:
    """The key of a well-formed ``[[x1, y1], [x2, y2]]`` line (from events: trusted)."""
    (x1, y1), (x2, y2) = line
    return line_key(y1 * COLUMNS + x1, y2 * COLUMNS + x2)


def jpt(point) -> int:
    """The code of a well-formed ``[x, y]`` point (from events: trusted)."""
    return point[1] * COLUMNS + point[0]


def line_json(key: int) -> list:
    """``[[x1, y1], [x2, y2]]`` with the lower point code first."""
    a, b = divmod(key, POINTS)
    return [xy(a), xy(b)]


def is_neighbour_step(x1: int, y1: int, x2: int, y2: int) -> bool:
    return max(abs(x1 - x2), abs(y1 - y2)) == 1


def key_from_json(line) -> int | None:
    """The key of a ``[[x1, y1], [x2, y2]]`` line, or None if it is not a unit line on the grid."""
    if not isinstance(line, list) or len(line) != 2:
        return None
    a, b = line
    if not (_is_xy(a) and _is_xy(b)):
        return None
    if not is_neighbour_step(a[0], a[1], b[0], b[1]):
        return None
    return line_key(pt(*a), pt(*b))


def point_from_json(point) -> int | None:
    """The code of an ``[x, y]`` point, or None if malformed or off the grid."""
    return pt(*point) if _is_xy(point) else None


def _is_xy(value) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and on_grid(value[0], value[1])
    )


def _build_neighbours() -> list[tuple[int, ...]]:
    out = []
    for p in range(POINTS):
        x, y = p % COLUMNS, p // COLUMNS
        out.append(
            tuple(
                pt(x + dx, y + dy)
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
                if (dx or dy) and on_grid(x + dx, y + dy)
            )
        )
    return out


#: The king-move neighbours of every point code.
NEIGHBOURS = _build_neighbours()


def _build_lines() -> tuple[list[int], dict[int, int]]:
    keys, partner = [], {}
    for p in range(POINTS):
        for q in NEIGHBOURS[p]:
            if p < q:
                keys.append(line_key(p, q))
    for key in keys:
        a, b = ends(key)
        ax, ay, bx, by = a % COLUMNS, a // COLUMNS, b % COLUMNS, b // COLUMNS
        if ax != bx and ay != by:
            # The other diagonal of the same unit square: the only crossing (R4.5).
            partner[key] = line_key(pt(ax, by), pt(bx, ay))
    return keys, partner


#: Every unit line on the grid, and the crossing diagonal of each diagonal line.
ALL_LINES, CROSSING = _build_lines()


def is_diagonal(key: int) -> bool:
    return key in CROSSING


def rotate(x: int, y: int, r: int) -> tuple[int, int]:
    """Apply ``r`` quarter turns ``(x, y) -> (y, 3 - x)`` in the local frame (R4.2)."""
    for _ in range(r % 4):
        x, y = y, 3 - x
    return x, y


def transform(x: int, y: int, r: int, mirror: bool) -> tuple[int, int]:
    """Mirror (``x -> 3 - x``) if asked, then rotate."""
    if mirror:
        x = 3 - x
    return rotate(x, y, r)


@cache
def placements(shape: tuple, allow_mirror: bool, head: tuple | None = None) -> tuple:
    """Every distinct on-grid placement of ``shape`` in canonical order.

    ``shape`` is a tuple of local lines ``((x1, y1), (x2, y2))``. Returns a
    tuple of ``(dx, dy, rotation, mirror, keys, head)``: ``keys`` is the
    sorted tuple of line keys, ``head`` the placed point code of ``head``
    (or None). The first placement of each line set in canonical order
    represents it.
    """
    seen = set()
    out = []
    mirrors = (False, True) if allow_mirror else (False,)
    for dx in range(-3, COLUMNS):
        for dy in range(-3, ROWS):
            for mirror in mirrors:
                for r in range(4):
                    keys = []
                    ok = True
                    for (x1, y1), (x2, y2) in shape:
                        ax, ay = transform(x1, y1, r, mirror)
                        bx, by = transform(x2, y2, r, mirror)
                        ax, ay, bx, by = ax + dx, ay + dy, bx + dx, by + dy
                        if not (on_grid(ax, ay) and on_grid(bx, by)):
                            ok = False
                            break
                        keys.append(line_key(pt(ax, ay), pt(bx, by)))
                    if not ok:
                        continue
                    keys = tuple(sorted(keys))
                    if keys in seen:
                        continue
                    seen.add(keys)
                    placed_head = None
                    if head is not None:
                        hx, hy = transform(head[0], head[1], r, mirror)
                        placed_head = pt(hx + dx, hy + dy)
                    out.append((dx, dy, r, mirror, keys, placed_head))
    return tuple(out)


@cache
def placement_index(shape: tuple, allow_mirror: bool, head: tuple | None = None) -> dict:
    """Map ``(dx, dy, rotation, mirror)`` of each canonical placement to its entry."""
    return {(p[0], p[1], p[2], p[3]): p for p in placements(shape, allow_mirror, head)}


def any_placement_keys(shape: tuple, dx: int, dy: int, r: int, mirror: bool):
    """The line keys of any (possibly non-canonical) placement, or None if off the grid."""
    keys = []
    for (x1, y1), (x2, y2) in shape:
        ax, ay = transform(x1, y1, r, mirror)
        bx, by = transform(x2, y2, r, mirror)
        ax, ay, bx, by = ax + dx, ay + dy, bx + dx, by + dy
        if not (on_grid(ax, ay) and on_grid(bx, by)):
            return None
        keys.append(line_key(pt(ax, ay), pt(bx, by)))
    return tuple(sorted(keys))
