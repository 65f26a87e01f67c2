"""``--profile``: cProfile of create + legal-moves + move in-process, and Redis commands per request.

No gunicorn: the requests go through Flask's test client in this process, on
a throwaway embedded Redis (or ``--redis-url``).
"""

from __future__ import annotations

import cProfile
import io
import pstats
import random
import time
from pathlib import Path

from _common import redis_for_bench

from .servers import ROOT


def profile(args) -> int:
    """cProfile of create + legal-moves + move through Flask's test client (one process, no gunicorn)."""
    from gameroom import create_app

    with redis_for_bench(args.redis_url) as (url, _make_client):
        app = create_app({"redis_url": url, "ai_mode": "off", "log_level": "WARNING"})
        client = app.test_client()
        rnd = random.Random(1)
        counts = {"create": 0, "legal": 0, "move": 0}
        _play(client, args.game, 3, rnd, counts)  # warm-up
        for k in counts:
            counts[k] = 0
        n = args.profile_matches
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        _play(client, args.game, n, rnd, counts)
        prof.disable()
        elapsed = time.perf_counter() - t0
        total = sum(counts.values())
        print(
            f"profile: {n} {args.game} matches, {counts} = {total} requests in {elapsed:.2f} s "
            f"({elapsed / total * 1e3:.2f} ms/request under cProfile, one thread)"
        )
        _print_profile(prof, args.profile_top, elapsed, total)
        _print_round_trips(client, args.game)
    return 0


def _play(client, game: str, n_matches: int, rnd: random.Random, counts: dict) -> None:
    """Play ``n_matches`` two-seat matches to the end: GET legal-moves, then POST a random one."""
    for _ in range(n_matches):
        r = client.post("/api/matches", json={"game": game, "seats": [{"name": "a"}, {"name": "b"}]})
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


def _print_profile(prof: cProfile.Profile, top: int, elapsed: float, total: int) -> None:
    """The top functions by cumulative and by self time, then self time by package."""
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf).sort_stats("cumulative")
    stats.print_stats(top)
    print(buf.getvalue())
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf).sort_stats("tottime")
    stats.print_stats(top)
    print(buf.getvalue())
    print("Self time by where the code lives (cProfile tottime; the profiler inflates call-heavy code):")
    for where, secs in _time_by_package(stats).items():
        print(
            f"  {where:<44}{secs * 1e3:>9.1f} ms {secs / elapsed * 100:>6.1f}%  {secs / total * 1e6:>8.0f} us/request"
        )
    print()


def _print_round_trips(client, game: str) -> None:
    """Count the Redis commands of one create, one legal-moves and one move (pipelines count once)."""
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
        r = client.post("/api/matches", json={"game": game, "seats": [{"name": "a"}, {"name": "b"}]})
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
