"""Memoisation of the pure per-sheet computations the AI repeats most.

A search asks the same questions about the same drawings thousands of times
(every determinization rebuilds the rivals' unchanged sheets, every visit to
a placement rebuilds its sheet), so :func:`legal_steps`' placement list,
:func:`score_sheet` and :func:`outlook` are remembered by what they depend
on: the drawing of one sheet (:func:`drawing_key`) plus the card, pile and
rules involved. All are pure functions of that key, so a hit returns exactly
what a fresh computation would; callers get copies, never the stored objects
(``test_lats_memo.py`` checks both on every step of random matches).
"""

from __future__ import annotations

#: Default entries kept per table before it is emptied.
LIMIT = 16_384


def drawing_key(player: dict) -> tuple:
    """Everything drawn on one sheet that legality and scoring can depend on."""
    return (
        player["sheet"],
        tuple(player["lines"]),
        tuple(tuple(star) for star in player["shooting"]),
        tuple(player["new_stars"]),
        tuple(player["planets"]),
        tuple(player["twinkles"]),
        tuple(player["galaxies"]),
        tuple(player["auras"]),
        tuple(player["novas"]),
        player["moon"],
        player["black_hole"],
    )


class Table:
    """A bounded dict: emptied when it reaches ``limit`` entries."""

    __slots__ = ("_items", "limit")

    def __init__(self, limit: int = LIMIT):
        self._items: dict = {}
        self.limit = limit

    def get(self, key):
        return self._items.get(key)

    def put(self, key, value) -> None:
        if len(self._items) >= self.limit:
            self._items.clear()
        self._items[key] = value
