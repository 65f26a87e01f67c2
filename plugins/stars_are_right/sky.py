"""The sky and the three sky actions: push, swap, flip (SAR-B6).

A state keeps the sky as ``sky`` (the tile id in each cell, ``idx = 5r + c``)
and ``faces`` (0 = face A, 1 = face B, per tile id). All functions here are
pure and return new lists.

No-cancel bookkeeping (SAR-B6.5) lives in ``state["nc"]`` during phase 3:
``flipped`` tile ids, ``pushed`` line keys, ``swapped`` tile-pair keys and
``seen`` sky keys. A sky key is an exact 25-character string (one character
per cell encoding tile id and face), so check (d) has no hash collisions.
"""

from __future__ import annotations

from gameroom.plugin_api import IllegalMove

SIZE = 5
LINES = ("row", "col")
DIRECTIONS = {"row": ("left", "right"), "col": ("up", "down")}
OPPOSITE = {"left": "right", "right": "left", "up": "down", "down": "up"}
#: The 40 edge-adjacent cell pairs ``(a, b)`` with ``a < b`` (SAR-B6.3).
ADJACENT = tuple(
    sorted(
        [(5 * r + c, 5 * r + c + 1) for r in range(5) for c in range(4)]
        + [(5 * r + c, 5 * (r + 1) + c) for r in range(4) for c in range(5)]
    )
)
ADJACENT_SET = frozenset(ADJACENT)
#: Which symbol each action spends (SAR-B6.1).
ACTION_SYMBOL = {"push": "P", "swap": "S", "flip": "F"}


def line_cells(line: str, index: int) -> list[int]:
    """Cells of row/column ``index`` from left to right / top to bottom."""
    if line == "row":
        return [5 * index + c for c in range(5)]
    return [5 * r + index for r in range(5)]


def push(sky: list, line: str, index: int, direction: str) -> list:
    """Cyclic shift of one line by one cell (SAR-B6.2)."""
    cells = line_cells(line, index)
    tiles = [sky[c] for c in cells]
    if direction in ("right", "down"):
        tiles = tiles[-1:] + tiles[:-1]
    else:
        tiles = tiles[1:] + tiles[:1]
    new = list(sky)
    for c, t in zip(cells, tiles):
        new[c] = t
    return new


def swap(sky: list, a: int, b: int) -> list:
    new = list(sky)
    new[a], new[b] = sky[b], sky[a]
    return new


def flip(faces: list, tile: int) -> list:
    new = list(faces)
    new[tile] = 1 - faces[tile]
    return new


def sky_key(sky, faces) -> str:
    """An exact, compact key of a sky state (tile id and face in every cell)."""
    return "".join([chr(48 + 2 * t + faces[t]) for t in sky])


def push_key(line: str, index: int, direction: str) -> str:
    return f"{line}{index}:{direction}"


def pair_key(t1: int, t2: int) -> int:
    return min(t1, t2) * 25 + max(t1, t2)


def all_actions() -> list[dict]:
    """The 85 sky actions as moves: 20 pushes, 40 swaps, 25 flips."""
    moves = [
        {"type": "push", "line": line, "index": i, "direction": d}
        for line in LINES
        for i in range(5)
        for d in DIRECTIONS[line]
    ]
    moves += [{"type": "swap", "cells": [a, b]} for a, b in ADJACENT]
    moves += [{"type": "flip", "cell": c} for c in range(25)]
    return moves


ALL_ACTIONS = all_actions()


def _cell(value, what: str) -> int:
    """``value`` as a cell index; ``what`` names it in the refusal as the client wrote it."""
    if type(value) is not int or not 0 <= value < 25:
        raise IllegalMove("bad-cell", f"{what} must be a cell index 0..24.")
    return value


def resolve(state: dict, move: dict) -> tuple[dict, list, list]:
    """Check a sky action against the pool and SAR-B6.5; return ``(event, sky, faces)``.

    The event has no ``seat`` yet. Raises :class:`IllegalMove`.
    """
    kind = move["type"]
    symbol = ACTION_SYMBOL[kind]
    if not state["pool"][symbol]:
        raise IllegalMove("symbol-not-in-pool", f"The pool holds no {symbol} for a {kind}.")
    nc, checks = state["nc"], state["opts"]["no_cancel_checks"]
    sky, faces = state["sky"], state["faces"]
    if kind == "push":
        line, index, direction = move.get("line"), move.get("index"), move.get("direction")
        if (
            not isinstance(line, str)
            or line not in DIRECTIONS
            or type(index) is not int
            or not 0 <= index < 5
        ):
            raise IllegalMove("bad-line", "Push a 'row' or 'col' with index 0..4.")
        if direction not in DIRECTIONS[line]:
            raise IllegalMove("bad-direction", f"A {line} is pushed {' or '.join(DIRECTIONS[line])}.")
        if "b" in checks and push_key(line, index, OPPOSITE[direction]) in nc["pushed"]:
            raise IllegalMove("no-cancel", "That line was already pushed the other way this turn (B6.5b).")
        new_sky, new_faces = push(sky, line, index, direction), faces
        event = {"type": "pushed", "line": line, "index": index, "direction": direction}
    elif kind == "swap":
        cells = move.get("cells")
        if not isinstance(cells, list) or len(cells) != 2:
            raise IllegalMove("bad-cell", "A swap names two cells.")
        a, b = sorted(_cell(cell, "Each of 'cells'") for cell in cells)
        if (a, b) not in ADJACENT_SET:
            raise IllegalMove("not-adjacent", "Only cells sharing an edge may be swapped (B6.3).")
        if "c" in checks and pair_key(sky[a], sky[b]) in nc["swapped"]:
            raise IllegalMove("no-cancel", "Those two tiles were already swapped this turn (B6.5c).")
        new_sky, new_faces = swap(sky, a, b), faces
        event = {"type": "swapped", "cells": [a, b], "tiles": [sky[a], sky[b]]}
    else:
        cell = _cell(move.get("cell"), "'cell'")
        tile = sky[cell]
        if "a" in checks and tile in nc["flipped"]:
            raise IllegalMove("no-cancel", "That tile was already flipped this turn (B6.5a).")
        new_sky, new_faces = sky, flip(faces, tile)
        event = {"type": "flipped", "cell": cell, "tile": tile, "face": new_faces[tile]}
    if "d" in checks and _next_key(nc["seen"][-1], kind, move, sky) in nc["seen"]:
        raise IllegalMove("no-cancel", "That would recreate an earlier sky of this turn (B6.5d).")
    return event, new_sky, new_faces


def _next_key(key: str, kind: str, move: dict, sky: list) -> str:
    """The sky key after an action, derived from the current key.

    ``nc["seen"][-1]`` is always the current sky, so no full rebuild is needed.
    """
    chars = list(key)
    if kind == "flip":
        cell = move["cell"]
        chars[cell] = chr(ord(key[cell]) ^ 1)  # 48 is even: bit 0 is the face
    elif kind == "swap":
        a, b = move["cells"]
        chars[a], chars[b] = key[b], key[a]
    else:
        cells = line_cells(move["line"], move["index"])
        moved = [key[c] for c in cells]
        moved = moved[-1:] + moved[:-1] if move["direction"] in ("right", "down") else moved[1:] + moved[:1]
        for c, ch in zip(cells, moved):
            chars[c] = ch
    return "".join(chars)


def legal_actions(state: dict, only: str | None = None, first: bool = False) -> list[dict]:
    """Every sky action the pool and SAR-B6.5 allow (of symbol ``only`` if given).

    With ``first`` the search stops at the first legal action (used to detect
    a symbol that must be forfeited, SAR-B6.6).
    """
    pool = state["pool"]
    result = []
    for move in ALL_ACTIONS:
        symbol = ACTION_SYMBOL[move["type"]]
        if not pool[symbol] or (only and symbol != only):
            continue
        try:
            resolve(state, move)
        except IllegalMove:
            continue
        result.append(move)
        if first:
            break
    return result
