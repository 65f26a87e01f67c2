"""HTTP benchmark: complete random matches played by N concurrent clients against gunicorn.

Starts a throwaway embedded redis-server (or uses ``--redis-url``) and two
gunicorn servers with the same settings (``-w 2`` and the shipped worker,
``gameroom.http.worker.GeventWorker``, by default) on loopback:

- gameroom itself (``gameroom.wsgi:app``, ``GAMEROOM_AI_MODE=off``);
- the baseline: a bare Flask app (``httpbench/baseline.py``) with one
  endpoint that does one ``XADD`` per request.

Each of N client threads (``http.client``, one keep-alive connection each)
creates a match of ``--game`` (default nim) with only human seats and plays it
to the end with random legal moves for an active seat (the first one; a random
one when several are active), then starts another, until the phase's time (or
``--matches``) is up. Two kinds of client (``--client``; the default picks
``rules`` for a game without hidden information, ``api`` otherwise):

- ``rules``: a bot that knows the rules computes each seat's legal moves from
  the state that the create and move responses carry: one POST per move;
- ``api``: GET /legal-moves at the start of each turn, then POST the move with
  ``?include=legal_moves`` (the response lists the next legal moves when the
  same seat acts again): two requests per move when seats alternate.

For the baseline the same N threads POST a body of the size of a move to the
XADD endpoint.

The two servers are measured alternately (baseline, gameroom, baseline,
gameroom, ... ``--rounds`` times) and the ratio is taken per round, then the
median, so that a noisy neighbour slows both sides alike. Reported:

- moves/s and p50/p99 latency of the move POST; the legal-moves GET and match
  creation separately; requests/s of all API calls;
- baseline requests/s and p50/p99;
- ratios vs the baseline (the target from the issue: >= 0.60), and the moves/s
  ratio of every round.

    .venv/bin/python bench/bench_http.py                       # default, ~75 s
    .venv/bin/python bench/bench_http.py --client api          # the API-only client on nim
    .venv/bin/python bench/bench_http.py --clients 16 --duration 20 --rounds 3
    .venv/bin/python bench/bench_http.py --game tiny-stellar-empires --json bench/out/http.json
    .venv/bin/python bench/bench_http.py --profile             # in-process cProfile of the move path

This file is the command line; the benchmark itself is the ``httpbench``
package beside it (servers, clients, phases, session, report, profiling).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from httpbench.profiling import profile
from httpbench.session import run

from gameroom.serving import WORKER_CLASS


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--clients", "-n", type=int, default=8, help="concurrent client threads (default 8)")
    p.add_argument("--game", default="nim", help="installed game to play (default nim)")
    p.add_argument(
        "--client",
        choices=("auto", "api", "rules"),
        default="auto",
        help="rules: a bot that knows the rules computes legal moves from the view it got back, one "
        "POST per move (games without hidden information only); api: GET legal-moves at the start "
        "of each turn, then POST moves with ?include=legal_moves (two requests per move when seats "
        "alternate); auto (default): rules when the game has no hidden information, else api",
    )
    p.add_argument(
        "--seats", type=int, default=None, help="seats per match (default: the game's minimum, at least 2)"
    )
    p.add_argument("--duration", type=float, default=5.0, help="seconds per measured phase (default 5)")
    p.add_argument(
        "--rounds",
        type=int,
        default=6,
        help="baseline/gameroom phase pairs (default 6: many short alternations give a steadier median "
        "on a shared machine than a few long ones)",
    )
    p.add_argument("--warmup", type=float, default=2.0, help="seconds of warm-up per server (default 2)")
    p.add_argument(
        "--matches",
        type=int,
        default=None,
        help="play this many matches per gameroom phase instead of --duration seconds "
        "(bounded by --max-seconds); baseline phases still last --duration",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=600.0,
        help="upper bound of a gameroom phase with --matches (default 600)",
    )
    p.add_argument("--workers", type=int, default=2, help="gunicorn -w (default 2)")
    p.add_argument(
        "--threads",
        type=int,
        default=8,
        help="gunicorn --threads of a gthread --worker-class (default 8; the shipped gevent worker has none)",
    )
    p.add_argument(
        "--worker-class",
        default=WORKER_CLASS,
        help=f"gunicorn -k for both servers (default {WORKER_CLASS}, the shipped worker; gthread, gevent, ...)",
    )
    p.add_argument(
        "--appendfsync",
        choices=("always", "everysec", "no"),
        default="always",
        help="fsync policy of the embedded Redis (default always, the app's default); "
        "compare runs to see what durable acknowledgements cost",
    )
    p.add_argument(
        "--redis-url",
        help="use this Redis (a scratch database: the run's matches are deleted "
        "afterwards) instead of a throwaway embedded one",
    )
    p.add_argument(
        "--baseline-round-trips",
        type=int,
        default=1,
        metavar="K",
        help="diagnostic: the baseline makes K sequential Redis calls per request (K-1 HGETs, then the "
        "XADD) instead of 1, to see what round trips alone cost (default 1)",
    )
    p.add_argument("--target", type=float, default=0.60, help="throughput ratio to meet (default 0.60)")
    p.add_argument("--json", metavar="PATH", help="write the figures as JSON to PATH")
    p.add_argument(
        "--profile", action="store_true", help="instead: cProfile the request path in-process and exit"
    )
    p.add_argument(
        "--profile-matches", type=int, default=30, help="matches to play under --profile (default 30)"
    )
    p.add_argument("--profile-top", type=int, default=30, help="rows of the profile to print (default 30)")
    return p


def main(argv=None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    if not (
        1 <= args.clients <= 256
        and 1 <= args.baseline_round_trips <= 50
        and 0.5 <= args.duration <= 3600
        and 1 <= args.rounds <= 50
        and 1 <= args.max_seconds <= 24 * 3600
        and (args.matches is None or 1 <= args.matches <= 10**7)
    ):
        p.error("out-of-range --clients / --duration / --rounds / --matches / --max-seconds")

    if args.profile:
        return profile(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
