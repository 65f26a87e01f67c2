"""HTTP benchmark: complete random matches played by N concurrent clients against gunicorn.

Starts a throwaway embedded redis-server (or uses ``--redis-url``) and two
gunicorn servers with the same settings (``-w 2 -k gthread --threads 8`` by
default) on loopback:

- gameroom itself (``gameroom.wsgi:app``, ``GAMEROOM_AI_MODE=off``);
- the baseline: a bare Flask app defined in this file (``baseline_app()``)
  with one endpoint that does one ``XADD`` per request.

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
"""

from __future__ import annotations

import argparse
import cProfile
import http.client
import io
import json
import os
import pstats
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt, median, percentile, redis_for_bench, run_facts, write_json

# -- the baseline server (gunicorn imports this module: keep module level light) --------


def baseline_app():
    """A bare Flask app: POST /baseline/<stream> appends the body to a stream with one XADD."""
    import redis
    from flask import Flask, jsonify, request

    app = Flask("bench_baseline")
    client = redis.Redis.from_url(os.environ["BENCH_REDIS_URL"])
    # Diagnostic (--baseline-round-trips K): K-1 sequential HGETs before the XADD, to price round trips alone.
    extra = max(0, int(os.environ.get("BENCH_ROUND_TRIPS", "1")) - 1)

    @app.post("/baseline/<stream>")
    def append(stream):
        body = request.get_json()
        for _ in range(extra):
            client.hget(f"bench-http:{{{stream}}}:meta", "status")
        entry_id = client.xadd(
            f"bench-http:{{{stream}}}:events", {"entry": json.dumps(body, separators=(",", ":"))}
        )
        return jsonify({"id": entry_id.decode()}), 201

    return app


HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HOST = "127.0.0.1"


# -- subprocesses ------------------------------------------------------------------------


def _die_with_parent():  # runs in the child before exec
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    os.setpgrp()  # Ctrl-C goes to us; we stop the servers in order


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Gunicorn:
    """One gunicorn master (and its workers) in its own process group, stopped on exit."""

    def __init__(
        self, name: str, app: str, env: dict, args: argparse.Namespace, logdir: Path, extra: list[str] = ()
    ):
        self.name, self.app, self.env, self.args, self.logdir, self.extra = (
            name,
            app,
            env,
            args,
            logdir,
            list(extra),
        )
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.log_path = logdir / f"{name}.log"

    def start(self, probe: str, timeout: float = 60.0) -> Gunicorn:
        gunicorn = str(Path(sys.executable).parent / "gunicorn")
        for _attempt in range(3):  # the free port may be taken between probe and bind
            self.port = free_port()
            cmd = [
                gunicorn,
                "-w",
                str(self.args.workers),
                "-k",
                self.args.worker_class,
                "--threads",
                str(self.args.threads),
                "-b",
                f"{HOST}:{self.port}",
                "--log-level",
                "warning",
                *self.extra,
                self.app,
            ]
            with open(self.log_path, "ab") as log:  # the child keeps its own copy of the descriptor
                # preexec_fn: no client thread runs yet when the servers start.
                self.proc = subprocess.Popen(
                    cmd,
                    cwd=ROOT,
                    env={**os.environ, **self.env},
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    preexec_fn=_die_with_parent,
                )  # noqa: PLW1509
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
                    conn.request("GET", probe)
                    status = conn.getresponse().status
                    conn.close()
                    if status < 500:
                        return self
                except OSError:
                    pass
                time.sleep(0.1)
            self.stop()
        tail = self.log_path.read_text(errors="replace")[-3000:] if self.log_path.exists() else ""
        raise RuntimeError(f"gunicorn {self.name} did not start ({' '.join(cmd)}):\n{tail}")

    def stop(self, timeout: float = 15.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # master and workers: graceful shutdown
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def tree_cpu_seconds(root_pid: int) -> float:
    """user+system CPU seconds of ``root_pid`` and its live descendants, from /proc (0.0 off Linux)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    parent, cpu = {}, {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parent[int(name)] = int(fields[1])
        cpu[int(name)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [root_pid]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo.extend(child for child, ppid in parent.items() if ppid == pid)
    return total


def redis_cpu_seconds(client) -> float:
    info = client.info("cpu")
    return float(info.get("used_cpu_user", 0)) + float(info.get("used_cpu_sys", 0))


# -- clients -----------------------------------------------------------------------------


class Conn:
    """One keep-alive HTTP/1.1 connection; ``call`` returns (status, json body or None, seconds).

    The clients share the machine with the servers, so their own JSON work is
    done with orjson (a 10 KB Tiny Stellar Empires state costs the standard
    library ~80 µs to parse), the same for both servers.
    """

    def __init__(self, port: int):
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)

    def call(self, method: str, path: str, body=None, token: str | None = None):
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = orjson.dumps(body)
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
            raise
        elapsed = time.perf_counter() - t0
        try:
            payload = orjson.loads(raw) if raw else None
        except ValueError:
            payload = None
        return resp.status, payload, elapsed

    def close(self):
        self.conn.close()


class Stats:
    """Per-thread tallies, merged after the phase."""

    def __init__(self):
        self.lat = {}  # kind -> [seconds]
        self.errors = {}  # "kind status" -> count
        self.matches_done = 0
        self.matches_cut = 0
        self.match_ids = []
        self.streams = []

    def ok(self, kind: str, seconds: float):
        self.lat.setdefault(kind, []).append(seconds)

    def err(self, kind: str, what):
        key = f"{kind} {what}"
        self.errors[key] = self.errors.get(key, 0) + 1

    def merge(self, other: Stats):
        for k, v in other.lat.items():
            self.lat.setdefault(k, []).extend(v)
        for k, v in other.errors.items():
            self.errors[k] = self.errors.get(k, 0) + v
        self.matches_done += other.matches_done
        self.matches_cut += other.matches_cut
        self.match_ids += other.match_ids
        self.streams += other.streams


def play_matches(
    port: int,
    game: str,
    seats: int,
    max_steps: int,
    deadline: float,
    quota: list,
    rnd: random.Random,
    stats: Stats,
    client: str = "api",
) -> None:
    """Create and play random matches until ``deadline`` or until the shared ``quota`` is used up."""
    conn = Conn(port)
    play = _play_one if client == "api" else _play_one_knowing_rules
    try:
        while time.monotonic() < deadline:
            if not _take_quota(quota):
                return
            try:
                play(conn, game, seats, max_steps, deadline, rnd, stats)
            except (OSError, http.client.HTTPException) as exc:
                stats.err("connection", type(exc).__name__)
                stats.matches_cut += 1
    finally:
        conn.close()


QUOTA_LOCK = threading.Lock()


def _take_quota(quota: list) -> bool:
    """Take one unit of the shared ``quota`` (``[None]``: unlimited); False once it is used up."""
    with QUOTA_LOCK:
        if quota[0] is None:
            return True
        if quota[0] <= 0:
            return False
        quota[0] -= 1
        return True


MOVE_BODY_SIZE = {}


def _note_body_size(game: str, move: dict) -> None:
    """Keep the size of the first moves' bodies (the baseline's bodies are made as big)."""
    sizes = MOVE_BODY_SIZE.setdefault(game, [])
    if len(sizes) < 2000:
        sizes.append(len(orjson.dumps({"move": move})))


def _create(conn: Conn, game: str, seats: int, stats: Stats):
    """Create a match with ``seats`` human seats; ``(created response, tokens by seat)``, or None."""
    body = {"game": game, "seats": [{"name": f"bench-{i}"} for i in range(seats)]}
    status, created, dt = conn.call("POST", "/api/matches", body)
    if status != 201:
        stats.err("create", status)
        time.sleep(0.05)
        return None
    stats.ok("create", dt)
    stats.match_ids.append(created["match"]["id"])
    return created, {int(s): t for s, t in created["tokens"].items()}


def _play_one(
    conn: Conn, game: str, seats: int, max_steps: int, deadline: float, rnd: random.Random, stats: Stats
) -> None:
    made = _create(conn, game, seats, stats)
    if made is None:
        return
    created, tokens = made
    match_id = created["match"]["id"]
    active = created["match"]["active_seats"]
    known = None  # (seat, legal moves) from the last move's response (?include=legal_moves)
    for _step in range(max_steps + 1):
        if not active:
            stats.matches_done += 1
            return
        if time.monotonic() >= deadline:
            break
        if known is not None and known[0] in active and known[1]:
            # The same seat acts again: the move response already listed its legal moves.
            seat, legal = known
        else:
            seat = active[0] if len(active) == 1 else rnd.choice(active)
            status, body, dt = conn.call("GET", f"/api/matches/{match_id}/legal-moves", token=tokens[seat])
            if status != 200:
                stats.err("legal-moves", status)
                break
            stats.ok("legal-moves", dt)
            legal = body["moves"]
        state = _post_random_move(
            conn, game, match_id, tokens[seat], legal, rnd, stats, "?include=legal_moves"
        )
        if state is None:
            break
        active = [] if state["status"] == "finished" else state["active_seats"]
        known = (seat, state.get("legal_moves") or [])
    stats.matches_cut += 1


def _post_random_move(
    conn: Conn,
    game: str,
    match_id: str,
    token: str,
    legal: list,
    rnd: random.Random,
    stats: Stats,
    query: str = "",
) -> dict | None:
    """POST a random one of ``legal``; the state the response carries, or None after noting the error."""
    if not legal:
        stats.err("legal-moves", "empty")
        return None
    move = rnd.choice(legal)
    status, result, dt = conn.call(
        "POST", f"/api/matches/{match_id}/moves{query}", {"move": move}, token=token
    )
    if status != 201:
        stats.err("move", status)
        return None
    stats.ok("move", dt)
    _note_body_size(game, move)
    return result["state"]


_RULES: dict = {}


def rules_for(game: str):
    """The installed game's rules, for a client that computes legal moves itself (``--client rules``)."""
    if game not in _RULES:
        from gameroom.registry import build_registry

        rules = build_registry().get(game)
        if rules.info.hidden_information:
            raise SystemExit(f"--client rules needs a game without hidden information; {game} has some")
        _RULES[game] = rules
    return _RULES[game]


def _play_one_knowing_rules(
    conn: Conn, game: str, seats: int, max_steps: int, deadline: float, rnd: random.Random, stats: Stats
) -> None:
    """A bot that knows the rules: one POST per move, legal moves computed from the returned view.

    Only for games without hidden information, where a seat's view is the
    whole state, so the game's own ``legal_moves`` runs on it client-side
    (what a self-play bot built on the same rules library does). The
    creation's response carries the opening state and every move response
    the next one.
    """
    rules = rules_for(game)
    made = _create(conn, game, seats, stats)
    if made is None:
        return
    created, tokens = made
    match_id = created["match"]["id"]
    state = created["state"]  # the public view, which is the whole state in such a game
    for _step in range(max_steps + 1):
        active = [] if state["status"] == "finished" else state["active_seats"]
        if not active:
            stats.matches_done += 1
            return
        if time.monotonic() >= deadline:
            break
        seat = active[0] if len(active) == 1 else rnd.choice(active)
        state = _post_random_move(
            conn, game, match_id, tokens[seat], rules.legal_moves(state["view"], seat), rnd, stats
        )
        if state is None:
            break
    stats.matches_cut += 1


def hit_baseline(
    port: int, deadline: float, quota: list, bodies: list, rnd: random.Random, stats: Stats
) -> None:
    conn = Conn(port)
    stream = uuid.uuid4().hex
    stats.streams.append(stream)
    try:
        while time.monotonic() < deadline:
            if not _take_quota(quota):
                return
            try:
                status, _, dt = conn.call("POST", f"/baseline/{stream}", rnd.choice(bodies))
            except (OSError, http.client.HTTPException) as exc:
                stats.err("connection", type(exc).__name__)
                continue
            if status == 201:
                stats.ok("baseline", dt)
            else:
                stats.err("baseline", status)
    finally:
        conn.close()


def run_phase(
    kind: str,
    port: int,
    args,
    seconds: float,
    *,
    matches: int | None = None,
    bodies=None,
    game_meta=None,
    seed: int = 0,
) -> dict:
    """Run N client threads for ``seconds`` (or until ``matches`` / requests are done); returns the figures."""
    deadline_box = [0.0]
    quota = [matches]
    per_thread = [Stats() for _ in range(args.clients)]
    start = threading.Barrier(args.clients + 1)

    def worker(i):
        rnd = random.Random(seed * 1000 + i)
        start.wait()
        if kind == "gameroom":
            play_matches(
                port,
                args.game,
                game_meta["seats"],
                game_meta["max_steps"],
                deadline_box[0],
                quota,
                rnd,
                per_thread[i],
                args.client,
            )
        else:
            hit_baseline(port, deadline_box[0], quota, bodies, rnd, per_thread[i])

    threads = [
        threading.Thread(target=worker, args=(i,), daemon=True, name=f"{kind}-{i}")
        for i in range(args.clients)
    ]
    for t in threads:
        t.start()
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    deadline_box[0] = time.monotonic() + seconds
    start.wait()
    for t in threads:
        t.join(seconds + 120)  # a request times out after 30 s; never wait forever
    elapsed = time.perf_counter() - t0
    client_cpu = time.process_time() - cpu0
    stats = Stats()
    for s in per_thread:
        stats.merge(s)
    out = {
        "kind": kind,
        "seconds": elapsed,
        "client_cpu_s": client_cpu,
        "errors": stats.errors,
        "matches_finished": stats.matches_done,
        "matches_cut": stats.matches_cut,
        "requests": {},
    }
    total = 0
    for k, lat in stats.lat.items():
        total += len(lat)
        out["requests"][k] = {
            "count": len(lat),
            "per_s": len(lat) / elapsed,
            "p50_ms": percentile(lat, 0.50) * 1e3,
            "p99_ms": percentile(lat, 0.99) * 1e3,
            "mean_ms": sum(lat) / len(lat) * 1e3,
        }
    out["all_requests_per_s"] = total / elapsed
    CREATED["matches"] += stats.match_ids
    CREATED["streams"] += stats.streams
    return out


#: What the phases wrote to Redis, deleted at the end when Redis is not a throwaway one.
CREATED = {"matches": [], "streams": []}


def delete_created(client) -> int:
    """Delete the matches and baseline streams this run created (for ``--redis-url``)."""
    from gameroom.eventstore import keys

    n = 0
    pipe = client.pipeline(transaction=False)
    for i, match_id in enumerate(CREATED["matches"]):
        pipe.delete(
            keys.events(match_id),
            keys.meta(match_id),
            keys.idempotency(match_id),
            keys.tokens(match_id),
            keys.snapshot(match_id),
            keys.undo_requests(match_id),
        )
        pipe.zrem(keys.lobby(), match_id)
        n += 1
        if i % 500 == 499:
            pipe.execute()
    for stream in CREATED["streams"]:
        pipe.delete(f"bench-http:{{{stream}}}:events")
    pipe.execute()
    return n


# -- report ------------------------------------------------------------------------------


def summarize(rounds: list[dict]) -> dict:
    """Medians over rounds of the per-round figures and ratios."""

    def med(path):
        vals = []
        for r in rounds:
            v = r
            for p in path:
                v = v.get(p, {}) if isinstance(v, dict) else {}
            if isinstance(v, (int, float)):
                vals.append(v)
        return median(vals)

    s = {
        "moves_per_s": med(["gameroom", "requests", "move", "per_s"]),
        "move_p50_ms": med(["gameroom", "requests", "move", "p50_ms"]),
        "move_p99_ms": med(["gameroom", "requests", "move", "p99_ms"]),
        "legal_moves_per_s": med(["gameroom", "requests", "legal-moves", "per_s"]),
        "legal_moves_p50_ms": med(["gameroom", "requests", "legal-moves", "p50_ms"]),
        "legal_moves_p99_ms": med(["gameroom", "requests", "legal-moves", "p99_ms"]),
        "creates_per_s": med(["gameroom", "requests", "create", "per_s"]),
        "create_p50_ms": med(["gameroom", "requests", "create", "p50_ms"]),
        "create_p99_ms": med(["gameroom", "requests", "create", "p99_ms"]),
        "api_requests_per_s": med(["gameroom", "all_requests_per_s"]),
        "baseline_requests_per_s": med(["baseline", "requests", "baseline", "per_s"]),
        "baseline_p50_ms": med(["baseline", "requests", "baseline", "p50_ms"]),
        "baseline_p99_ms": med(["baseline", "requests", "baseline", "p99_ms"]),
        "ratio_api_requests_vs_baseline": med(["ratio_api_requests"]),
        "ratio_moves_vs_baseline": med(["ratio_moves"]),
        "ratio_move_p50_vs_baseline_p50": med(["ratio_move_p50"]),
        "server_cpu_us_per_api_request": med(["gameroom", "server_cpu_us_per_request"]),
        "server_cpu_us_per_baseline_request": med(["baseline", "server_cpu_us_per_request"]),
        "redis_cpu_us_per_api_request": med(["gameroom", "redis_cpu_us_per_request"]),
        "redis_cpu_us_per_baseline_request": med(["baseline", "redis_cpu_us_per_request"]),
        "ratio_server_cpu_per_request": med(["ratio_server_cpu_per_request"]),
        "matches_finished": sum(r["gameroom"]["matches_finished"] for r in rounds),
        "matches_cut": sum(r["gameroom"]["matches_cut"] for r in rounds),
        "errors": {},
    }
    for r in rounds:
        for side in ("gameroom", "baseline"):
            for k, v in r[side]["errors"].items():
                s["errors"][f"{side}: {k}"] = s["errors"].get(f"{side}: {k}", 0) + v
    return s


def print_report(res: dict) -> None:
    s = res["summary"]
    p = res["params"]
    target = p["target"]
    print()
    client = p.get("client", "api")
    print(
        f"HTTP, game {p['game']}, {p['clients']} clients ({client} client: "
        f"{'GET legal-moves per turn + POST per move' if client == 'api' else 'one POST per move'}), "
        f"gunicorn -w {p['workers']} -k {p['worker_class']} "
        f"--threads {p['threads']}, {len(res['rounds'])} round(s); medians over rounds"
    )
    print(
        f"  ratio  API requests/s vs baseline requests/s : {s['ratio_api_requests_vs_baseline']:.2f}  "
        f"(target >= {target:.2f}: {'MET' if s['ratio_api_requests_vs_baseline'] >= target else 'NOT MET'})"
    )
    print(
        f"  ratio  moves/s vs baseline requests/s         : {s['ratio_moves_vs_baseline']:.2f}  "
        f"(target >= {target:.2f}: {'MET' if s['ratio_moves_vs_baseline'] >= target else 'NOT MET'})"
    )
    print(f"  ratio  move p50 latency vs baseline p50       : {s['ratio_move_p50_vs_baseline_p50']:.2f}x")
    print()
    print(f"  {'':<38}{'per s':>10}{'p50 ms':>9}{'p99 ms':>9}")
    k = p.get("baseline_round_trips", 1)
    label = "baseline POST (1 XADD)" if k == 1 else f"baseline POST ({k - 1} HGET + 1 XADD)"
    print(
        f"  {label:<38}{fmt(s['baseline_requests_per_s']):>10}"
        f"{fmt(s['baseline_p50_ms'], 2):>9}{fmt(s['baseline_p99_ms'], 2):>9}"
    )
    print(
        f"  {'gameroom POST /moves (moves)':<38}{fmt(s['moves_per_s']):>10}"
        f"{fmt(s['move_p50_ms'], 2):>9}{fmt(s['move_p99_ms'], 2):>9}"
    )
    print(
        f"  {'gameroom GET /legal-moves':<38}{fmt(s['legal_moves_per_s']):>10}"
        f"{fmt(s['legal_moves_p50_ms'], 2):>9}{fmt(s['legal_moves_p99_ms'], 2):>9}"
    )
    print(
        f"  {'gameroom POST /matches (create)':<38}{fmt(s['creates_per_s']):>10}"
        f"{fmt(s['create_p50_ms'], 2):>9}{fmt(s['create_p99_ms'], 2):>9}"
    )
    print(f"  {'gameroom, all API calls':<38}{fmt(s['api_requests_per_s']):>10}")
    print(f"  matches finished: {s['matches_finished']}, cut at the end of a phase: {s['matches_cut']}")
    print(
        f"  server CPU per request (gunicorn master+workers, from /proc): gameroom "
        f"{fmt(s['server_cpu_us_per_api_request'], 0)} us, baseline {fmt(s['server_cpu_us_per_baseline_request'], 0)} us "
        f"({s['ratio_server_cpu_per_request']:.2f}x); redis-server CPU per request: "
        f"{fmt(s['redis_cpu_us_per_api_request'], 0)} us vs {fmt(s['redis_cpu_us_per_baseline_request'], 0)} us"
    )
    print()
    per_round = sorted(r["ratio_moves"] for r in res["rounds"])
    print(
        f"  moves/s ratio per round: {', '.join(f'{v:.2f}' for v in per_round)} (sorted; median "
        f"{s['ratio_moves_vs_baseline']:.2f}, {sum(v >= target for v in per_round)} of {len(per_round)} rounds "
        f">= {target:.2f})"
    )
    print(
        "  per round:"
        + "".join(
            f"  [{i + 1}] base {r['baseline']['requests'].get('baseline', {}).get('per_s', 0):.0f}/s, "
            f"api {r['gameroom']['all_requests_per_s']:.0f}/s, moves {r['gameroom']['requests'].get('move', {}).get('per_s', 0):.0f}/s"
            for i, r in enumerate(res["rounds"])
        )
    )
    print(
        "  client CPU (this process, share of one core):"
        + "".join(
            f"  [{i + 1}] base {r['baseline']['client_cpu_s'] / r['baseline']['seconds']:.2f}, "
            f"gameroom {r['gameroom']['client_cpu_s'] / r['gameroom']['seconds']:.2f}"
            for i, r in enumerate(res["rounds"])
        )
    )
    if s["errors"]:
        print(f"  errors: {s['errors']}")


# -- in-process profile --------------------------------------------------------------------


def profile(args) -> int:
    """cProfile of create + legal-moves + move through Flask's test client (one process, no gunicorn)."""
    from gameroom import create_app

    with redis_for_bench(args.redis_url) as (url, _make_client):
        app = create_app({"redis_url": url, "ai_mode": "off", "log_level": "WARNING"})
        client = app.test_client()
        rnd = random.Random(1)
        counts = {"create": 0, "legal": 0, "move": 0}

        def play(n_matches):
            for _ in range(n_matches):
                r = client.post(
                    "/api/matches", json={"game": args.game, "seats": [{"name": "a"}, {"name": "b"}]}
                )
                counts["create"] += 1
                body = r.get_json()
                mid, tokens, active = body["match"]["id"], body["tokens"], body["match"]["active_seats"]
                for _ in range(10_000):
                    if not active:
                        break
                    seat = active[0]
                    auth = {"Authorization": f"Bearer {tokens[str(seat)]}"}
                    legal = client.get(f"/api/matches/{mid}/legal-moves", headers=auth).get_json()
                    counts["legal"] += 1
                    r = client.post(
                        f"/api/matches/{mid}/moves",
                        headers=auth,
                        json={"move": rnd.choice(legal["moves"]), "expected_version": legal["version"]},
                    )
                    counts["move"] += 1
                    st = r.get_json()["state"]
                    active = [] if st["status"] == "finished" else st["active_seats"]

        play(3)  # warm-up
        for k in counts:
            counts[k] = 0
        n = args.profile_matches
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        play(n)
        prof.disable()
        elapsed = time.perf_counter() - t0
        total = sum(counts.values())
        print(
            f"profile: {n} {args.game} matches, {counts} = {total} requests in {elapsed:.2f} s "
            f"({elapsed / total * 1e3:.2f} ms/request under cProfile, one thread)"
        )
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf).sort_stats("cumulative")
        stats.print_stats(args.profile_top)
        print(buf.getvalue())
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf).sort_stats("tottime")
        stats.print_stats(args.profile_top)
        print(buf.getvalue())
        print("Self time by where the code lives (cProfile tottime; the profiler inflates call-heavy code):")
        for where, secs in _time_by_package(stats).items():
            print(
                f"  {where:<44}{secs * 1e3:>9.1f} ms {secs / elapsed * 100:>6.1f}%  {secs / total * 1e6:>8.0f} us/request"
            )
        print()
        # Redis round trips per request kind
        import redis as _redis

        calls = {"n": 0}
        orig, orig_pipe = _redis.Redis.execute_command, _redis.client.Pipeline.execute

        def counting(self, *a, **kw):
            calls["n"] += 1
            return orig(self, *a, **kw)

        def counting_pipe(self, *a, **kw):
            calls["n"] += 1
            return orig_pipe(self, *a, **kw)

        _redis.Redis.execute_command = counting
        _redis.client.Pipeline.execute = counting_pipe
        try:
            r = client.post("/api/matches", json={"game": args.game, "seats": [{"name": "a"}, {"name": "b"}]})
            create_calls = calls["n"]
            body = r.get_json()
            mid, tokens, seat = body["match"]["id"], body["tokens"], body["match"]["active_seats"][0]
            auth = {"Authorization": f"Bearer {tokens[str(seat)]}"}
            calls["n"] = 0
            legal = client.get(f"/api/matches/{mid}/legal-moves", headers=auth).get_json()
            legal_calls = calls["n"]
            calls["n"] = 0
            client.post(
                f"/api/matches/{mid}/moves",
                headers=auth,
                json={"move": legal["moves"][0], "expected_version": legal["version"]},
            )
            move_calls = calls["n"]
        finally:
            _redis.Redis.execute_command = orig
            _redis.client.Pipeline.execute = orig_pipe
        print(
            f"Redis commands per request (pipelines count once): create {create_calls}, "
            f"legal-moves {legal_calls}, move {move_calls}; baseline 1"
        )
    return 0


def _time_by_package(stats: pstats.Stats) -> dict:
    """Sum of self time per package: site-packages/<pkg>, the repo's service/ and plugins/, stdlib, builtins."""
    out = {}
    for (filename, _line, func), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        path = filename.replace("\\", "/")
        if "site-packages/" in path:
            where = "site-packages/" + path.split("site-packages/", 1)[1].split("/", 1)[0]
        elif path.startswith(str(ROOT) + "/"):
            rel = path[len(str(ROOT)) + 1 :]
            where = "/".join(rel.split("/")[:2]) if rel.startswith("service/") else rel.split("/", 1)[0] + "/"
        elif filename == "~":
            where = "builtins: " + (func.split("'")[1].split(" ")[0] if "method '" in func else func)[:40]
        else:
            where = "stdlib: " + Path(path).parent.name + "/" + Path(path).name
        out[where] = out.get(where, 0.0) + tottime
    top = dict(sorted(out.items(), key=lambda kv: -kv[1])[:25])
    top["(everything else)"] = sum(out.values()) - sum(top.values())
    return top


# -- main -----------------------------------------------------------------------------------


def main(argv=None) -> int:
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
    p.add_argument("--threads", type=int, default=8, help="gunicorn --threads (default 8)")
    p.add_argument("--worker-class", default="gthread", help="gunicorn -k (default gthread)")
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

    # SIGTERM (or SIGHUP) unwinds like Ctrl-C, so the finally blocks stop every server.
    def _raise(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, _raise)
    signal.signal(signal.SIGHUP, _raise)

    t_start = time.monotonic()
    servers: list[Gunicorn] = []
    logdir = Path(tempfile.mkdtemp(prefix="gameroom-bench-http-"))
    g_seconds = args.max_seconds if args.matches else args.duration
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
                base_env = {"BENCH_REDIS_URL": url, "BENCH_ROUND_TRIPS": str(args.baseline_round_trips)}
                baseline = Gunicorn(
                    "baseline",
                    "bench_http:baseline_app()",
                    base_env,
                    args,
                    logdir,
                    extra=["--pythonpath", str(HERE)],
                )
                gameroom = Gunicorn(
                    "gameroom",
                    "gameroom.wsgi:app",
                    {"GAMEROOM_REDIS_URL": url, "GAMEROOM_AI_MODE": "off"},
                    args,
                    logdir,
                )
                servers += [baseline, gameroom]
                baseline.start("/")
                gameroom.start("/api/games")
                meta = _game_meta(gameroom.port, args)
                if args.client == "auto":
                    args.client = "api" if meta["hidden_information"] else "rules"
                if args.client == "rules":
                    rules_for(args.game)  # refuses a game with hidden information, before any phase
                print(
                    f"  servers up: baseline :{baseline.port}, gameroom :{gameroom.port}; "
                    f"{args.game} with {meta['seats']} seats",
                    flush=True,
                )

                # Warm up both (imports, caches, connections); learn the size of move bodies for the baseline's.
                MOVE_BODY_SIZE.clear()
                warm = run_phase("gameroom", gameroom.port, args, args.warmup, game_meta=meta, seed=999)
                bodies = _baseline_bodies(args.game)
                run_phase("baseline", baseline.port, args, args.warmup, bodies=bodies, seed=999)
                if warm["errors"]:
                    print(f"  warm-up errors: {warm['errors']}", flush=True)

                rounds = []
                for r in range(args.rounds):
                    print(f"  round {r + 1}/{args.rounds}: baseline ...", end="", flush=True)
                    b = measured(
                        baseline,
                        rclient,
                        lambda r=r: run_phase(
                            "baseline", baseline.port, args, args.duration, bodies=bodies, seed=r
                        ),
                    )
                    print(" gameroom ...", end="", flush=True)
                    g = measured(
                        gameroom,
                        rclient,
                        lambda r=r: run_phase(
                            "gameroom",
                            gameroom.port,
                            args,
                            g_seconds,
                            matches=args.matches,
                            game_meta=meta,
                            seed=r,
                        ),
                    )
                    base = b["requests"].get("baseline", {})
                    move = g["requests"].get("move", {})
                    nan = float("nan")
                    rounds.append(
                        {
                            "baseline": b,
                            "gameroom": g,
                            "ratio_api_requests": g["all_requests_per_s"] / base.get("per_s", nan),
                            "ratio_moves": move.get("per_s", 0.0) / base.get("per_s", nan),
                            "ratio_server_cpu_per_request": g["server_cpu_us_per_request"]
                            / b["server_cpu_us_per_request"],
                            "ratio_move_p50": move.get("p50_ms", nan) / base.get("p50_ms", nan),
                        }
                    )
                    print(
                        f" api {g['all_requests_per_s']:.0f} req/s vs baseline {base.get('per_s', nan):.0f} req/s",
                        flush=True,
                    )
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

    res = {
        "benchmark": "bench_http",
        "facts": facts,
        "params": vars(args),
        "game": meta,
        "move_body_bytes_median": median(MOVE_BODY_SIZE.get(args.game, [])),
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
    return 0


def measured(server: Gunicorn, rclient, phase) -> dict:
    """Run ``phase()`` and add the CPU the gunicorn tree and redis-server spent meanwhile."""
    s0, r0 = tree_cpu_seconds(server.proc.pid), redis_cpu_seconds(rclient)
    out = phase()
    s1, r1 = tree_cpu_seconds(server.proc.pid), redis_cpu_seconds(rclient)
    n = sum(v["count"] for v in out["requests"].values()) or 1
    out.update(
        server_cpu_s=s1 - s0,
        redis_cpu_s=r1 - r0,
        server_cpu_us_per_request=(s1 - s0) / n * 1e6,
        redis_cpu_us_per_request=(r1 - r0) / n * 1e6,
    )
    return out


def _game_meta(port: int, args) -> dict:
    conn = Conn(port)
    try:
        status, info, _ = conn.call("GET", f"/api/games/{args.game}")
    finally:
        conn.close()
    if status != 200:
        raise SystemExit(f"game '{args.game}' is not installed on the server (HTTP {status}: {info})")
    meta = info.get("info", info)
    lo, hi = meta.get("min_players", 2), meta.get("max_players", 2)
    seats = args.seats or min(max(2, lo), hi)
    if not lo <= seats <= hi:
        raise SystemExit(f"{args.game} takes {lo}-{hi} seats, not {seats}")
    return {
        "slug": args.game,
        "seats": seats,
        "max_steps": int(meta.get("max_steps") or 10_000),
        "min_players": lo,
        "max_players": hi,
        "hidden_information": bool(meta.get("hidden_information", True)),
    }


def _baseline_bodies(game: str) -> list[dict]:
    """Baseline request bodies as big as the game's move bodies (seen in the warm-up; ~60 B if none)."""
    sizes = MOVE_BODY_SIZE.get(game) or [60]
    rnd = random.Random(5)
    bodies = []
    for _ in range(64):
        size = rnd.choice(sizes)
        body = {"move": {"type": "take", "pad": ""}, "expected_version": rnd.randint(1, 100)}
        body["move"]["pad"] = "x" * max(0, size - len(json.dumps(body)))
        bodies.append(body)
    return bodies


if __name__ == "__main__":
    sys.exit(main())
