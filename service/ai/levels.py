"""Built-in AI levels and the one entry point that picks a move.

A policy is ``policy(game, view, seat, legal, rng, *, num_seats, **budget) -> move``:
it sees only its seat's view and the seat's legal moves (exactly what the seat
could fetch over HTTP) and returns one of ``legal``. Search-based levels
rebuild full states by asking the game to sample the hidden parts
consistently with that view (``Game.sample_state``).

Levels: ``random`` (uniform; every game), ``greedy`` (the move whose result
the game's ``evaluate`` likes best, one step ahead) and ``mcts`` (ISMCTS, see
:mod:`gameroom.ai.mcts`); both need ``sample_state``. Games and add-on plugins
bring more through ``Game.ai_policies`` and the ``gameroom_ai_policies`` hook.
"""

from __future__ import annotations

from ..plugin_api import Game, IllegalMove, Rng
from . import mcts

#: Seconds a decision may take at the default budget, per built-in level (sizes job timeouts).
#: greedy tries every legal move once; mcts stops itself (see :func:`time_budget`).
TIME_BUDGETS = {"random": 1.0, "greedy": 10.0}
#: Assumed for levels from plugins, which may say better with a ``time_budget`` attribute.
EXTRA_LEVEL_BUDGET = 60.0


def random_policy(game: Game, view: dict, seat: int, legal: list, rng: Rng, **_) -> dict:
    """Uniform over the legal moves."""
    return legal[rng.randrange(len(legal))]


def greedy_policy(game: Game, view: dict, seat: int, legal: list, rng: Rng, **_) -> dict:
    """The move whose immediate result the game's ``evaluate`` likes best.

    Hidden parts are sampled once from the view (so a draw is judged on one
    plausible deck); ties are broken at random.
    """
    if len(legal) == 1:
        return legal[0]
    state = game.sample_state(view, seat, rng)
    best, best_value = [], float("-inf")
    for move in legal:
        try:
            events = game.decide(state, seat, move, rng)
        except IllegalMove:
            continue
        after = state
        for event in events:
            after = game.evolve(after, event)
        value = game.evaluate(after, seat)
        if value > best_value + 1e-12:
            best, best_value = [move], value
        elif abs(value - best_value) <= 1e-12:
            best.append(move)
    return (best or legal)[rng.randrange(len(best or legal))]


def builtin_levels(game: Game) -> dict:
    """The platform's levels that ``game`` supports (greedy and mcts need ``sample_state``)."""
    levels = {"random": random_policy}
    if game.overrides("sample_state"):
        levels["greedy"] = greedy_policy
        levels["mcts"] = mcts.mcts_policy
    return levels


def time_budget(game: Game, level: str, policy=None) -> float:
    """Seconds one decision of ``level`` may take at its default budget.

    For ``mcts`` it is the search's time limit (the game's ``mcts_time_limit``
    or the default); with no time limit, a generous allowance for the
    iteration cap. A plugin's policy may declare a ``time_budget`` attribute.
    """
    if level == "mcts":
        limit = mcts.settings(game)["time_limit"]
        return limit if limit > 0 else EXTRA_LEVEL_BUDGET
    if level in TIME_BUDGETS:
        return TIME_BUDGETS[level]
    return float(getattr(policy, "time_budget", EXTRA_LEVEL_BUDGET))


def choose_move(
    game: Game,
    level: str,
    view: dict,
    seat: int,
    legal: list,
    rng: Rng,
    *,
    num_seats: int,
    extra: dict | None = None,
    **budget,
) -> dict:
    """Ask policy ``level`` for one of ``legal``.

    ``extra`` are the levels of the game and of add-on plugins
    (:meth:`gameroom.registry.Registry.ai_policies`); ``budget``
    (``iterations``, ``time_limit``, ...) goes to the policy, which ignores
    what it does not use. Raises ``KeyError`` for an unknown level.
    """
    policies = {**builtin_levels(game), **(extra or {})}
    return policies[level](game, view, seat, legal, rng, num_seats=num_seats, **budget)
