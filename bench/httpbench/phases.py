"""One measured phase: N client threads against one server, and what the phases left in Redis."""

from __future__ import annotations

import random
import threading
import time

from _common import percentile

from .clients import Stats, hit_baseline, play_matches

#: What the phases wrote to Redis, deleted at the end when Redis is not a throwaway one.
CREATED = {"matches": [], "streams": []}


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
    CREATED["matches"] += stats.match_ids
    CREATED["streams"] += stats.streams
    return _figures(kind, stats, elapsed, client_cpu)


def _figures(kind: str, stats: Stats, elapsed: float, client_cpu: float) -> dict:
    """A phase's figures: per request kind count, rate and latency percentiles; errors; matches."""
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
    return out


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
