"""Moves on Redis Cluster vs a single Redis, and the cost of a move as the matches grow to 100,000.

    .venv/bin/python bench/bench_cluster.py                  # both parts, defaults: ~4 min on 2 cores
    .venv/bin/python bench/bench_cluster.py --part flat      # 1k / 10k / 100k matches only
    .venv/bin/python bench/bench_cluster.py --part cluster   # cluster vs single Redis only

**flat**: one throwaway redis-server per size (default 1,000, 10,000 and
100,000 matches), all running at once. Matches (nim, two human seats) are
created in bulk through the application layer with their writes batched in
pipelines (``MatchRecords.queue_create`` and the append script, the writes of
a real creation, without a round trip each). Then, in every round and in a
shuffled order, a sample of matches not moved before gets moves on each
server, made the way the API makes them (``Matches.open`` with the seat's
token, then ``Matches.submit``) by a fresh application layer (empty
in-process caches): the first move of a match is "cold" (reads its record,
token and log), the next ones "warm". The baseline is the smallest size,
measured in the same rounds: flat means the ratio to it stays ~1.

**cluster**: a local Redis Cluster (3 masters + 3 replicas,
``gameroom.testing.cluster.LocalCluster``) and a single redis-server, both
on TCP with the same AOF setting, started side by side, each holding the
same number of bulk-created matches. Rounds alternate between them (order
shuffled): (a) append latency, sequential ``EventStore.append`` on one
connection per side, the two sides taking turns append by append; (b) move throughput, ``--clients`` processes making moves as
the API does, as fast as they can, for ``--duration`` seconds. Ratios are
cluster ÷ single per round, then the median. On one small machine the
cluster's six servers share the same cores as the single one: the ratio
shows what the cluster costs per move, not what it gains across machines.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import shutil
import sys
import tempfile
import time

import redis
from _common import fmt, median, percentile, run_facts, write_json

from gameroom.application import Matches
from gameroom.composition import matches_on
from gameroom.core.rng import Seeding
from gameroom.eventstore import EventStore, keys, redis_streams
from gameroom.eventstore.embedded import EmbeddedRedis
from gameroom.eventstore.records import MatchRecords
from gameroom.registry import build_registry

GAME = "nim"
PILE = 20
OPTIONS = {"piles": [PILE, PILE, PILE]}  # 60 stones: room for many moves per match
SEATS = [{"name": "Ana"}, {"name": "Bo"}]
MAX_MOVES = 3 * PILE - 2  # never end a match: every move stays a plain move


class BulkCreate:
    """Stands in for ``MatchRecords.create_match``: queues the same writes, sends them in batches."""

    def __init__(self, client, batch: int = 500):
        self.pipe = client.pipeline(transaction=False)
        self.cluster = isinstance(client, redis.RedisCluster)
        self.batch = batch
        self.queued = 0

    def __call__(self, record, tokens, entry, status=None, ai_seats=None, admin_hash=None):
        MatchRecords.queue_create(self.pipe, record, tokens, admin_hash)
        if self.cluster:  # redis-py's cluster pipeline has no eval(): the same EVAL, spelt out
            keys_ = redis_streams._append_keys(record.id)
            args = redis_streams._append_args(entry, 0, None, status, ai_seats=ai_seats)
            self.pipe.execute_command("EVAL", redis_streams.APPEND_LUA, len(keys_), *keys_, *args)
        else:
            EventStore.queue_append(self.pipe, record.id, entry, 0, status=status, ai_seats=ai_seats)
        self.queued += 1
        if self.queued % self.batch == 0:
            self.flush()

    def flush(self) -> None:
        for result in self.pipe.execute():
            if isinstance(result, list) and result and result[0] in (b"conflict", b"dup"):
                raise RuntimeError(f"a bulk creation failed: {result}")


def new_matches(client, registry) -> Matches:
    """An application layer with empty caches (a process that has seen no match yet)."""
    return matches_on(client, registry, seeding=Seeding.private())


def grow(client, registry, created: list, target: int, progress: bool, label: str) -> float:
    """Create matches until ``created`` holds ``target`` entries ``(id, tokens, first seat)``."""
    from tqdm import tqdm

    matches = new_matches(client, registry)
    bulk = BulkCreate(client)
    matches.records.create_match = bulk  # type: ignore[method-assign]
    game = matches.registry.installed(GAME).game
    started = time.perf_counter()
    with tqdm(total=target, initial=len(created), desc=label, unit="match", disable=not progress) as bar:
        while len(created) < target:
            loaded, tokens = matches.create(GAME, SEATS, OPTIONS)
            [first] = game.active_seats(loaded.folded.state)
            created.append((loaded.record.id, tokens, first))
            bar.update()
    bulk.flush()
    return time.perf_counter() - started


def move(matches: Matches, match_id: str, tokens: dict, first: int, version: int) -> int:
    """One move of the seat to move at ``version``, as the API makes it; returns the new version."""
    seat = (first + version - 1) % 2  # nim alternates
    take = {"type": "take", "pile": (version - 1) // PILE, "count": 1}
    token = tokens[seat]
    loaded, found, _ok = matches.open(match_id, token, fresh=False)
    return matches.submit(match_id, found, take, loaded=loaded, maybe_behind=True, token=token).version


def _us(values, q=None) -> float:
    if not values:
        return float("nan")
    return 1e6 * (median(values) if q is None else percentile(sorted(values), q))


# -- flat: the cost of a move as the matches grow --------------------------------------------


def pick(created: list, used: set, count: int, rnd) -> list:
    """``count`` random matches of ``created`` not moved before (and mark them used)."""
    chosen = rnd.sample([i for i in range(len(created)) if i not in used], count)
    used.update(chosen)
    return [created[i] for i in chosen]


def moves_on(matches: Matches, picked: tuple, moves: int) -> tuple[float, list[float]]:
    """``moves`` moves on one match: (seconds of the first, cold; seconds of the others, warm)."""
    match_id, tokens, first = picked
    took = []
    version = 1
    for _ in range(moves):
        t0 = time.perf_counter()
        version = move(matches, match_id, tokens, first, version)
        took.append(time.perf_counter() - t0)
    return took[0], took[1:]


def flat_cost(args, registry) -> dict:
    rnd = random.Random(args.seed)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    tmp = tempfile.mkdtemp(prefix="gameroom-bench-cluster-")
    servers = [EmbeddedRedis(f"{tmp}/{size}", appendfsync=args.appendfsync) for size in sizes]
    try:
        for server in servers:
            server.start()
        clients = [server.client() for server in servers]
        facts = run_facts(clients[0])
        created: list[list] = [[] for _ in sizes]
        used: list[set] = [set() for _ in sizes]
        create_s = [
            grow(c, registry, made, size, not args.quiet, f"{size:,} matches")
            for c, made, size in zip(clients, created, sizes, strict=True)
        ]
        cold: list[list] = [[] for _ in sizes]
        warm: list[list] = [[] for _ in sizes]
        ratios: list[list] = [[] for _ in sizes]
        for round_ in range(args.rounds):
            # Fresh application layers (empty caches); the sizes take turns match by match, in a
            # shuffled order each time, so that a noisy neighbour slows every size alike.
            layers = [new_matches(c, registry) for c in clients]
            picked = [pick(created[i], used[i], args.sample, rnd) for i in range(len(sizes))]
            took: list[list] = [[] for _ in sizes]
            for j in range(args.sample):
                order = list(range(len(sizes)))
                rnd.shuffle(order)
                for i in order:
                    first, rest = moves_on(layers[i], picked[i][j], args.moves)
                    cold[i].append(first)
                    warm[i] += rest
                    took[i] += [first, *rest]
            p50 = [median(t) for t in took]
            for i in range(len(sizes)):
                ratios[i].append(p50[i] / p50[0])
            print(
                f"round {round_ + 1}: move p50 "
                + ", ".join(f"{sizes[i]:,}: {_us([p50[i]]):.0f} us" for i in range(len(sizes))),
                flush=True,
            )
        rows = [
            {
                "matches": size,
                "create_s": create_s[i],
                "move_cold_us_p50": _us(cold[i]),
                "move_warm_us_p50": _us(warm[i]),
                "move_warm_us_p90": _us(warm[i], 0.9),
                "vs_smallest": median(ratios[i]),
                "vs_smallest_range": [min(ratios[i]), max(ratios[i])],
                "redis_used_memory_mb": clients[i].info("memory")["used_memory"] / 2**20,
                "moves_timed": len(cold[i]) + len(warm[i]),
            }
            for i, size in enumerate(sizes)
        ]
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return {"facts": facts, "rows": rows}


def flat_table(result: dict) -> str:
    lines = [
        "| matches | move p50 µs cold / warm | warm p90 µs | ÷ smallest (median of rounds, range) | Redis MB |",
        "|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        lo, hi = r["vs_smallest_range"]
        lines.append(
            f"| {r['matches']:,} | {fmt(r['move_cold_us_p50'], 0)} / {fmt(r['move_warm_us_p50'], 0)} | "
            f"{fmt(r['move_warm_us_p90'], 0)} | **{r['vs_smallest']:.2f}x** ({lo:.2f}–{hi:.2f}) | "
            f"{r['redis_used_memory_mb']:,.0f} |"
        )
    return "\n".join(lines)


# -- cluster vs single -----------------------------------------------------------------------


def _client(target):
    kind, where = target
    if kind == "cluster":
        from redis.cluster import ClusterNode

        return redis.RedisCluster(startup_nodes=[ClusterNode(h, p) for h, p in where])
    return redis.Redis.from_url(where)


def append_latency(clients: dict, appends: int, tag: str, rnd) -> dict[str, list[float]]:
    """Sequential appends on one connection per side, each to its own new match log (spread over
    the slots); the sides take turns append by append, so that a noisy neighbour slows both alike."""
    stores = {name: EventStore(client) for name, client in clients.items()}
    entry = {
        "kind": "move",
        "seat": 0,
        "move": {"type": "take", "pile": 0, "count": 1},
        "events": [{"type": "took"}],
    }
    took: dict[str, list[float]] = {name: [] for name in clients}
    for i in range(appends):
        order = list(stores)
        rnd.shuffle(order)
        for name in order:
            t0 = time.perf_counter()
            stores[name].append(f"bench-{tag}-{i}", entry, 0)
            took[name].append(time.perf_counter() - t0)
    return took


def _mover(target, registry, owned, start, deadline_s, results):  # pragma: no cover - a child process
    client = _client(target)
    matches = new_matches(client, registry)
    versions = {match_id: int(client.xlen(keys.events(match_id))) for match_id, _t, _f in owned}
    done = errors = 0
    start.wait()
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        for match_id, tokens, first in owned:
            if versions[match_id] > MAX_MOVES or time.monotonic() >= deadline:
                continue
            try:
                versions[match_id] = move(matches, match_id, tokens, first, versions[match_id])
                done += 1
            except Exception:  # noqa: BLE001 - counted, the run goes on
                errors += 1
    results.put((done, errors))


def throughput(target, registry, created: list, clients: int, duration: float) -> tuple[float, int]:
    """Moves per second of ``clients`` processes, each on its own share of ``created``."""
    ctx = multiprocessing.get_context("fork")
    start, results = ctx.Event(), ctx.Queue()
    shares = [created[i::clients] for i in range(clients)]
    procs = [
        ctx.Process(target=_mover, args=(target, registry, share, start, duration, results))
        for share in shares
    ]
    for p in procs:
        p.start()
    time.sleep(1.0)  # let every process connect and read its matches' versions
    t0 = time.monotonic()
    start.set()
    outcomes = [results.get(timeout=duration + 120) for _ in procs]
    elapsed = time.monotonic() - t0
    for p in procs:
        p.join(30)
    moves = sum(done for done, _ in outcomes)
    return moves / elapsed, sum(errors for _, errors in outcomes)


def cluster_vs_single(args, registry) -> dict:
    from gameroom.testing.cluster import LocalCluster
    from gameroom.testing.replicated import ReplicatedRedis

    rnd = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="gameroom-bench-cluster-")
    cluster = LocalCluster(f"{tmp}/cluster", appendfsync=args.appendfsync)
    single = ReplicatedRedis(f"{tmp}/single", replicas=0, appendfsync=args.appendfsync)
    try:
        cluster.start()
        single.start()
        targets = {"single": ("single", single.primary_url), "cluster": ("cluster", cluster.startup_nodes)}
        clients = {name: _client(target) for name, target in targets.items()}
        facts = run_facts(clients["single"])
        created = {name: [] for name in targets}
        for name, client in clients.items():
            grow(client, registry, created[name], args.cluster_matches, not args.quiet, f"{name}: matches")
        lat = {name: [] for name in targets}
        tput = {name: [] for name in targets}
        errors = {name: 0 for name in targets}
        lat_ratio, tput_ratio = [], []
        for round_ in range(args.rounds):
            order = list(targets)
            rnd.shuffle(order)
            p50, per_s = {}, {}
            took = append_latency(clients, args.appends, f"r{round_}", rnd)
            for name in order:
                lat[name] += took[name]
                p50[name] = median(took[name])
            for name in order:
                per_s[name], errs = throughput(
                    targets[name], registry, created[name], args.clients, args.duration
                )
                tput[name].append(per_s[name])
                errors[name] += errs
            lat_ratio.append(p50["cluster"] / p50["single"])
            tput_ratio.append(per_s["cluster"] / per_s["single"])
            print(
                f"round {round_ + 1}: append p50 single {_us([p50['single']]):.0f} us, cluster "
                f"{_us([p50['cluster']]):.0f} us; moves/s single {per_s['single']:,.0f}, cluster {per_s['cluster']:,.0f}",
                flush=True,
            )
        rows = {
            name: {
                "append_us_p50": _us(lat[name]),
                "append_us_p90": _us(lat[name], 0.9),
                "moves_per_s": median(tput[name]),
                "move_errors": errors[name],
            }
            for name in targets
        }
    finally:
        cluster.stop()
        single.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "facts": facts,
        "rows": rows,
        "append_p50_cluster_over_single": median(lat_ratio),
        "moves_per_s_cluster_over_single": median(tput_ratio),
        "ratio_ranges": {
            "append": [min(lat_ratio), max(lat_ratio)],
            "moves": [min(tput_ratio), max(tput_ratio)],
        },
    }


def cluster_table(result: dict) -> str:
    rows, ranges = result["rows"], result["ratio_ranges"]
    lo_a, hi_a = ranges["append"]
    lo_m, hi_m = ranges["moves"]
    return "\n".join(
        [
            "| | append p50 µs | append p90 µs | moves/s | move errors |",
            "|---|---|---|---|---|",
            *(
                f"| {name} | {fmt(r['append_us_p50'], 0)} | {fmt(r['append_us_p90'], 0)} | "
                f"{fmt(r['moves_per_s'], 0)} | {r['move_errors']} |"
                for name, r in rows.items()
            ),
            f"| **cluster ÷ single** (median of rounds, range) | **{result['append_p50_cluster_over_single']:.2f}x** "
            f"({lo_a:.2f}–{hi_a:.2f}) | | **{result['moves_per_s_cluster_over_single']:.2f}x** ({lo_m:.2f}–{hi_m:.2f}) | |",
        ]
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="bench_cluster.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--part",
        choices=["both", "flat", "cluster"],
        default="both",
        help="what to run (default: %(default)s)",
    )
    p.add_argument(
        "--sizes", default="1000,10000,100000", help="flat: numbers of matches (default: %(default)s)"
    )
    p.add_argument(
        "--sample",
        type=int,
        default=100,
        help="flat: matches moved per size and round (default: %(default)s)",
    )
    p.add_argument(
        "--moves",
        type=int,
        default=4,
        help="flat: moves per sampled match, the first cold (default: %(default)s)",
    )
    p.add_argument("--rounds", type=int, default=3, help="rounds of each part (default: %(default)s)")
    p.add_argument(
        "--cluster-matches",
        type=int,
        default=2000,
        help="cluster: matches on each side (default: %(default)s)",
    )
    p.add_argument(
        "--appends", type=int, default=1000, help="cluster: appends per side and round (default: %(default)s)"
    )
    p.add_argument(
        "--clients", type=int, default=4, help="cluster: processes making moves (default: %(default)s)"
    )
    p.add_argument(
        "--duration",
        type=float,
        default=5.0,
        help="cluster: seconds of moves per side and round (default: %(default)s)",
    )
    p.add_argument(
        "--appendfsync",
        default="always",
        choices=["always", "everysec", "no"],
        help="every Redis' AOF fsync (default: %(default)s, the app's)",
    )
    p.add_argument(
        "--seed", type=int, default=1, help="random seed of samples and orders (default: %(default)s)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = p.parse_args(argv)
    if not 1 <= args.moves <= MAX_MOVES:
        p.error(f"--moves must be 1-{MAX_MOVES}")
    if args.sample < 1 or args.sample * args.rounds > min(int(s) for s in args.sizes.split(",")):
        p.error("--sample x --rounds must be positive and at most the smallest size")
    if min(args.rounds, args.appends, args.clients, args.cluster_matches) < 1 or args.duration <= 0:
        p.error("counts and --duration must be positive")
    registry = build_registry()
    figures: dict = {"settings": vars(args)}
    if args.part in ("both", "flat"):
        figures["flat"] = flat_cost(args, registry)
        print("\n" + flat_table(figures["flat"]) + "\n", flush=True)
    if args.part in ("both", "cluster"):
        figures["cluster"] = cluster_vs_single(args, registry)
        print("\n" + cluster_table(figures["cluster"]) + "\n", flush=True)
    if args.json:
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
