"""Information-set Monte-Carlo tree search over the game contract.

Each iteration samples a full state consistent with the searching seat's view
(``Game.sample_state``: other hands and the deck drawn from the unseen
cards), then walks one shared tree whose edges are moves. A child is scored
only against the determinizations in which its move was legal ("availability"
counts, Cowling et al. 2012), so the tree never relies on hidden cards.
Leaves are valued by a short random rollout, then ``Game.evaluate`` (or the
outcome, when the rollout ends the match), squashed to [0, 1] per seat.

Game-agnostic: game knowledge enters only through ``sample_state``,
``evaluate`` and the legal moves.
"""
from __future__ import annotations

import json
import math
import time

from ..plugin_api import Game, IllegalMove, Rng

DEFAULT_ITERATIONS = 300
DEFAULT_TIME_LIMIT = 0.8  # seconds; keeps an AI decision under 1 s on a small machine
DEFAULT_ROLLOUT = 12
EXPLORATION = 0.7


class _Node:
    __slots__ = ("move", "actor", "children", "visits", "value", "avail")

    def __init__(self, move=None, actor=None):
        self.move = move
        self.actor = actor
        self.children: dict[str, _Node] = {}
        self.visits = 0
        self.value = 0.0
        self.avail = 0


def _key(move: dict) -> str:
    return json.dumps(move, sort_keys=True, separators=(",", ":"))


def _apply(game: Game, state, seat: int, move: dict, rng: Rng):
    for event in game.decide(state, seat, move, rng):
        state = game.evolve(state, event)
    return state


def _values(game: Game, state, num_seats: int, scale: float) -> list[float]:
    result = game.outcome(state)
    if result is not None:
        winners = result["winners"]
        return [(1.0 / len(winners) if s in winners else 0.0) if winners else 0.5 for s in range(num_seats)]
    raw = [game.evaluate(state, s) for s in range(num_seats)]
    return [1.0 / (1.0 + math.exp(-v / scale)) for v in raw]


def _actor(game: Game, state, seat: int):
    active = game.active_seats(state)
    if not active:
        return None
    return seat if seat in active else active[0]


def mcts_policy(game: Game, view: dict, seat: int, legal: list, rng: Rng, *,
                num_seats: int, iterations: int | None = None, time_limit: float | None = None,
                rollout: int | None = None) -> dict:
    """Pick a move for ``seat`` by ISMCTS from its ``view``.

    The budget is ``iterations`` (default from ``game.mcts_iterations`` or
    300) capped by ``time_limit`` seconds (default 0.8). With a fixed seed and
    an iteration budget that the time limit does not cut, the choice is
    deterministic.
    """
    if len(legal) == 1:
        return legal[0]
    iterations = iterations or getattr(game, "mcts_iterations", DEFAULT_ITERATIONS)
    time_limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    rollout = DEFAULT_ROLLOUT if rollout is None else rollout
    scale = getattr(game, "evaluation_scale", 5.0)
    legal_keys = {_key(m) for m in legal}
    root = _Node()
    deadline = time.monotonic() + time_limit
    for i in range(iterations):
        if i and time.monotonic() > deadline:
            break
        state = game.sample_state(view, seat, rng)
        node, path = root, [root]
        while True:
            actor = _actor(game, state, seat)
            if actor is None:
                break
            moves = game.legal_moves(state, actor)
            if node is root:
                moves = [m for m in moves if _key(m) in legal_keys] or legal
            keyed = {_key(m): m for m in moves}
            for k in keyed:
                child = node.children.get(k)
                if child is not None:
                    child.avail += 1
            untried = [k for k in keyed if k not in node.children]
            if untried:
                k = untried[rng.randrange(len(untried))]
                child = node.children[k] = _Node(keyed[k], actor)
                child.avail = 1
            else:
                log_total = math.log(max(1, sum(node.children[k].avail for k in keyed)))
                k = max(keyed, key=lambda k: node.children[k].value / node.children[k].visits
                        + EXPLORATION * math.sqrt(log_total / node.children[k].visits))
                child = node.children[k]
            try:
                state = _apply(game, state, actor, keyed[k], rng)
            except IllegalMove:
                break
            node = child
            path.append(node)
            if child.visits == 0:
                break
        for _ in range(rollout):
            actor = _actor(game, state, seat)
            if actor is None:
                break
            moves = game.legal_moves(state, actor)
            if not moves:
                break
            try:
                state = _apply(game, state, actor, moves[rng.randrange(len(moves))], rng)
            except IllegalMove:
                break
        values = _values(game, state, num_seats, scale)
        for visited in path:
            visited.visits += 1
            if visited.actor is not None:
                visited.value += values[visited.actor]
    choices = [c for k, c in root.children.items() if k in legal_keys and c.visits]
    if not choices:
        return legal[rng.randrange(len(legal))]
    best = max(choices, key=lambda c: (c.visits, c.value / c.visits))
    return best.move

