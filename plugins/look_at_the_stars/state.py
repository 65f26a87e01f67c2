"""The state of a night and of one player's sheet, and what the rules derive from a sheet.

State (built by :mod:`.evolve`, JSON only)::

    {"n": seats, "rules": {...resolved options...}, "deck": [30 card ids],
     "turn": 1..18, "players": [player], "public": [player as of the last
     reveal], "result": None | {"scores", "winners", "breakdown"},
     "public_scores": None | [running total per seat] (H4, ``live_score``)}

A player's part of the state is a plain dict (see :func:`new_player`); this
module derives from it the sets the rules need -- usable stars (R4.3),
unused stars (R6.4), groups (R4.5) -- and the per-line legality tests of
R4.3-R4.7 and R5.2. :class:`Sheet` is built once per call and never stored.
"""

from __future__ import annotations

from .content import CONTENT
from .geometry import ALL_LINES, COLUMNS, CROSSING, NEIGHBOURS, ends

TURNS_PER_PILE = CONTENT.cards_per_pile

#: Per-turn fields reset when a turn ends (R2.3).
TURN_RESET = {"drawn": False, "pending": [], "selected": None, "stars_left": 0, "confirmed": False, "log": []}


def pile_of(turn: int) -> int:
    """R3.1: the pile (1..3) of the ``turn``-th card (1-based)."""
    return (turn - 1) // TURNS_PER_PILE + 1


def new_player(sheet_index: int) -> dict:
    """The opening state of a player on sheet ``sheet_index`` (R1.5, R1.6)."""
    return {
        "sheet": sheet_index,
        "lines": list(CONTENT.sheets[sheet_index].pre_drawn),
        "consumed": [],
        "shooting": [],  # one list of segment keys per shooting star
        "heads": [],  # the head point of each shooting star (display only)
        "planets": [],  # bonus planets (R6.6)
        "new_stars": [],  # illustration points turned into stars (R6.7)
        "galaxies": [],  # left point of each galaxy (R6.8)
        "twinkles": [],  # twinkling stars (R6.9)
        "novas": [],  # R6.11
        "auras": [],  # R6.10
        "moon": None,  # R6.13
        "black_hole": None,  # R6.12
        # -- this turn (R2.2) --
        "drawn": False,  # drew or skipped the current card
        "pending": [],  # unconsumed Power Bonus occurrences (sorted key triples)
        "selected": None,  # the occurrence being resolved
        "stars_left": 0,  # a second New Star may still be placed
        "confirmed": False,
        "log": [],  # this turn's step events, published at the turn's end (H2)
    }


#: ``(key, a, b, crossing partner or None)`` for every line of the grid.
_LINE_TABLE = tuple((key, *ends(key), CROSSING.get(key)) for key in ALL_LINES)


def groups_of(lines) -> list[list[int]]:
    """Partition ``lines`` into groups of touching lines (R4.5), in first-line order."""
    parent = {k: k for k in lines}

    def find(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    by_point: dict[int, int] = {}
    for k in lines:
        for p in ends(k):
            other = by_point.setdefault(p, k)
            if other != k:
                parent[find(k)] = find(other)
        partner = CROSSING.get(k)
        if partner is not None and partner in parent:
            parent[find(k)] = find(partner)
    out: dict[int, list[int]] = {}
    for k in lines:
        out.setdefault(find(k), []).append(k)
    return list(out.values())


def endpoints(lines) -> set[int]:
    out = set()
    for k in lines:
        a, b = ends(k)
        out.add(a)
        out.add(b)
    return out


class Sheet:
    """Derived view of one player's sheet while pile ``pile`` is being played."""

    __slots__ = (
        "_aura_ends",
        "_aura_lines",
        "_groups",
        "bh_zone",
        "line_ends",
        "lines",
        "low",
        "objects",
        "player",
        "printed",
        "segment_ends",
        "segments",
        "stars",
    )

    def __init__(self, player: dict, pile: int):
        self.player = player
        self.printed = CONTENT.sheets[player["sheet"]]
        self.low = CONTENT.lowest_row[pile] * COLUMNS  # first usable point code (R3.1)
        self.stars = self.printed.stars.union(player["new_stars"])
        objects = set(self.printed.planets)
        objects.update(player["planets"])
        objects.update(player["twinkles"])
        for g in player["galaxies"]:
            objects.add(g)
            objects.add(g + 1)
        if player["moon"] is not None:
            objects.add(player["moon"])
        bh = player["black_hole"]
        self.bh_zone = frozenset((bh, *NEIGHBOURS[bh])) if bh is not None else frozenset()
        if bh is not None:
            objects.add(bh)
        self.objects = objects
        self.lines = set(player["lines"])
        self.line_ends = endpoints(player["lines"])
        self.segments = {k for star in player["shooting"] for k in star}
        self.segment_ends = endpoints(self.segments)
        self._groups = None
        self._aura_lines = None
        self._aura_ends = None

    # -- points ---------------------------------------------------------

    def open_row(self, p: int) -> bool:
        return p >= self.low

    def usable(self, p: int) -> bool:
        """R4.3: a star, not covered, not near a black hole, in an open row."""
        return p >= self.low and p in self.stars and p not in self.objects and p not in self.bh_zone

    def unused(self, p: int) -> bool:
        """R6.4: a usable star that no line or shooting star touches."""
        return self.usable(p) and p not in self.line_ends and p not in self.segment_ends

    def unused_stars(self) -> list[int]:
        return sorted(p for p in self.stars if self.unused(p))

    def free_star(self, p: int) -> bool:
        """R6.12: a star with no line, segment or object on it (any row)."""
        return (
            p in self.stars
            and p not in self.objects
            and p not in self.line_ends
            and p not in self.segment_ends
        )

    # -- groups ---------------------------------------------------------

    @property
    def groups(self) -> list[list[int]]:
        if self._groups is None:
            self._groups = groups_of(self.player["lines"])
        return self._groups

    def group_of_point(self, p: int) -> list[int] | None:
        for g in self.groups:
            for k in g:
                if p in ends(k):
                    return g
        return None

    def group_of_line(self, key: int) -> list[int]:
        for g in self.groups:
            if key in g:
                return g
        return []

    def _auras(self):
        if self._aura_lines is None:
            lines = set()
            for p in self.player["auras"]:
                lines.update(self.group_of_point(p) or ())
            self._aura_lines = lines
            self._aura_ends = endpoints(lines)
        return self._aura_lines, self._aura_ends

    # -- lines ----------------------------------------------------------

    def line_ok(self, key: int) -> bool:
        """R4.3-R4.7: may a new line ``key`` be drawn now?"""
        a, b = ends(key)
        if not (self.usable(a) and self.usable(b)) or key in self.lines:
            return False
        seg_ends = self.segment_ends
        if a in seg_ends or b in seg_ends:
            return False
        partner = CROSSING.get(key)
        if partner is not None and partner in self.segments:
            return False
        if self.player["auras"]:
            aura_lines, aura_ends = self._auras()
            if a in aura_ends or b in aura_ends or (partner is not None and partner in aura_lines):
                return False
        return True

    def segment_ok(self, key: int) -> bool:
        """R5.2: may a shooting-star segment ``key`` be drawn now?"""
        a, b = ends(key)
        if not (self.usable(a) and self.usable(b)):
            return False
        if a in self.line_ends or b in self.line_ends or a in self.segment_ends or b in self.segment_ends:
            return False
        partner = CROSSING.get(key)
        return partner is not None and partner not in self.lines and partner not in self.segments

    def legal_lines(self) -> set[int]:
        """Every line that may be drawn now: :meth:`line_ok` for all lines at once.

        The hot path of placement enumeration, so the tests of ``line_ok``
        are inlined here over precomputed endpoints; ``test_lats_memo.py``
        keeps the two equal.
        """
        # Usable endpoints that no shooting star touches (R4.3, R4.6).
        free = {p for p in self.stars if self.usable(p)} - self.segment_ends
        drawn, segments = self.lines, self.segments
        aura_lines, aura_ends = self._auras() if self.player["auras"] else ((), ())
        out = set()
        for key, a, b, partner in _LINE_TABLE:
            if (
                a in free
                and b in free
                and key not in drawn
                and (partner is None or (partner not in segments and partner not in aura_lines))
                and a not in aura_ends
                and b not in aura_ends
            ):
                out.add(key)
        return out

    def legal_segments(self) -> set[int]:
        return {k for k in CROSSING if self.segment_ok(k)}

    # -- why a line is refused (for rule codes) ---------------------------

    def point_problem(self, p: int) -> str | None:
        if p in self.stars and p not in self.objects and p not in self.bh_zone and p < self.low:
            return "closed-row"
        return None if self.usable(p) else "not-a-usable-star"

    def line_problem(self, key: int) -> str | None:
        """The rule code a new line ``key`` breaks (R3.2, R4.3-R4.7), or None."""
        for p in ends(key):
            problem = self.point_problem(p)
            if problem:
                return problem
        if key in self.lines:
            return "line-exists"
        if not self.line_ok(key):
            a, b = ends(key)
            partner = CROSSING.get(key)
            if (
                a in self.segment_ends
                or b in self.segment_ends
                or (partner is not None and partner in self.segments)
            ):
                return "touches-shooting-star"
            return "touches-aura"
        return None

    def segment_problem(self, key: int) -> str | None:
        """The rule code a shooting-star segment ``key`` breaks (R5.2), or None."""
        for p in ends(key):
            problem = self.point_problem(p)
            if problem:
                return problem
        return None if self.segment_ok(key) else "shooting-star-touches"
