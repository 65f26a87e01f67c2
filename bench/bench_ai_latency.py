"""AI latency benchmark: from an AI seat becoming active to its move being appended.

Through the real queue and a real worker process: a throwaway embedded
redis-server (or ``--redis-url``), one worker started as ``gameroom worker``
(``--worker gameroom``, the default) and/or as ``python -m
gameroom.workers.worker`` (``--worker preloaded``: plugins loaded once before
forking), on a private queue.

This process plays the human seat 0 of ``--game`` (default nim) through
``gameroom.application.Matches`` with the AI scheduler attached, exactly as
the API does: it submits a random legal move as soon as seat 0 is active.
The other seats are AI at each ``--levels`` level in turn. For each AI move
the latency is its entry's time minus the time of the entry from which the
seat was active without a break (both stamped by ``Matches.submit`` just
before the append); the job's own decision time (returned by the job) is
subtracted to give the platform's overhead.

Baseline, in the same run and on the same worker: the RQ round trip of a
no-op job (``gameroom.workers.jobs.noop``: enqueue to end). Reported: p50/p95
of latency, decision time and overhead per level, the baseline's p50/p95,
and latency p50 / baseline p50.

    .venv/bin/python bench/bench_ai_latency.py                        # nim, random and mcts, ~1-2 min
    .venv/bin/python bench/bench_ai_latency.py --worker gameroom --worker preloaded --moves 40
    .venv/bin/python bench/bench_ai_latency.py --game tiny-stellar-empires --levels greedy,mcts --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, fmt, percentile, redis_for_bench, run_facts
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from gameroom.application import Matches
from gameroom.composition import compose, shared_clients
from gameroom.config import Config
from gameroom.core import decider
from gameroom.eventstore import keys
from gameroom.registry import build_registry
from gameroom.workers.scheduler import queue_for

QUEUE = "gameroom-ai-bench"
COMMANDS = {
    "gameroom": [str(Path(sys.executable).with_name("gameroom")), "worker"],
    "preloaded": [sys.executable, "-m", "gameroom.workers.worker"],
}


class WorkerProcess:
    def __init__(self, kind: str, url: str, logdir: Path):
        env = {
            **os.environ,
            "GAMEROOM_REDIS_URL": url,
            "GAMEROOM_QUEUE": QUEUE,
            "GAMEROOM_LOG_LEVEL": "WARNING",
        }
        self.log = open(logdir / f"worker-{kind}.log", "wb")
        self.proc = subprocess.Popen(
            COMMANDS[kind],
            env=env,
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def baseline(client, count: int) -> list[float]:
    """Seconds from enqueue to end of ``count`` no-op jobs, one at a time."""
    queue = queue_for(client, QUEUE)
    times = []
    for _ in range(count):
        job = queue.enqueue("gameroom.workers.jobs.noop", result_ttl=60)
        deadline = time.monotonic() + 60
        while job.get_status() != JobStatus.FINISHED:
            if time.monotonic() > deadline:
                raise RuntimeError("the worker does not answer (see its log)")
            time.sleep(0.002)
        job.refresh()
        times.append((job.ended_at - job.enqueued_at).total_seconds())
    return times


def play(matches: Matches, game, slug: str, level: str, moves: int, rng: random.Random) -> list[dict]:
    """Play matches (human seat 0, AI elsewhere) until ``moves`` AI moves; one sample per AI move."""
    samples = []
    n = max(2, game.info.min_players)
    while len(samples) < moves:
        loaded, _ = matches.create(
            slug, [{"name": "human"}] + [{"name": f"ai{i}", "ai": level} for i in range(1, n)]
        )
        match_id = loaded.record.id
        deadline = time.monotonic() + 120
        while game.outcome(loaded.folded.state) is None and time.monotonic() < deadline:
            if 0 in game.active_seats(loaded.folded.state):
                loaded = matches.submit(
                    match_id, 0, rng.choice(game.legal_moves(loaded.folded.state, 0))
                ).loaded
            else:
                time.sleep(0.001)
                loaded = matches.load(match_id)
        samples.extend(_samples(matches, game, match_id))
    return samples[:moves]


def _samples(matches: Matches, game, match_id: str) -> list[dict]:
    entries = matches.store.read(match_id, 0, None)
    folded, since, out = decider.Folded(), {}, []
    for entry in entries:
        folded = decider.apply_entry(game, folded, entry)
        seat = entry.get("seat")
        if str(entry.get("actor", "")).startswith("ai:") and seat in since:
            job = Job.fetch(
                keys.ai_job_id(match_id, entry["version"] - 1, seat),
                connection=matches.store.redis,
                serializer=JSONSerializer,
            )
            deadline = time.monotonic() + 10  # the move is appended before the job records its result
            while job.get_status() != JobStatus.FINISHED and time.monotonic() < deadline:
                time.sleep(0.005)
            result = job.return_value() or {}
            latency = entry["time"] - since[seat]
            out.append({"latency": latency, "decision": result.get("seconds", float("nan"))})
        active = set(game.active_seats(folded.state))
        since = {s: since.get(s, entry["time"]) if s != seat else entry["time"] for s in active}
    return out


def summary(values: list[float]) -> dict:
    return {"p50": percentile(values, 0.5), "p95": percentile(values, 0.95), "n": len(values)}


def run(args) -> dict:
    registry = build_registry()
    game = registry.get(args.game)
    figures = {"facts": None, "game": args.game, "workers": {}}
    with redis_for_bench(args.redis_url) as (url, client_factory):
        client = client_factory()
        figures["facts"] = run_facts(client)
        matches = compose(
            Config(queue=QUEUE), registry, clients=shared_clients(client), scheduling=True
        ).matches
        logdir = Path(args.logdir)
        logdir.mkdir(parents=True, exist_ok=True)
        for kind in args.worker or ["gameroom"]:
            worker = WorkerProcess(kind, url, logdir)
            try:
                baseline(client, 3)  # warm-up: the worker is up and has forked once
                base = baseline(client, args.baseline)
                row = {"baseline": summary(base), "levels": {}}
                for level in args.levels.split(","):
                    samples = play(matches, game, args.game, level, args.moves, random.Random(args.seed))
                    lat = [s["latency"] for s in samples]
                    dec = [s["decision"] for s in samples]
                    row["levels"][level] = {
                        "latency": summary(lat),
                        "decision": summary(dec),
                        "overhead": summary([a - b for a, b in zip(lat, dec)]),
                        "ratio_p50": percentile(lat, 0.5) / percentile(base, 0.5),
                    }
                    _print_level(kind, level, row)
                figures["workers"][kind] = row
            finally:
                worker.stop()
    return figures


def _print_level(kind, level, row):
    f = row["levels"][level]
    ms = lambda s: fmt(1000 * s)  # noqa: E731
    print(
        f"[{kind} worker] {level:>7}: latency p50 {ms(f['latency']['p50'])} ms  p95 {ms(f['latency']['p95'])} ms"
        f"  | decision p50 {ms(f['decision']['p50'])} ms  p95 {ms(f['decision']['p95'])} ms"
        f"  | overhead p50 {ms(f['overhead']['p50'])} ms  p95 {ms(f['overhead']['p95'])} ms"
        f"  | no-op job p50 {ms(row['baseline']['p50'])} ms  p95 {ms(row['baseline']['p95'])} ms"
        f"  | latency/no-op {f['ratio_p50']:.1f}x  (n={f['latency']['n']})",
        flush=True,
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    p.add_argument("--game", default="nim", help="installed game to play (default nim)")
    p.add_argument("--levels", default="random,mcts", help="AI levels, comma-separated (default random,mcts)")
    p.add_argument("--moves", type=int, default=40, help="AI moves measured per level (default 40)")
    p.add_argument("--baseline", type=int, default=40, help="no-op jobs for the baseline (default 40)")
    p.add_argument(
        "--worker",
        action="append",
        choices=sorted(COMMANDS),
        help="worker to measure: gameroom (`gameroom worker`, default) or preloaded; repeatable",
    )
    p.add_argument("--redis-url", default=None, help="use this Redis instead of a throwaway embedded one")
    p.add_argument("--seed", type=int, default=1, help="seed of the human seat's random moves")
    p.add_argument("--logdir", default=str(ROOT / "bench" / "out" / "ai-latency-logs"), help="worker logs")
    p.add_argument("--json", metavar="PATH", help="write the figures as JSON to PATH")
    args = p.parse_args(argv)
    figures = run(args)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
