"""Benchmark of the event store (service/eventstore/redis_streams.py).

Measures, against a throwaway embedded redis-server (the app's own: AOF on,
appendfsync always, unix socket) or ``--redis-url``:

(a) appends/s through ``EventStore.append`` (the Lua script: idempotency check,
    version check, XADD, idempotency record), sequential, one client, entries
    of 300-600 bytes of JSON, without and with an idempotency key;
(b) full replay: ``EventStore.read`` (XRANGE + JSON decoding) plus
    ``gameroom.core.decider.fold`` over 100 / 1,000 / 10,000 entries of a
    trivial counter game defined here (once with no undo barrier at all, as in
    a game without randomness or hidden information, and once with a barrier
    every 10th entry), and the same for random matches of every installed
    game;
(c) the baseline, in the same run: raw ``XADD`` of the same payload through
    redis-py (no Lua, no checks), and raw ``XRANGE`` for the read side.

Append variants run interleaved in rounds (raw, store, store+idem in a
shuffled order each round) and ratios are taken per round, then the median,
so that a noisy neighbour slows both sides of a ratio alike.

    .venv/bin/python bench/bench_store.py                 # default, ~20-40 s
    .venv/bin/python bench/bench_store.py --appends 10000 --rounds 9 --sizes 100,1000,10000,50000
    .venv/bin/python bench/bench_store.py --redis-url redis://127.0.0.1:6379/15 --json bench/out/store.json
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt, median, percentile, redis_for_bench, run_facts, write_json

from gameroom.core import decider
from gameroom.core.decider import Folded
from gameroom.eventstore import keys
from gameroom.eventstore.redis_streams import EventStore
from gameroom.plugin_api import Game, GameInfo

PREFIX = "bench-store-"


# -- a trivial game, for replay cost without rules cost ------------------------


class Counter(Game):
    """Every event adds ``n`` to a total. ``evolve`` is as cheap as a fold step can be."""

    info = GameInfo(slug="bench-counter", title="Counter", min_players=1, max_players=4)

    def evolve(self, state, event):
        if event["type"] == "started":
            return {"total": 0, "events": 0, "last": None}
        return {"total": state["total"] + event["n"], "events": state["events"] + 1, "last": event["seat"]}


COUNTER = Counter()
_WORDS = ["sky", "tile", "push", "swap", "flip", "summon", "card", "route", "raid", "envoy", "star", "line"]


def make_entries(
    count: int, *, seed: int = 1, barrier_every: int = 0, lo: int = 300, hi: int = 600
) -> list[dict]:
    """``count`` entries shaped like ``decider.decide`` output, each 300-600 bytes of JSON.

    Entry 1 is the setup (a barrier, as in every match). With ``barrier_every``
    = k, every k-th move entry has ``drew`` set (an undo barrier); 0: none.
    """
    rnd = random.Random(seed)
    entries = [
        {
            "kind": "setup",
            "seat": None,
            "game": "bench-counter",
            "num_seats": 2,
            "options": {},
            "events": [{"type": "started"}],
            "drew": False,
            "reveal": True,
            "rules_version": 1,
            "time": 1764445000.0,
        }
    ]
    for v in range(2, count + 1):
        seat = v % 2
        target = rnd.randint(lo, hi)
        move = {
            "type": rnd.choice(_WORDS),
            "tile": [rnd.randrange(8), rnd.randrange(8)],
            "card": f"c-{rnd.randrange(90)}",
        }
        events = [
            {
                "type": "added",
                "seat": seat,
                "n": rnd.randint(1, 9),
                "what": move["type"],
                "at": move["tile"],
                "detail": "",
            }
            for _ in range(rnd.randint(1, 3))
        ]
        entry = {
            "kind": "move",
            "seat": seat,
            "move": move,
            "events": events,
            "drew": bool(barrier_every) and v % barrier_every == 0,
            "reveal": False,
            "rules_version": 1,
            "time": 1764445000.0 + v * 0.731,
            "version": v,
        }
        size = len(json.dumps(entry, separators=(",", ":")))
        if size < target:  # pad the first event's free-text field to reach the target size
            events[0]["detail"] = " ".join(rnd.choice(_WORDS) for _ in range(200))[: target - size]
        entries.append(entry)
    for v, e in enumerate(entries, 1):
        e["version"] = v
    return entries


def entry_json(entry: dict) -> str:
    return json.dumps(entry, separators=(",", ":"))


# -- (a) appends ---------------------------------------------------------------


def appends_raw(client, payloads: list[dict]) -> float:
    """Baseline: the same dict copy + serialization as ``append``, then one plain XADD
    (auto id) per entry through redis-py: no Lua, no checks. Returns ops/s."""
    key = keys.events(PREFIX + uuid.uuid4().hex)
    xadd = client.xadd
    t0 = time.perf_counter()
    for version, p in enumerate(payloads):
        xadd(key, {"entry": entry_json({**p, "version": version + 1})})
    return len(payloads) / (time.perf_counter() - t0)


def appends_store(store: EventStore, payloads: list[dict], idempotent: bool) -> float:
    """``EventStore.append`` one after another on one match, as the server does. Returns ops/s."""
    match_id = PREFIX + uuid.uuid4().hex
    append = store.append
    t0 = time.perf_counter()
    for version, p in enumerate(payloads):
        append(match_id, p, version, f"k{version}" if idempotent else None)
    return len(payloads) / (time.perf_counter() - t0)


def bench_appends(client, store: EventStore, n: int, rounds: int) -> dict:
    payloads = [{k: v for k, v in e.items() if k != "version"} for e in make_entries(n + 1, seed=7)[1:]]
    sizes = [len(entry_json({**p, "version": 1})) for p in payloads]
    variants = {
        "raw_xadd": lambda: appends_raw(client, payloads),
        "store_append": lambda: appends_store(store, payloads, idempotent=False),
        "store_append_idem": lambda: appends_store(store, payloads, idempotent=True),
    }
    # warm-up: script load, connection, allocator
    appends_raw(client, payloads[:200])
    appends_store(store, payloads[:200], False)
    rates = {name: [] for name in variants}
    ratios = {"store_append": [], "store_append_idem": []}
    order = list(variants)
    for r in range(rounds):
        random.Random(r).shuffle(order)
        got = {}
        for name in order:
            gc.collect()
            got[name] = variants[name]()
            rates[name].append(got[name])
        for name, values in ratios.items():
            values.append(got[name] / got["raw_xadd"])
    return {
        "entries_per_round": n,
        "rounds": rounds,
        "entry_bytes": {"min": min(sizes), "median": median(sizes), "max": max(sizes)},
        "ops_per_s": {name: median(v) for name, v in rates.items()},
        "ops_per_s_all_rounds": rates,
        "ratio_vs_raw_xadd": {name: median(v) for name, v in ratios.items()},
        "ratio_vs_raw_xadd_all_rounds": ratios,
        "us_per_op": {name: 1e6 / median(v) for name, v in rates.items()},
    }


# -- (b) replay ----------------------------------------------------------------


def load_stream(client, match_id: str, entries: list[dict]) -> None:
    """Write entries exactly as the append script stores them (id ``n-0``, field ``entry``), pipelined."""
    key = keys.events(match_id)
    pipe = client.pipeline(transaction=False)
    for i, e in enumerate(entries):
        pipe.xadd(key, {"entry": entry_json(e)}, id=f"{e['version']}-0")
        if i % 1000 == 999:
            pipe.execute()
    pipe.execute()


def time_replay(client, store: EventStore, game, match_id: str, repeats: int, budget_s: float) -> dict:
    """Median over ``repeats`` of: raw XRANGE, EventStore.read, fold, read+fold (ms)."""
    key = keys.events(match_id)
    raw, reads, folds, totals = [], [], [], []
    deadline = time.monotonic() + budget_s
    n = 0
    length = client.xlen(key)
    # short matches are cheap and noisy: replay them more often (still bounded by budget_s)
    for i in range(max(repeats, min(50, 20_000 // max(length, 1)))):
        gc.collect()
        t0 = time.perf_counter()
        client.xrange(key, "-", "+")
        t1 = time.perf_counter()
        entries = store.read(match_id)
        t2 = time.perf_counter()
        folded = decider.fold(game, entries)
        t3 = time.perf_counter()
        raw.append((t1 - t0) * 1e3)
        reads.append((t2 - t1) * 1e3)
        folds.append((t3 - t2) * 1e3)
        totals.append((t3 - t1) * 1e3)
        n = len(entries)
        if i >= 1 and time.monotonic() > deadline:
            break
    assert folded.version == n
    # What Matches.announce stores every ``snapshot_every`` entries: size and cost of one snapshot here.
    t0 = time.perf_counter()
    snapshot = json.dumps(folded.to_snapshot(), separators=(",", ":"))
    snap_ms = (time.perf_counter() - t0) * 1e3
    return {
        "snapshot_bytes": len(snapshot),
        "snapshot_dumps_ms": snap_ms,
        "entries": n,
        "repeats": len(totals),
        "raw_xrange_ms": median(raw),
        "read_ms": median(reads),
        "fold_ms": median(folds),
        "replay_ms": median(totals),
        "replay_us_per_entry": median(totals) * 1e3 / n if n else float("nan"),
        "fold_us_per_entry": median(folds) * 1e3 / n if n else float("nan"),
        "checkpoints_at_end": len(folded.checkpoints),
    }


def bench_replay(client, store: EventStore, sizes: list[int], repeats: int, budget_s: float) -> dict:
    out = {}
    for label, barrier_every in (("counter_no_barrier", 0), ("counter_barrier_every_10", 10)):
        rows = []
        for n in sizes:
            match_id = PREFIX + uuid.uuid4().hex
            load_stream(client, match_id, make_entries(n, seed=n, barrier_every=barrier_every))
            rows.append(time_replay(client, store, COUNTER, match_id, repeats, budget_s))
        out[label] = rows
    return out


# -- real games ------------------------------------------------------------------


def random_match(game, seats: int, seed: str, max_entries: int, budget_s: float) -> tuple[list[dict], bool]:
    """A random playout (every seat picks a random legal move) through the real decider.

    Returns the entries and whether the match reached its end (False: cut at
    ``max_entries`` or after ``budget_s`` seconds).
    """
    rnd = random.Random(seed)
    opts = game.load_options({})
    entry = decider.setup_entry(game, seats, opts, seed)
    entry["version"] = 1
    entries = [entry]
    folded = decider.apply_entry(game, Folded(), entry)
    deadline = time.monotonic() + budget_s
    while len(entries) < max_entries and time.monotonic() < deadline:
        if game.outcome(folded.state) is not None:
            return entries, True
        active = game.active_seats(folded.state)
        if not active:
            return entries, True
        seat = rnd.choice(active)
        moves = game.legal_moves(folded.state, seat)
        if not moves:
            break
        new = decider.decide(game, folded, seat, rnd.choice(moves), seed)
        new["version"] = folded.version + 1
        folded = decider.apply_entry(game, folded, new)
        entries.append(new)
    return entries, game.outcome(folded.state) is not None


def bench_games(
    client,
    store: EventStore,
    slugs: list[str] | None,
    matches: int,
    max_entries: int,
    budget_s: float,
    repeats: int,
) -> dict:
    try:
        from gameroom.registry import build_registry

        registry = build_registry()
    except Exception as exc:  # noqa: BLE001 - plugins are being edited concurrently
        print(f"  (real games skipped: the registry does not load: {exc})", file=sys.stderr)
        return {"error": str(exc)}
    out = {}
    for installed in registry:
        slug = installed.slug
        if slugs and slug not in slugs:
            continue
        game = installed.game
        seats = min(max(2, game.info.min_players), game.info.max_players)
        rows, finished, sizes = [], 0, []
        t_game = time.monotonic()
        try:
            for i in range(matches):
                entries, done = random_match(game, seats, f"bench-{slug}-{i}", max_entries, budget_s)
                finished += done
                sizes.extend(len(entry_json(e)) for e in entries)
                match_id = PREFIX + uuid.uuid4().hex
                load_stream(client, match_id, entries)
                rows.append(time_replay(client, store, game, match_id, repeats, budget_s))
                if time.monotonic() - t_game > 3 * budget_s:
                    break
        except Exception as exc:  # noqa: BLE001 - a game under construction must not sink the benchmark
            print(f"  ({slug} skipped: {type(exc).__name__}: {exc})", file=sys.stderr)
            out[slug] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        total_entries = sum(r["entries"] for r in rows)
        total_ms = sum(r["replay_ms"] for r in rows)
        out[slug] = {
            "seats": seats,
            "matches": len(rows),
            "finished": finished,
            "entries_per_match": [r["entries"] for r in rows],
            "entry_bytes_median": median(sizes),
            "entry_bytes_p99": percentile(sizes, 0.99),
            "read_ms_per_match": median([r["read_ms"] for r in rows]),
            "fold_ms_per_match": median([r["fold_ms"] for r in rows]),
            "replay_ms_per_match": median([r["replay_ms"] for r in rows]),
            "replay_us_per_entry": total_ms * 1e3 / total_entries if total_entries else float("nan"),
            "fold_us_per_entry": sum(r["fold_ms"] for r in rows) * 1e3 / total_entries
            if total_entries
            else float("nan"),
        }
    return out


# -- report ----------------------------------------------------------------------


def print_report(res: dict) -> None:
    a = res["appends"]
    print()
    print(
        f"Event store, {a['rounds']} rounds x {a['entries_per_round']} sequential appends, "
        f"entries {a['entry_bytes']['min']}-{a['entry_bytes']['max']} B (median {a['entry_bytes']['median']:.0f})"
    )
    print(f"  {'variant':<34}{'appends/s':>12}{'us/append':>11}{'vs raw XADD':>13}")
    for name, label in (
        ("raw_xadd", "raw XADD (baseline)"),
        ("store_append", "EventStore.append"),
        ("store_append_idem", "EventStore.append + idempotency"),
    ):
        ratio = a["ratio_vs_raw_xadd"].get(name, 1.0)
        print(
            f"  {label:<34}{fmt(a['ops_per_s'][name], 0):>12}{fmt(a['us_per_op'][name]):>11}{ratio:>12.2f}x"
        )
    for label, rows in res["replay"].items():
        print()
        print(f"Full replay, {label} (read = XRANGE + JSON decode; fold = decider.fold):")
        print(
            f"  {'entries':>8}{'raw XRANGE ms':>15}{'read ms':>10}{'fold ms':>10}{'replay ms':>11}"
            f"{'us/entry':>10}{'fold us/entry':>15}{'ckpts@end':>11}{'snapshot KB':>13}"
        )
        for r in rows:
            print(
                f"  {r['entries']:>8,}{fmt(r['raw_xrange_ms'], 2):>15}{fmt(r['read_ms'], 2):>10}"
                f"{fmt(r['fold_ms'], 2):>10}{fmt(r['replay_ms'], 2):>11}{fmt(r['replay_us_per_entry'], 2):>10}"
                f"{fmt(r['fold_us_per_entry'], 2):>15}{r['checkpoints_at_end']:>11,}"
                f"{fmt(r['snapshot_bytes'] / 1024):>13}"
            )
        if len(rows) >= 2:
            first, last = rows[0], rows[-1]
            print(
                f"  per-entry replay cost at {last['entries']:,} vs {first['entries']:,} entries: "
                f"{last['replay_us_per_entry'] / first['replay_us_per_entry']:.2f}x "
                f"(fold alone: {last['fold_us_per_entry'] / first['fold_us_per_entry']:.2f}x; 1.0x = linear)"
            )
    games = res.get("games") or {}
    if games and "error" not in games:
        print()
        print("Full replay of random matches of the installed games:")
        print(
            f"  {'game':<22}{'matches':>8}{'entries/match':>24}{'B/entry':>9}{'read ms':>9}{'fold ms':>9}"
            f"{'replay ms':>11}{'us/entry':>10}"
        )
        for slug, g in games.items():
            if "error" in g:
                print(f"  {slug:<22} skipped: {g['error']}")
                continue
            n = g["entries_per_match"]
            span = f"{min(n):,}-{max(n):,}" if min(n) != max(n) else f"{n[0]:,}"
            cut = "" if g["finished"] == g["matches"] else f" ({g['matches'] - g['finished']} cut)"
            print(
                f"  {slug:<22}{g['matches']:>8}{span + cut:>24}{g['entry_bytes_median']:>9.0f}"
                f"{fmt(g['read_ms_per_match'], 2):>9}{fmt(g['fold_ms_per_match'], 2):>9}"
                f"{fmt(g['replay_ms_per_match'], 2):>11}{fmt(g['replay_us_per_entry'], 2):>10}"
            )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--redis-url",
        help="use this Redis instead of a throwaway embedded one (keys are prefixed "
        f"'{keys.PREFIX}:{{{PREFIX}...}}' and deleted afterwards)",
    )
    p.add_argument("--appends", type=int, default=3000, help="appends per variant per round (default 3000)")
    p.add_argument(
        "--rounds", type=int, default=5, help="interleaved rounds of the append variants (default 5)"
    )
    p.add_argument(
        "--sizes", default="100,1000,10000", help="entries per match for the replay (default 100,1000,10000)"
    )
    p.add_argument("--repeats", type=int, default=5, help="replays per size, median reported (default 5)")
    p.add_argument(
        "--games", default="all", help="comma-separated installed games to replay, 'all' or 'none'"
    )
    p.add_argument("--game-matches", type=int, default=3, help="random matches per real game (default 3)")
    p.add_argument(
        "--game-max-entries", type=int, default=10_000, help="cut a random match at this many entries"
    )
    p.add_argument(
        "--budget",
        type=float,
        default=6.0,
        help="seconds allowed per playout / per replay series (default 6)",
    )
    p.add_argument("--json", metavar="PATH", help="write the figures as JSON to PATH")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if not (
        1 <= args.appends <= 1_000_000 and 1 <= args.rounds <= 100 and all(2 <= s <= 1_000_000 for s in sizes)
    ):
        p.error("out-of-range --appends / --rounds / --sizes")

    t_start = time.monotonic()
    with redis_for_bench(args.redis_url) as (_url, make_client):
        client = make_client()
        store = EventStore(client)
        try:
            res = {
                "benchmark": "bench_store",
                "facts": run_facts(client),
                "params": vars(args),
                "redis": "external" if args.redis_url else "embedded (unix socket, AOF always)",
            }
            print(
                f"bench_store: redis {res['facts'].get('redis_version')} ({res['redis']}); "
                f"{res['facts']['cpus']} cpus, load {res['facts']['loadavg_at_start']}",
                flush=True,
            )
            print("  (a) appends ...", flush=True)
            res["appends"] = bench_appends(client, store, args.appends, args.rounds)
            print("  (b) replay of synthetic matches ...", flush=True)
            res["replay"] = bench_replay(client, store, sizes, args.repeats, args.budget)
            if args.games != "none":
                print("  (b) replay of random matches of installed games ...", flush=True)
                slugs = None if args.games == "all" else [s.strip() for s in args.games.split(",")]
                res["games"] = bench_games(
                    client, store, slugs, args.game_matches, args.game_max_entries, args.budget, args.repeats
                )
        finally:
            for key in client.scan_iter(match=f"{keys.PREFIX}:{{{PREFIX}*", count=1000):
                client.delete(key)
            client.close()
    res["seconds"] = round(time.monotonic() - t_start, 1)
    print_report(res)
    print(f"\n({res['seconds']} s)")
    if args.json:
        write_json(args.json, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
