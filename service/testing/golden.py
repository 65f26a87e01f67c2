"""Golden playthroughs: recorded matches that a rules change must not silently alter.

A golden file is a seeded random match, recorded with its final state and
outcome::

    {"game", "num_seats", "seed", "options", "entries", "final_state", "outcome"}

:func:`check` folds the entries again and re-decides every move from the
recorded seed: if the rules now produce different events, a different state or
a different outcome, the test fails loudly. Write new files with
:func:`write_matches` only after a deliberate rules change (and bump
``rules_version``).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..core.decider import Folded, apply_entry, decide, fold, with_steps
from ..plugin_api import Game
from .playouts import play_random_match


def record(game: Game, num_seats: int, seed: str, options: dict | None = None) -> dict:
    folded, entries = play_random_match(game, num_seats, seed, thorough=False, options=options)
    return {
        "game": game.info.slug,
        "num_seats": num_seats,
        "seed": seed,
        "options": game.load_options(options),
        "entries": entries,
        "final_state": folded.state,
        "outcome": game.outcome(folded.state),
    }


def write_matches(game: Game, folder: Path, matches: list[tuple[str, int, str, dict]]) -> None:
    """Record ``(name, num_seats, seed, options)`` matches as ``folder/<name>.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, num_seats, seed, options in matches:
        data = record(game, num_seats, seed, options)
        path = folder / f"{name}.json"
        path.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
        print(f"{path}: {len(data['entries'])} entries, {path.stat().st_size // 1024} KB")


def check(game: Game, data: dict) -> None:
    """Fold and re-decide a recorded match; assert it ends exactly as recorded."""
    assert data["game"] == game.info.slug
    entries = data["entries"]
    folded = fold(game, entries)
    assert folded.state == data["final_state"], "the recorded entries fold to a different final state"
    assert game.outcome(folded.state) == data["outcome"], "the outcome changed"
    assert data["outcome"] is not None and len(data["outcome"]["scores"]) == data["num_seats"]
    folded = apply_entry(game, Folded(), entries[0])
    for entry in entries[1:]:
        seen = folded  # with the seat's sealed steps the entry carries (a log written by a server)
        for step in entry.get("sealed") or ():
            again = decide(game, seen, entry["seat"], step["move"], data["seed"])
            assert again["events"] == step["events"], f"version {entry['version']}: a sealed step differs"
            seen = with_steps(game, seen, [again])
        again = decide(game, seen, entry["seat"], entry["move"], data["seed"])
        assert again["events"] == entry["events"], (
            f"version {entry['version']}: the rules now decide differently"
        )
        folded = apply_entry(game, folded, entry)


def as_export(data: dict, game: Game) -> dict:
    """The golden match as a complete export document (for import round trips)."""
    return {
        "format": "gameroom-match",
        "format_version": 1,
        "game": data["game"],
        "rules_version": game.info.rules_version,
        "complete": True,
        "seats": [{"name": f"P{i}", "ai": None} for i in range(data["num_seats"])],
        "options": data["options"],
        "seed": data["seed"],
        "entries": data["entries"],
    }
