"""Information-set Monte-Carlo tree search (SO-ISMCTS) over the game contract.

Each iteration

1. *determinizes*: asks the game for a full state consistent with the
   searching seat's view (``Game.sample_state``: other hands and the deck
   drawn from the unseen cards). The search never sees the real hidden state.
2. *selects* down one tree shared by all determinizations, whose edges are
   moves. A child is scored only against the determinizations in which its
   move was legal ("availability" counts, Cowling, Powley & Whitehouse 2012),
   so the tree never relies on cards it cannot see.
3. *expands* one untried move, then plays ``rollout`` steps of the rollout
   policy and values the leaf with ``Game.evaluate`` for every seat.
4. *backs up* the raw values; each node keeps the mean value for the seat that
   made its move, and an *implicit minimax* value (Lanctot, Winands, Pepels &
   Sturtevant 2014): the evaluation of the node when it was expanded, then
   the max^n backup of its children's. Selection blends the two
   (``minimax`` weight), which keeps the game's heuristic sharp where plain
   averaging would blur it with the search's own exploratory moves. Values are
   normalised to [0, 1] by the smallest and largest value seen in this search
   (as MuZero does), so any evaluation scale works with one exploration
   constant.

The move played is the most visited child of the root.

Game-agnostic: only ``sample_state``, ``legal_moves``, ``active_seats``,
``decide``, ``evolve``, ``evaluate``, ``outcome`` and ``rollout_policy`` are
called. A game tunes the search with the ``mcts_*`` class attributes of
:class:`gameroom.plugin_api.Game` (documented there, with their defaults);
the arguments of one search (:func:`settings`) take precedence over them.

Budget: ``iterations`` caps the work; ``time_limit`` (seconds, ``0`` = none)
stops earlier. All randomness comes from the ``rng`` passed in, so with a
time limit that does not bind the choice is deterministic.
"""

from __future__ import annotations

import json
import math
import time

from ..plugin_api import Game, IllegalMove, Rng

DEFAULT_ITERATIONS = Game.mcts_iterations
DEFAULT_TIME_LIMIT = Game.mcts_time_limit  # seconds: one decision stays under 1 s with sampling and set-up
EXPLORATION = Game.mcts_exploration
#: ``mcts_minimax`` when the game leaves it ``None`` and overrides ``evaluate``.
MINIMAX = 0.5
#: ``mcts_rollout`` when the game leaves it ``None`` and does not override ``evaluate``.
FULL_ROLLOUT = 200


class _Node:
    __slots__ = ("move", "actor", "children", "visits", "total", "avail", "vec", "static", "full")

    def __init__(self, move=None, actor=None):
        self.move = move
        self.actor = actor
        self.children: dict = {}  # move_key -> _Node
        self.visits = 0
        self.total = 0.0  # sum of the raw values of ``actor``
        self.avail = 0
        self.vec = None  # implicit minimax values, one per seat
        self.static = None  # the evaluation when expanded
        self.full = False  # every move seen here has a child


class _Bounds:
    """The smallest and largest node mean seen: normalises values to [0, 1]."""

    __slots__ = ("lo", "hi")

    def __init__(self):
        self.lo, self.hi = math.inf, -math.inf

    def see(self, value: float) -> None:
        if value < self.lo:
            self.lo = value
        if value > self.hi:
            self.hi = value

    def norm(self, value: float) -> float:
        return (value - self.lo) / (self.hi - self.lo) if self.hi > self.lo else 0.5


def move_key(move: dict):
    """A canonical, hashable key for a move (moves are JSON objects).

    Flat moves (the common case) become their sorted items, which is several
    times cheaper than JSON; moves holding lists or objects fall back to
    canonical JSON text.
    """
    key = tuple(sorted(move.items()))
    try:
        hash(key)
    except TypeError:
        return json.dumps(move, sort_keys=True, separators=(",", ":"))
    return key


def settings(
    game: Game, iterations=None, time_limit=None, rollout=None, exploration=None, minimax=None, final=None
) -> dict:
    """The search settings: explicit arguments, else the game's ``mcts_*`` attributes (see :class:`Game`)."""
    heuristic = game.overrides("evaluate")
    rollout_default = game.mcts_rollout
    if rollout_default is None:
        rollout_default = 0 if heuristic else FULL_ROLLOUT
    minimax_default = game.mcts_minimax
    if minimax_default is None:
        minimax_default = MINIMAX if heuristic else 0.0
    opponents = game.mcts_opponents
    if opponents is None:
        opponents = "policy" if game.info.simultaneous else "tree"
    return {
        "iterations": int(iterations or game.mcts_iterations),
        "time_limit": float(game.mcts_time_limit if time_limit is None else time_limit),
        "rollout": int(rollout_default if rollout is None else rollout),
        "minimax": float(minimax_default if minimax is None else minimax),
        "exploration": float(game.mcts_exploration if exploration is None else exploration),
        "opponents": opponents,
        "final": final or game.mcts_final,
    }


class _Search:
    def __init__(self, game: Game, seat: int, num_seats: int, rng: Rng, config: dict):
        self.game, self.seat, self.num_seats, self.rng = game, seat, num_seats, rng
        self.rollout = config["rollout"]
        self.c = config["exploration"]
        self.alpha = config["minimax"]
        self.final = config.get("final", "visits")
        self.tree_opponents = config["opponents"] != "policy"
        self.bounds = _Bounds()
        self.root = _Node()

    def _actor(self, state):
        active = self.game.active_seats(state)
        if not active:
            return None
        return self.seat if self.seat in active else active[0]

    def _apply(self, state, actor: int, move: dict):
        for event in self.game.decide(state, actor, move, self.rng):
            state = self.game.evolve(state, event)
        return state

    def _default_move(self, state, actor: int, moves: list):
        return self.game.rollout_policy(state, actor, moves, self.rng)

    def _select(self, node: _Node, keyed: dict):
        best, best_score = None, -math.inf
        for k in keyed:
            child = node.children[k]
            score = self._q(child) + self.c * math.sqrt(math.log(child.avail) / child.visits)
            if score > best_score:
                best, best_score = k, score
        return best

    def iterate(self, view: dict, root_moves: dict) -> None:
        game, rng = self.game, self.rng
        state = game.sample_state(view, self.seat, rng)
        node, path = self.root, [self.root]
        expanded = False
        while not expanded:
            actor = self._actor(state)
            if actor is None:
                break
            if node is self.root:
                keyed = root_moves
            else:
                moves = game.legal_moves(state, actor)
                if not moves:
                    break
                if actor != self.seat and not self.tree_opponents:
                    try:
                        state = self._apply(state, actor, self._default_move(state, actor, moves))
                    except IllegalMove:
                        break
                    continue
                keyed = {move_key(m): m for m in moves}
            for k in keyed:
                child = node.children.get(k)
                if child is not None:
                    child.avail += 1
            untried = [k for k in keyed if k not in node.children]
            node.full = not untried
            if untried:
                k = untried[rng.randrange(len(untried))]
                child = node.children[k] = _Node(keyed[k], actor)
                child.avail = 1
                expanded = True
            else:
                k = self._select(node, keyed)
                child = node.children[k]
            try:
                state = self._apply(state, actor, keyed[k])
            except IllegalMove:  # a move the game lists but refuses: never select it again
                child.avail = max(1, child.avail - 1)
                break
            node = child
            path.append(node)
        leaf = path[-1]
        if self.alpha and leaf.static is None and self.rollout:
            leaf.static = self._values(state)
        values = self._values(self._rollout(state))
        if self.alpha:
            self._minimax(path, values)
        for visited in path:
            visited.visits += 1
            if visited.actor is not None:
                visited.total += values[visited.actor]
                self.bounds.see(visited.total / visited.visits)

    def _rollout(self, state):
        """``state`` after up to ``rollout`` default moves (fewer when the match ends or a move is refused)."""
        game = self.game
        for _ in range(self.rollout):
            actor = self._actor(state)
            if actor is None:
                break
            moves = game.legal_moves(state, actor)
            if not moves:
                break
            try:
                state = self._apply(state, actor, self._default_move(state, actor, moves))
            except IllegalMove:
                break
        return state

    def _values(self, state) -> list:
        """The evaluation of ``state`` for each seat that owns nodes of the tree.

        With ``opponents="policy"`` that is the searching seat alone (the
        others' moves are not nodes), so the others' entries stay 0.0 unasked.
        """
        if self.tree_opponents:
            return [self.game.evaluate(state, s) for s in range(self.num_seats)]
        values = [0.0] * self.num_seats
        values[self.seat] = self.game.evaluate(state, self.seat)
        return values

    def best(self) -> _Node:
        """The root child to play: the most visited (``final="visits"``) or the best valued."""
        children = self.root.children.values()
        if self.final == "value":
            return max(children, key=lambda c: (self._q(c), c.visits))
        return max(children, key=lambda c: (c.visits, c.total / c.visits))

    def _q(self, child: _Node) -> float:
        q = self.bounds.norm(child.total / child.visits)
        if self.alpha:
            q = (1 - self.alpha) * q + self.alpha * self.bounds.norm(child.vec[child.actor])
        return q

    def _minimax(self, path: list, values: list) -> None:
        """Set the new leaf's value vector, then back up max^n along ``path``.

        A node not yet fully expanded may also keep its own evaluation (the
        mover "stands pat"): its untried moves are unknown, not bad.
        """
        leaf = path[-1]
        if leaf.static is None:
            leaf.static = values
        if leaf.vec is None:
            leaf.vec = leaf.static
            if leaf.actor is not None:
                self.bounds.see(leaf.vec[leaf.actor])
        for node in reversed(path[:-1]):
            best = None
            for child in node.children.values():
                if child.vec is not None and (best is None or child.vec[child.actor] > best.vec[best.actor]):
                    best = child
            if best is None:
                continue
            mover = best.actor
            if not node.full and node.static is not None and node.static[mover] > best.vec[mover]:
                node.vec = node.static
            else:
                node.vec = best.vec
            self.bounds.see(node.vec[mover])


def search(
    game: Game, view: dict, seat: int, legal: list, rng: Rng, *, num_seats: int, **budget
) -> tuple[dict, dict]:
    """Run the search; returns the chosen move and statistics (iterations, seconds, root visits)."""
    config = settings(game, **budget)
    started = time.monotonic()
    root_moves = {move_key(m): m for m in legal}
    if len(root_moves) == 1:
        return legal[0], {"iterations": 0, "seconds": 0.0, "visits": {}}
    engine = _Search(game, seat, num_seats, rng, config)
    deadline = started + config["time_limit"] if config["time_limit"] > 0 else math.inf
    done = 0
    while done < config["iterations"] and (done == 0 or time.monotonic() < deadline):
        engine.iterate(view, root_moves)
        done += 1
    children = engine.root.children
    if not children:
        move = legal[rng.randrange(len(legal))]
    else:
        move = engine.best().move
    stats = {
        "iterations": done,
        "seconds": time.monotonic() - started,
        "visits": {k: c.visits for k, c in children.items()},
    }
    return move, stats


def mcts_policy(
    game: Game,
    view: dict,
    seat: int,
    legal: list,
    rng: Rng,
    *,
    num_seats: int,
    iterations: int | None = None,
    time_limit: float | None = None,
    rollout: int | None = None,
    exploration: float | None = None,
    minimax: float | None = None,
    final: str | None = None,
    **_,
) -> dict:
    """Pick a move for ``seat`` by ISMCTS from its ``view`` (see the module docstring for the budget)."""
    move, _stats = search(
        game,
        view,
        seat,
        legal,
        rng,
        num_seats=num_seats,
        iterations=iterations,
        time_limit=time_limit,
        rollout=rollout,
        exploration=exploration,
        minimax=minimax,
        final=final,
    )
    return move
