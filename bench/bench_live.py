"""Live connections: moves and delivery with N open streams on one API process.

    .venv/bin/python bench/bench_live.py                      # N = 0, 500, 1000, 2000; ~2 min
    .venv/bin/python bench/bench_live.py --streams 0,200 --duration 5

One API process (``gameroom serve --workers 1``: gevent, the stream hub, the
shipped settings, with the per-address stream cap lifted because every stream
comes from 127.0.0.1) on a throwaway embedded Redis. 200 active Nim matches
(8 piles of 20 stones, so none ends). For each N in ``--streams``, in order,
streams are added until N are open, spread evenly over the 200 matches (each
a spectator ``GET …/stream``), then for ``--duration`` seconds:

- a move client (its own process, one keep-alive connection, one move in
  flight, at most ``--move-rate`` moves/s) takes one stone in match after
  match, round robin: move latency p50/p99, from writing the request to the
  parsed 201 reply. The rate is the same load whatever the server's speed, so
  runs compare; and 200 matches of 160 stones hold 32,000 moves, which an
  unpaced client on a fast server used up before the last phase;
- a stream reader (its own process, every socket on one selector) records,
  for each entry received, now minus the entry's ``time`` (the server's
  clock when it appended it; same machine): append-to-delivery p50/p99;
- a health checker sends ``GET /api/healthz`` every 0.25 s (5 s timeout).

Reported per N: moves and their p50/p99, the ratio of move p99 to its p99
at N = 0 in the same run (the baseline), deliveries and their p50/p99, streams
dropped (closed by the server or never served), health checks answered, the
API worker's CPU (% of one core, and ms per move: streams included) while the
move client ran, and its RSS with the memory per open stream against N = 0.
Targets (issue 14): at 2,000 streams move p99 <= 2x its p99 at 0,
delivery p99 <= 250 ms, no stream dropped, every health check answered.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import percentile, redis_for_bench, run_facts  # noqa: E402

from gameroom.serving import raise_open_files_limit  # noqa: E402
from gameroom.testing.live_server import LiveServer  # noqa: E402
from gameroom.testing.live_server import http as call

MATCHES = 200


def _q(values, p):
    return round(percentile(values, p / 100) * 1000, 2) if values else None


# -- the move client (its own process) ---------------------------------------


def move_client(port, games, play, duration, rate, out):
    """Moves for ``duration`` s, at most ``rate`` a second; ``play`` (match -> turn and piles, or
    None once over) comes back updated for the next phase."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    samples, errors, i = [], 0, 0
    end = time.monotonic() + duration
    due = time.monotonic()
    while time.monotonic() < end:
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        due = max(due + 1 / rate, time.monotonic())  # no burst to catch up after a slow reply
        match_id, tokens = games[i % len(games)]
        i += 1
        now = play[match_id]
        if now is None:  # over: not moved again
            continue
        pile = next(p for p, n in enumerate(now["piles"]) if n)
        body = json.dumps({"move": {"type": "take", "pile": pile, "count": 1}}).encode()
        start = time.perf_counter_ns()
        conn.request(
            "POST",
            f"/api/matches/{match_id}/moves",
            body,
            {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[now['turn']]}"},
        )
        response = conn.getresponse()
        reply = json.loads(response.read())
        samples.append((time.perf_counter_ns() - start) / 1e9)
        if response.status != 201:
            errors += 1
            continue
        active = reply["state"]["active_seats"]
        play[match_id] = {"piles": reply["state"]["view"]["piles"], "turn": active[0]} if active else None
    out.put({"moves": samples, "errors": errors, "play": play})


def _workers(server) -> list[str]:
    return subprocess.run(
        ["pgrep", "-P", str(server.proc.pid)], capture_output=True, text=True
    ).stdout.split()


def cpu_seconds(pids) -> float:
    """User + system CPU time used so far by these processes (/proc/<pid>/stat)."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def worker_rss_kb(server) -> int:
    pids = _workers(server)
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            total += int(next(line for line in f if line.startswith("VmRSS:")).split()[1])
    return total


def health_checker(base, stop, results):
    while not stop.is_set():
        start = time.monotonic()
        try:
            results.append((call("GET", base + "/api/healthz", timeout=5)[0], time.monotonic() - start))
        except OSError:
            results.append((None, time.monotonic() - start))
        stop.wait(0.25)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--streams", default="0,500,1000,2000", help="open-stream counts, ascending (default 0,500,1000,2000)"
    )
    p.add_argument(
        "--duration", type=float, default=10.0, help="seconds of moves per stream count (default 10)"
    )
    p.add_argument(
        "--move-rate", type=float, default=300.0, help="most moves a second of the move client (default 300)"
    )
    p.add_argument("--redis-url", default=None, help="use this Redis instead of a throwaway embedded one")
    p.add_argument("--json", default=None, help="write the figures to this file")
    args = p.parse_args(argv)
    counts = [int(n) for n in args.streams.split(",")]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwind: the server and Redis stop
    raise_open_files_limit()
    ctx = mp.get_context("fork")
    rows = []
    with redis_for_bench(args.redis_url) as (url, client_factory), tempfile.TemporaryDirectory() as tmp:
        env = {
            "GAMEROOM_SSE_MAX_STREAMS_PER_CLIENT": "0",
            "GAMEROOM_SSE_MAX_STREAMS": str(max(counts) + 100),
            "GAMEROOM_AI_MODE": "off",
        }
        with LiveServer(url, Path(tmp), env=env) as server:
            games, play = [], {}
            for _ in range(MATCHES):
                status, created = call(
                    "POST",
                    server.base + "/api/matches",
                    {"game": "nim", "seats": [{"name": "A"}, {"name": "B"}], "options": {"piles": [20] * 8}},
                )
                assert status == 201, created
                match_id = created["match"]["id"]
                games.append((match_id, {int(k): v for k, v in created["tokens"].items()}))
                play[match_id] = {"turn": created["match"]["active_seats"][0], "piles": [20] * 8}
            readers, opened = [], 0
            rss0 = None
            for n in counts:
                new = n - opened
                # The streams already open stay open (their readers measure again); new ones join.
                paths = [f"/api/matches/{games[(opened + i) % MATCHES][0]}/stream" for i in range(new)]
                for r in readers:
                    r["conn"].send(("phase",))
                if paths:
                    q = ctx.Queue()
                    parent, child = ctx.Pipe()
                    proc = ctx.Process(target=_reader_loop, args=(server.port, paths, child, q), daemon=True)
                    proc.start()
                    readers.append({"proc": proc, "conn": parent, "q": q, "n": new})
                    parent.send(("phase",))
                opened = n
                for r in readers:  # each reader says when all its streams have their backlog
                    assert r["conn"].recv() == "ready"
                time.sleep(1.0)
                rss = worker_rss_kb(server)
                rss0 = rss if rss0 is None else rss0
                health, hstop = [], threading.Event()
                checker = threading.Thread(target=health_checker, args=(server.base, hstop, health))
                mq = ctx.Queue()
                for r in readers:
                    r["conn"].send(("go",))
                mover = ctx.Process(
                    target=move_client,
                    args=(server.port, games, play, args.duration, args.move_rate, mq),
                    daemon=True,
                )
                cpu_pids = _workers(server)
                cpu_start, cpu_clock = cpu_seconds(cpu_pids), time.monotonic()
                checker.start()
                mover.start()
                moved = mq.get(timeout=args.duration + 120)
                cpu_used, cpu_wall = cpu_seconds(cpu_pids) - cpu_start, time.monotonic() - cpu_clock
                play = moved["play"]
                mover.join()
                time.sleep(0.5)  # the last deliveries
                for r in readers:
                    r["conn"].send(("stop",))
                got = [r["q"].get(timeout=60) for r in readers]
                hstop.set()
                checker.join()
                delays = [d for g in got for d in g["delays"]]
                row = {
                    "streams": n,
                    "moves": len(moved["moves"]),
                    "move_errors": moved["errors"],
                    "move_p50_ms": _q(moved["moves"], 50),
                    "move_p99_ms": _q(moved["moves"], 99),
                    "deliveries": len(delays),
                    "delivery_p50_ms": _q(delays, 50),
                    "delivery_p99_ms": _q(delays, 99),
                    "dropped": sum(g["closed"] for g in got) + (n - sum(g["served"] for g in got)),
                    "health_answered": sum(1 for s, _ in health if s == 200),
                    "health_checks": len(health),
                    "health_p99_ms": _q([t for _, t in health], 99),
                    "worker_cpu_pct": round(100 * cpu_used / cpu_wall, 1),
                    "worker_cpu_ms_per_move": round(1000 * cpu_used / max(1, len(moved["moves"])), 3),
                    "worker_rss_mb": round(rss / 1024, 1),
                    "kb_per_stream": round((rss - rss0) / n, 1) if n else None,
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
            for r in readers:
                r["conn"].send(("exit",))
                r["proc"].join(30)
    base = rows[0]
    print(
        f"\nmoves with N open streams on one API process (gevent), {args.duration:.0f} s each; "
        f"baseline N={base['streams']}"
    )
    print(
        f"{'N':>6} {'moves':>6} {'p50 ms':>7} {'p99 ms':>7} {'p99/base':>8} {'deliv':>7} {'d p50':>6} "
        f"{'d p99':>6} {'dropped':>7} {'health':>7} {'CPU %':>6} {'RSS MB':>7} {'KB/str':>7}"
    )
    for r in rows:
        ratio = r["move_p99_ms"] / base["move_p99_ms"] if base["move_p99_ms"] else float("nan")
        print(
            f"{r['streams']:>6} {r['moves']:>6} {r['move_p50_ms']:>7} {r['move_p99_ms']:>7} {ratio:>8.2f} "
            f"{r['deliveries']:>7} {r['delivery_p50_ms'] or '-':>6} {r['delivery_p99_ms'] or '-':>6} "
            f"{r['dropped']:>7} {r['health_answered']:>3}/{r['health_checks']:<3} {r['worker_cpu_pct']:>6} "
            f"{r['worker_rss_mb']:>7} "
            f"{r['kb_per_stream'] or '-':>7}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "facts": run_facts(),
                    "duration_s": args.duration,
                    "move_rate": args.move_rate,
                    "matches": MATCHES,
                    "rows": rows,
                },
                f,
                indent=1,
            )
    return 0


# -- a stream reader (its own process) -----------------------------------------


def _reader_loop(port, paths, conn, out):
    """A stream reader process that measures one phase at a time, keeping its streams open between phases."""
    raise_open_files_limit()
    selector = selectors.DefaultSelector()
    socks = {}
    for path in paths:
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(f"GET {path} HTTP/1.0\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
        s.setblocking(False)
        socks[s] = {"buf": b"", "head": None, "entries": 0}
        selector.register(s, selectors.EVENT_READ)
    state = {"closed": 0, "delays": [], "measuring": False}

    def read_ready(timeout):
        for key, _ in selector.select(timeout):
            s = key.fileobj
            st = socks[s]
            try:
                chunk = s.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                state["closed"] += 1
                selector.unregister(s)
                continue
            now = time.time()
            st["buf"] += chunk
            if st["head"] is None:
                if b"\r\n\r\n" not in st["buf"]:
                    continue
                head, st["buf"] = st["buf"].split(b"\r\n\r\n", 1)
                st["head"] = head.split(b" ")[1] == b"200"
            *frames, st["buf"] = st["buf"].split(b"\n\n")
            for frame in frames:
                for line in frame.split(b"\n"):
                    if line.startswith(b"data: ") and b'"kind"' in line:
                        st["entries"] += 1
                        if state["measuring"]:
                            state["delays"].append(now - json.loads(line[6:])["time"])

    while True:
        command = conn.recv()[0]
        if command == "exit":
            break
        if command == "phase":
            deadline = time.monotonic() + 120
            while (
                sum(1 for st in socks.values() if st["entries"]) + state["closed"] < len(socks)
                and time.monotonic() < deadline
            ):
                read_ready(0.2)
            conn.send("ready")
            assert conn.recv()[0] == "go"
            state["measuring"], state["delays"] = True, []  # "closed" counts from the start
            while not conn.poll():
                read_ready(0.1)
            assert conn.recv()[0] == "stop"
            while True:  # what is already in the buffers
                before = len(state["delays"])
                read_ready(0.05)
                if len(state["delays"]) == before:
                    break
            state["measuring"] = False
            out.put(
                {
                    "delays": state["delays"],
                    "closed": state["closed"],
                    "served": sum(1 for st in socks.values() if st["head"]),
                }
            )
    for s in socks:
        s.close()


if __name__ == "__main__":
    sys.exit(main())
