"""Move latency and load time against history length (issue: snapshots make load O(1)).

For matches of 10, 1,000 and 10,000 entries, measures through the real
application layer and a real redis-server:

- cold load: a fresh process-like ``Matches`` (no in-memory fold cache)
  loading the match: nearest snapshot + tail;
- cold move: a fresh ``Matches`` submitting one move (load + decide + append);
- warm move: the same ``Matches`` submitting move after move (cache hit).

Reports p50/p95 in ms and each length's p50 as a ratio of the 10-entry p50
(same run, same machine: only ratios are meaningful here). The target is
the 10,000-entry p50 within 1.25x of the 10-entry p50.

    .venv/bin/python bench/bench_history.py [--repeat 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import types

from marshmallow import Schema, fields

from gameroom.composition import matches_on
from gameroom.eventstore.embedded import EmbeddedRedis
from gameroom.plugin_api import Game, GameInfo, GameSchemas, hookimpl
from gameroom.registry import build_registry


class _Any(Schema):
    class Meta:
        unknown = "include"

    type = fields.String()


class Tally(Game):
    """An endless two-player game; every 10th step of a seat rolls a die (a barrier, like a draw)."""

    info = GameInfo(slug="bench-tally", title="Tally", min_players=2, max_players=2, max_steps=10**9)

    def schemas(self):
        return GameSchemas(_Any, _Any, _Any, _Any)

    def setup(self, num_seats, options, rng):
        return [{"type": "started"}]

    def evolve(self, state, event):
        if event["type"] == "started":
            return {"turn": 0, "counts": [0, 0], "log": list(range(40))}  # a state of realistic size
        counts = list(state["counts"])
        counts[event["seat"]] += event["n"]
        return {**state, "turn": 1 - event["seat"], "counts": counts}

    def active_seats(self, state):
        return [state["turn"]]

    def legal_moves(self, state, seat):
        return [{"type": "add"}] if seat == state["turn"] else []

    def decide(self, state, seat, move, rng):
        roll = state["counts"][seat] % 10 == 9
        return [{"type": "added", "seat": seat, "n": rng.randint(1, 6) if roll else 1}]

    def view(self, state, seat):
        return state

    def redact(self, event, seat):
        return event

    def outcome(self, state):
        return None


@hookimpl
def gameroom_games():
    return [Tally()]


def _pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lengths", default="10,1000,10000", help="history lengths to measure")
    parser.add_argument("--repeat", type=int, default=150, help="samples per measurement")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    lengths = [int(x) for x in args.lengths.split(",")]
    plugin = types.ModuleType("bench_tally")
    plugin.gameroom_games = gameroom_games
    registry = build_registry(extra_plugins=[("bench-tally", plugin)], load_entry_points=False)
    with EmbeddedRedis(tempfile.mkdtemp(prefix="gameroom-bench-")) as server:
        client = server.client()

        def fresh():
            return matches_on(client, registry)

        results = {}
        for n in lengths:
            builder = fresh()
            loaded, _ = builder.create("bench-tally", [{"name": "A"}, {"name": "B"}], seed="bench")
            match_id = loaded.record.id
            t0 = time.perf_counter()
            for _v in range(1, n):
                builder.submit(match_id, builder.load(match_id).folded.state["turn"], {"type": "add"})
            build = time.perf_counter() - t0
            loads, cold_moves, warm_moves = [], [], []
            for _ in range(args.repeat):
                m = fresh()
                t = time.perf_counter()
                m.load(match_id)
                loads.append(time.perf_counter() - t)
            warm = fresh()
            for _ in range(args.repeat):
                m = fresh()
                turn = warm.load(match_id).folded.state["turn"]
                t = time.perf_counter()
                m.submit(match_id, turn, {"type": "add"})
                cold_moves.append(time.perf_counter() - t)
                turn = warm.load(match_id).folded.state["turn"]
                t = time.perf_counter()
                warm.submit(match_id, turn, {"type": "add"})
                warm_moves.append(time.perf_counter() - t)
            results[n] = {
                "entries": n,
                "build_s": round(build, 2),
                "load_p50_ms": _pct(loads, 0.5),
                "load_p95_ms": _pct(loads, 0.95),
                "cold_move_p50_ms": _pct(cold_moves, 0.5),
                "cold_move_p95_ms": _pct(cold_moves, 0.95),
                "warm_move_p50_ms": _pct(warm_moves, 0.5),
                "warm_move_p95_ms": _pct(warm_moves, 0.95),
            }
            print(f"  built a {n}-entry match in {build:.1f}s", file=sys.stderr)
    base = results[lengths[0]]
    print(
        f"\n{'entries':>8} {'load p50':>9} {'p95':>7} {'ratio':>6} | {'cold move p50':>13} {'p95':>7} {'ratio':>6}"
        f" | {'warm move p50':>13} {'p95':>7} {'ratio':>6}"
    )
    for n in lengths:
        r = results[n]
        r["load_ratio"] = r["load_p50_ms"] / base["load_p50_ms"]
        r["cold_move_ratio"] = r["cold_move_p50_ms"] / base["cold_move_p50_ms"]
        r["warm_move_ratio"] = r["warm_move_p50_ms"] / base["warm_move_p50_ms"]
        print(
            f"{n:>8} {r['load_p50_ms']:>7.2f}ms {r['load_p95_ms']:>5.2f}ms {r['load_ratio']:>5.2f}x |"
            f" {r['cold_move_p50_ms']:>11.2f}ms {r['cold_move_p95_ms']:>5.2f}ms {r['cold_move_ratio']:>5.2f}x |"
            f" {r['warm_move_p50_ms']:>11.2f}ms {r['warm_move_p95_ms']:>5.2f}ms {r['warm_move_ratio']:>5.2f}x"
        )
    worst = max(results[lengths[-1]][k] for k in ("load_ratio", "cold_move_ratio", "warm_move_ratio"))
    print(f"\nlongest history vs shortest, worst p50 ratio: {worst:.2f}x (target <= 1.25x)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)


if __name__ == "__main__":
    main()
