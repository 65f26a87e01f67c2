"""Built-in AI levels and the one entry point that picks a move.

A policy sees only its seat's view and the seat's legal moves (exactly what
the seat could fetch over HTTP). Search-based levels rebuild a full state by
asking the game to sample the hidden parts consistently with that view
(``Game.sample_state``).
"""
from __future__ import annotations

from ..plugin_api import Game, IllegalMove, Rng


def random_policy(game: Game, view: dict, seat: int, legal: list, rng: Rng, **_) -> dict:
    """Uniform over the legal moves."""
    return rng.choice(legal)


def greedy_policy(game: Game, view: dict, seat: int, legal: list, rng: Rng, **_) -> dict:
    """The move whose immediate result the game's ``evaluate`` likes best.

    Hidden parts are sampled once from the view; ties are broken at random.
    """
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
    return rng.choice(best or legal)


def _implements(game: Game, name: str) -> bool:
    return getattr(type(game), name) is not getattr(Game, name)


def builtin_levels(game: Game) -> dict:
    """The platform's levels that ``game`` supports."""
    levels = {"random": random_policy}
    if _implements(game, "sample_state"):
        levels["greedy"] = greedy_policy
        from .mcts import mcts_policy

        levels["mcts"] = mcts_policy
    return levels


def choose_move(game: Game, level: str, view: dict, seat: int, legal: list, rng: Rng, *,
                num_seats: int, extra: dict | None = None, **budget) -> dict:
    """Ask policy ``level`` for one of ``legal``. ``budget`` (iterations, time_limit) goes to search levels."""
    policies = {**builtin_levels(game), **(extra or {})}
    return policies[level](game, view, seat, legal, rng, num_seats=num_seats, **budget)
