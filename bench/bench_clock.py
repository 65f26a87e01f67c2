"""What clocks cost the fold: folding with a time control against folding without one.

Pure CPU, no Redis. A trivial two-seat game (``Counter`` of bench_store,
with alternating turns) is folded from the same entries three ways, in
interleaved rounds in shuffled order; ratios are per round, then the median:

- **baseline**: the fold's own step without the lifecycle hook
  (``decider._apply_entry``), i.e. the code as it was before clocks;
- **plain**: ``decider.apply_entry`` on a match without clock (what every
  existing match pays for the hook);
- **clocked**: the same entries with a Fischer clock in the setup entry (the
  overlay is charged, started and stopped at every entry).

Run: ``.venv/bin/python bench/bench_clock.py [--entries N] [--rounds R] [--json PATH]`` (~10 s).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common  # noqa: E402,F401  (puts the project on sys.path)
from bench_store import Counter, make_entries  # noqa: E402

from gameroom.core import decider  # noqa: E402
from gameroom.core.decider import Folded  # noqa: E402


class TurnCounter(Counter):
    """Counter with turns: the seat that did not add last is active; never over."""

    def active_seats(self, state):
        return [0 if state["last"] in (None, 1) else 1]

    def outcome(self, state):
        return None


GAME = TurnCounter()
CLOCK = {"clock": {"bank": 600.0, "increment": 5.0, "per_move": 60.0}, "timeout": None}


def _fold(step, entries) -> float:
    started = time.perf_counter()
    folded = Folded()
    for entry in entries:
        folded = step(GAME, folded, entry)
    return time.perf_counter() - started


def run(n: int, rounds: int, seed: int = 1) -> dict:
    plain = make_entries(n, seed=seed)
    clocked = [dict(e) for e in plain]
    clocked[0] = {**clocked[0], "lifecycle": CLOCK, "started": True}
    variants = {
        "baseline": (decider._apply_entry, plain),
        "plain": (decider.apply_entry, plain),
        "clocked": (decider.apply_entry, clocked),
    }
    rnd = random.Random(seed)
    times = {k: [] for k in variants}
    for step, entries in variants.values():  # warm up
        _fold(step, entries[: min(200, n)])
    for _ in range(rounds):
        order = list(variants)
        rnd.shuffle(order)
        for name in order:
            step, entries = variants[name]
            times[name].append(_fold(step, entries))
    ratios = {
        name: statistics.median(t / b for t, b in zip(times[name], times["baseline"]))
        for name in ("plain", "clocked")
    }
    return {
        "entries": n,
        "rounds": rounds,
        "ratio_vs_baseline": ratios,
        "median_seconds": {k: statistics.median(v) for k, v in times.items()},
        "per_entry_us": {k: statistics.median(v) / n * 1e6 for k, v in times.items()},
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, default=5000, help="entries per fold (default 5000)")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (default 9)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    result = run(args.entries, args.rounds)
    print(
        f"fold of {args.entries} entries, median of {args.rounds} rounds (ratio against the fold without the hook):"
    )
    for name in ("plain", "clocked"):
        print(
            f"  {name:8s} x{result['ratio_vs_baseline'][name]:.2f}  "
            f"({result['per_entry_us'][name]:.1f} µs/entry; baseline {result['per_entry_us']['baseline']:.1f})"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
