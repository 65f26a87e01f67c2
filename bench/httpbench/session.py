"""A whole run: Redis and both servers up, warm-up, alternating measured rounds, the result.

The two servers are measured alternately (baseline, gameroom, baseline,
gameroom, ... ``--rounds`` times) and the ratio is taken per round, so that a
noisy neighbour slows both sides alike; :mod:`.report` takes the medians.
"""

from __future__ import annotations

import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from _common import median, redis_for_bench, run_facts, write_json

from . import clients
from .phases import delete_created, run_phase
from .report import print_report, round_ratios, summarize
from .servers import BENCH, Gunicorn, measured


def run(args) -> int:
    """Run the benchmark as ``args`` say, print the report (and write ``--json``); the exit status."""

    # SIGTERM (or SIGHUP) unwinds like Ctrl-C, so the finally blocks stop every server.
    def _raise(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, _raise)
    signal.signal(signal.SIGHUP, _raise)

    t_start = time.monotonic()
    servers: list[Gunicorn] = []
    logdir = Path(tempfile.mkdtemp(prefix="gameroom-bench-http-"))
    try:
        with redis_for_bench(args.redis_url, args.appendfsync) as (url, make_client):
            rclient = make_client()
            try:
                facts = run_facts(rclient)
                print(
                    f"bench_http: {facts['cpus']} cpus, load {facts['loadavg_at_start']}; redis "
                    f"{facts.get('redis_version')} ({'external' if args.redis_url else 'embedded'}, "
                    f"appendfsync {args.appendfsync})",
                    flush=True,
                )
                servers += _start_servers(url, args, logdir)
                meta, rounds = _measure(*servers, rclient, args)
            finally:
                for server in reversed(servers):  # before Redis goes away
                    server.stop()
                if args.redis_url:
                    print(
                        f"  deleted the {delete_created(rclient)} matches and the baseline streams of this run",
                        flush=True,
                    )
                rclient.close()
    except KeyboardInterrupt as exc:
        print(f"\ninterrupted ({exc or 'Ctrl-C'}); servers stopped", file=sys.stderr)
        shutil.rmtree(logdir, ignore_errors=True)
        return 130
    except SystemExit:
        shutil.rmtree(logdir, ignore_errors=True)
        raise
    except BaseException:
        print(f"server logs kept in {logdir}", file=sys.stderr)
        raise
    finally:
        for server in reversed(servers):
            server.stop()
    _finish(args, facts, meta, rounds, logdir, t_start)
    return 0


def _start_servers(url: str, args, logdir: Path) -> list[Gunicorn]:
    """The baseline and gameroom under the same gunicorn settings, both up (in that order)."""
    base_env = {"BENCH_REDIS_URL": url, "BENCH_ROUND_TRIPS": str(args.baseline_round_trips)}
    baseline = Gunicorn(
        "baseline",
        "httpbench.baseline:baseline_app()",
        base_env,
        args,
        logdir,
        extra=["--pythonpath", str(BENCH)],
    )
    gameroom = Gunicorn(
        "gameroom",
        "gameroom.wsgi:app",
        {"GAMEROOM_REDIS_URL": url, "GAMEROOM_AI_MODE": "off"},
        args,
        logdir,
    )
    servers = [baseline, gameroom]
    try:
        baseline.start("/")
        gameroom.start("/api/games")
    except BaseException:
        for server in reversed(servers):
            server.stop()
        raise
    return servers


def _measure(baseline: Gunicorn, gameroom: Gunicorn, rclient, args) -> tuple[dict, list[dict]]:
    """Pick the client, warm both servers up, then the measured rounds: ``(game meta, rounds)``."""
    meta = clients.game_meta(gameroom.port, args)
    if args.client == "auto":
        args.client = "api" if meta["hidden_information"] else "rules"
    if args.client == "rules":
        clients.rules_for(args.game)  # refuses a game with hidden information, before any phase
    print(
        f"  servers up: baseline :{baseline.port}, gameroom :{gameroom.port}; "
        f"{args.game} with {meta['seats']} seats",
        flush=True,
    )

    # Warm up both (imports, caches, connections); learn the size of move bodies for the baseline's.
    clients.MOVE_BODY_SIZE.clear()
    warm = run_phase("gameroom", gameroom.port, args, args.warmup, game_meta=meta, seed=999)
    bodies = clients.baseline_bodies(args.game)
    run_phase("baseline", baseline.port, args, args.warmup, bodies=bodies, seed=999)
    if warm["errors"]:
        print(f"  warm-up errors: {warm['errors']}", flush=True)

    g_seconds = args.max_seconds if args.matches else args.duration
    rounds = []
    for r in range(args.rounds):
        print(f"  round {r + 1}/{args.rounds}: baseline ...", end="", flush=True)
        b = measured(
            baseline,
            rclient,
            lambda r=r: run_phase("baseline", baseline.port, args, args.duration, bodies=bodies, seed=r),
        )
        print(" gameroom ...", end="", flush=True)
        g = measured(
            gameroom,
            rclient,
            lambda r=r: run_phase(
                "gameroom", gameroom.port, args, g_seconds, matches=args.matches, game_meta=meta, seed=r
            ),
        )
        rounds.append(round_ratios(b, g))
        base_per_s = b["requests"].get("baseline", {}).get("per_s", float("nan"))
        print(f" api {g['all_requests_per_s']:.0f} req/s vs baseline {base_per_s:.0f} req/s", flush=True)
    return meta, rounds


def _finish(args, facts: dict, meta: dict, rounds: list[dict], logdir: Path, t_start: float) -> None:
    """The result: print the report, keep the server logs if anything failed, write ``--json``."""
    res = {
        "benchmark": "bench_http",
        "facts": facts,
        "params": vars(args),
        "game": meta,
        "move_body_bytes_median": median(clients.MOVE_BODY_SIZE.get(args.game, [])),
        "rounds": rounds,
        "summary": summarize(rounds),
        "seconds": round(time.monotonic() - t_start, 1),
    }
    print_report(res)
    if res["summary"]["errors"]:
        print(f"\n({res['seconds']} s; server logs kept in {logdir})")
    else:
        shutil.rmtree(logdir, ignore_errors=True)
        print(f"\n({res['seconds']} s)")
    if args.json:
        write_json(args.json, res)
