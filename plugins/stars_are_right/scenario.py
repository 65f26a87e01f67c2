"""Build specific positions directly, for scenario tests, puzzles and AI experiments.

``position(...)`` returns a complete, consistent state: every card not placed
anywhere goes to the draw pile (in id order unless ``deck`` is given), so the
75-card census always holds. ``step`` runs one move through ``decide`` and
``evolve`` exactly as the platform does.
"""

from __future__ import annotations

from collections import Counter

from gameroom.plugin_api import Rng

from .content import ALL_CARD_IDS, TILE_FACES
from .decide import decide
from .evolve import evolve
from .schemas import OptionsSchema
from .sky import sky_key
from .state import EMPTY_POOL

#: The sky S0 of the spec's worked examples (section 9): ``code:tile`` per cell.
S0 = """
2:0   3:1   1:7   V:12  Wn:15
4:8   Su:21 Mo:23 Sh:18 5:13
3:2   Le:24 2:3   Wx:16 Me:19
Se:22 1:9   4:10  4:11  2:4
Me:20 3:5   V:14  Wn:17 2:6
"""


def parse_sky(text: str) -> tuple[list, list]:
    """``(sky, faces)`` from 25 ``code:tile`` tokens, row by row."""
    sky, faces = [], [0] * 25
    for token in text.split():
        code, tile = token.split(":")
        tile = int(tile)
        sky.append(tile)
        faces[tile] = TILE_FACES[tile].index(code)
    assert sorted(sky) == list(range(25)), "a sky holds each tile exactly once"
    return sky, faces


def build_sky(cells: dict) -> str:
    """A sky text with ``cells`` (index -> ``"code:tile"``) fixed; every other cell
    gets an unused tile, face A, in id order."""
    used = {int(tok.split(":")[1]) for tok in cells.values()}
    spare = iter(t for t in range(25) if t not in used)
    tokens = []
    for idx in range(25):
        if idx in cells:
            tokens.append(cells[idx])
        else:
            t = next(spare)
            tokens.append(f"{TILE_FACES[t][0]}:{t}")
    return " ".join(tokens)


def position(
    n: int = 2,
    *,
    hands=None,
    tables=None,
    sky: str = S0,
    active: int = 0,
    phase: str = "invoke",
    options: dict | None = None,
    deck=None,
    discard=(),
    tapped=(),
    pool=None,
    invoked=None,
    summoned=None,
    turn: int = 0,
) -> dict:
    """A state with the given cards placed; the rest form the draw pile."""
    hands = [list(h) for h in (hands or [[] for _ in range(n)])]
    tables = [list(t) for t in (tables or [[] for _ in range(n)])]
    sky_cells, faces = parse_sky(sky)
    placed = [c for h in hands for c in h] + [c for t in tables for c in t] + list(discard)
    if invoked is not None:
        placed.append(invoked)
    if deck is None:
        deck = [c for c in ALL_CARD_IDS if c not in placed]
    state = {
        "n": n,
        "opts": OptionsSchema().load(options or {}),
        "sky": sky_cells,
        "faces": faces,
        "deck": list(deck),
        "discard": list(discard),
        "hands": hands,
        "tables": tables,
        "tapped": list(tapped),
        "active": active,
        "phase": phase,
        "invoked": invoked,
        "pool": {**EMPTY_POOL, **(pool or {})},
        "nc": None,
        "summoned": summoned,
        "discards": 0,
        "dhole": None,
        "turn": turn,
        "first": 0,
        "winners": None,
        "end": None,
    }
    if phase == "sky":
        state["nc"] = {"flipped": [], "pushed": [], "swapped": [], "seen": [sky_key(sky_cells, faces)]}
    return state


def step(state: dict, seat: int, move: dict, seed: str = "scenario") -> tuple[dict, list]:
    """Decide and fold one move; returns ``(new_state, events)``."""
    events = decide(state, seat, move, Rng(seed))
    for event in events:
        state = evolve(state, event)
    return state, events


def steps(state: dict, seat: int, moves: list[dict]) -> dict:
    for move in moves:
        state, _ = step(state, seat, move)
    return state


def census(state: dict) -> Counter:
    """How often each card appears across deck, discard, hands, tables and the invoked slot."""
    count = Counter(state["deck"]) + Counter(state["discard"])
    for cards in state["hands"] + state["tables"]:
        count += Counter(cards)
    if state["invoked"] is not None:
        count[state["invoked"]] += 1
    return count


def up_codes(state: dict) -> list[str]:
    """The face code showing in each cell."""
    return [TILE_FACES[t][state["faces"][t]] for t in state["sky"]]
