"""Local tournaments between AI levels: no HTTP, no Redis, just the pure core.

Each match is set up, decided and folded with :mod:`gameroom.core.decider`
exactly as the server does it, and every seat's policy sees only
``game.view(state, seat)`` and its legal moves (the same call as the AI job).

Fairness: entrant *k* sits in seat ``(k + i) mod n`` in match *i*, so with
two seats half the matches go each way; the deal (the match seed) is shared
by the ``n`` rotations of one round, so each entrant plays every deal from
every seat. Decision randomness comes from the tournament seed, the match
and the version: a tournament with an iteration budget (no time limit) is
reproducible.
"""

from __future__ import annotations

import math
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from ..core import decider
from ..plugin_api import IllegalMove, Rng
from ..registry import build_registry
from .levels import builtin_levels, choose_move

_GAMES: dict = {}


@dataclass(frozen=True)
class MatchSpec:
    index: int
    entrants: tuple  # entrants[seat] = index into the tournament's levels
    seed: str


def _budget_part(part: str) -> tuple[str, float]:
    if part.endswith("ms"):
        return "time_limit", float(part[:-2]) / 1000
    if part.endswith("s"):
        return "time_limit", float(part[:-1])
    return "iterations", int(part)


def parse_budget(text: str | None) -> dict:
    """``"300"`` (iterations, no time limit), ``"0.5s"`` (time limit) or ``"300/0.5s"`` (both)."""
    if not text:
        return {}
    try:
        parts = [_budget_part(part.strip().lower()) for part in text.split("/")]
        budget = dict(parts)
        if (
            len(budget) < len(parts)
            or not all(0 <= v < math.inf for v in budget.values())
            or budget.get("iterations", 1) < 1
        ):
            raise ValueError(text)
    except ValueError:
        raise ValueError(
            f"{text!r} is not a budget: use N (iterations, 1 or more), Ts or Nms (seconds per "
            "decision, e.g. 0.5s or 300ms), or both as N/Ts"
        ) from None
    if "iterations" in budget and "time_limit" not in budget:
        budget["time_limit"] = 0.0  # an iteration budget alone is meant to be reproducible
    return budget


def _number(low: float, high: float = math.inf, kind=float):
    """A converter of a search setting's value: a ``kind`` from ``low`` to ``high`` (finite)."""

    def convert(text: str):
        value = kind(text)
        if not (low <= value <= high and math.isfinite(value)):
            raise ValueError(text)
        return value

    return convert


def _final(text: str) -> str:
    if text not in ("visits", "value"):
        raise ValueError(text)
    return text


#: The mcts search's settings (see :mod:`gameroom.ai.mcts`): how each is read, and what it may be.
SEARCH_SETTINGS = {
    "exploration": (_number(0), "a number, 0 or more"),
    "minimax": (_number(0, 1), "a number from 0 to 1"),
    "rollout": (_number(0, kind=int), "a whole number, 0 or more"),
    "final": (_final, "visits or value"),
}


def parse_search(items) -> dict:
    """``["minimax=1", "rollout=4"]`` -> settings of the mcts search (see :func:`gameroom.ai.mcts.settings`).

    Each value is checked against what mcts can use: mcts reads ``final`` as
    "value" or anything else as visits, and takes a minimax weight of 5 as it is.
    """
    settings = {}
    for item in items or ():
        key, _, value = item.partition("=")
        if key not in SEARCH_SETTINGS or not value:
            raise ValueError(
                f"bad search setting {item!r}: use KEY=VALUE with KEY one of {sorted(SEARCH_SETTINGS)}"
            )
        convert, allowed = SEARCH_SETTINGS[key]
        try:
            settings[key] = convert(value.strip())
        except ValueError:
            raise ValueError(f"bad search setting {item!r}: {key} must be {allowed}") from None
    return settings


def labels_for(levels: list[str]) -> list[str]:
    """Entrant names: the level, numbered when a level enters more than once."""
    return [f"{lv}#{i + 1}" if levels.count(lv) > 1 else lv for i, lv in enumerate(levels)]


def schedule(num_entrants: int, matches: int, seed: str) -> list[MatchSpec]:
    n = num_entrants
    return [
        MatchSpec(i, tuple((s + i) % n for s in range(n)), f"{seed}:deal:{i // n}") for i in range(matches)
    ]


def _game(slug: str):
    if slug not in _GAMES:
        registry = build_registry()
        _GAMES[slug] = (registry.get(slug), registry.ai_policies(registry.get(slug)))
    return _GAMES[slug]


def play_match(
    game,
    extra: dict,
    levels: list[str],
    spec: MatchSpec,
    options: dict,
    budget: dict,
    tournament_seed: str = "",
) -> dict:
    """Play one match to its end; returns the entrants by seat, scores, winners and decision times."""
    n = len(spec.entrants)
    folded = decider.fold(game, [decider.setup_entry(game, n, options, spec.seed) | {"version": 1}])
    decisions = {e: [] for e in range(len(levels))}
    bound = game.max_steps_for(n, options)
    limit = float("inf") if bound is None else bound + 1
    turn = 0
    while game.outcome(folded.state) is None:
        active = game.active_seats(folded.state)
        if not active or folded.version > limit:
            return {
                "index": spec.index,
                "entrants": list(spec.entrants),
                "scores": None,
                "winners": None,
                "steps": folded.version - 1,
                "decisions": decisions,
                "error": "did not finish",
            }
        seat = active[turn % len(active)]  # rotate through simultaneous seats
        turn += 1
        entrant = spec.entrants[seat]
        rng = Rng(f"{tournament_seed}:{spec.index}:{folded.version}:{seat}")
        started = time.perf_counter()
        move = choose_move(
            game,
            levels[entrant],
            game.view(folded.state, seat),
            seat,
            game.legal_moves(folded.state, seat),
            rng,
            num_seats=n,
            extra=extra,
            **budget,
        )
        decisions[entrant].append(time.perf_counter() - started)
        entry = decider.decide(game, folded, seat, move, spec.seed)
        entry["version"] = folded.version + 1
        folded = decider.apply_entry(game, folded, entry)
    result = game.outcome(folded.state)
    return {
        "index": spec.index,
        "entrants": list(spec.entrants),
        "scores": list(result["scores"]),
        "winners": list(result["winners"]),
        "steps": folded.version - 1,
        "decisions": decisions,
    }


def _play(slug, levels, spec, options, budget, seed) -> dict:
    try:
        game, extra = _game(slug)
        return play_match(game, extra, levels, spec, options, budget, seed)
    except Exception:
        return {
            "index": spec.index,
            "entrants": list(spec.entrants),
            "scores": None,
            "winners": None,
            "steps": 0,
            "decisions": {e: [] for e in range(len(levels))},
            "error": traceback.format_exc(),
        }


def run(
    slug: str,
    levels: list[str],
    matches: int,
    *,
    budget: dict | None = None,
    jobs: int = 1,
    seed: str = "tournament",
    options: dict | None = None,
    progress=None,
) -> list[dict]:
    """Play ``matches`` matches of game ``slug`` between ``levels`` (one per seat); results by match index.

    ``jobs`` > 1 plays them in that many processes. ``progress`` is called
    with each finished result (the CLI advances its progress bar there).
    """
    game, extra = _game(slug)
    if not game.info.min_players <= len(levels) <= game.info.max_players:
        raise ValueError(f"{game.info.title} takes {game.info.min_players}-{game.info.max_players} seats")
    unknown = set(levels) - set(_levels(game, extra))
    if unknown:
        raise ValueError(f"unknown AI level(s) {sorted(unknown)}; {slug} has {sorted(_levels(game, extra))}")
    options = game.load_options(options)
    try:
        game.check_seats(len(levels), options)
    except IllegalMove as exc:
        raise ValueError(exc.message) from None
    budget = budget or {}
    specs = schedule(len(levels), matches, seed)
    results = []
    if jobs <= 1:
        for spec in specs:
            results.append(_play(slug, levels, spec, options, budget, seed))
            if progress:
                progress(results[-1])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_play, slug, levels, spec, options, budget, seed) for spec in specs]
            for future in as_completed(futures):
                results.append(future.result())
                if progress:
                    progress(results[-1])
    return sorted(results, key=lambda r: r["index"])


def _levels(game, extra) -> list[str]:
    return sorted(set(builtin_levels(game)) | set(extra))
