"""Redis round trips of one AI turn (as a real ``gameroom worker`` runs it) and of one warm human move.

A round trip is one request sent to Redis and its reply: a single command or a
whole pipeline (a Lua script is one). They are counted on the client side by
wrapping redis-py's ``send_packed_command`` (one call per command or per
pipeline), separately for the events Redis and the queue Redis, which are two
throwaway redis-servers here so that the two roles can be told apart.

**AI turn.** For each game, a match whose seats are all played by the
``random`` level is created (without enqueueing its job), and its first AI
job is put on the queue. This process prepares itself once as ``gameroom
worker`` does before it forks its work horses, then forks one child per job,
as RQ's worker does, which runs what ``play_ai_turn`` runs (:func:`counted_turn`:
the job's matches, load, policy, submit, and the follow-up enqueue of the
next AI seat, which is queue round trips) and sends back the counts. RQ's
own bookkeeping around the job (dequeue, registries, heartbeats) is not
counted: it is the same before and after, and not gameroom's.

**Warm human move.** A Nim match between two people through the Flask app
(``create_app``, test client): after two moves that warm the process's caches,
the round trips of each further ``POST .../moves`` are counted.

Counts are exact and deterministic (the games' randomness aside); no timing is
involved. Run ``python bench/bench_ai_roundtrips.py`` (a few seconds); ``--json``
writes the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the work horse imports this module by name

from _common import redis_for_bench, run_facts  # noqa: E402

QUEUE = "gameroom-bench-roundtrips"
GAMES = ["nim", "tic-tac-toe", "stars-are-right", "look-at-the-stars", "tiny-stellar-empires"]


def _state():
    """The counts and the roles, kept on redis-py's connection class: this file runs as ``__main__``
    and is imported again, as ``bench_ai_roundtrips``, by the work horse; both must share them."""
    from redis.connection import AbstractConnection

    if not hasattr(AbstractConnection, "_bench_state"):
        AbstractConnection._bench_state = {"counts": None, "roles": {}}  # type: ignore[attr-defined]
    return AbstractConnection._bench_state  # type: ignore[attr-defined]


def _role(connection) -> str:
    where = getattr(connection, "path", None) or f"{connection.host}:{connection.port}"
    return _state()["roles"].get(str(where), "other")


def _count(connection, packed) -> None:
    """One round trip on ``connection`` carrying ``packed``, if counting."""
    counts = _state()["counts"]
    if counts is not None:
        role = _role(connection)
        counts[role] = counts.get(role, 0) + 1
        if _state().get("trace"):
            counts.setdefault(f"{role} commands", []).append(_names(packed))


def _install_counter() -> None:
    """Count every round trip of this process (and of the processes it forks) by role: redis-py's
    sends, and gameroom's direct connections' own (``Direct._write``, on a connected socket)."""
    from redis.connection import AbstractConnection

    from gameroom.eventstore.direct import Direct

    if getattr(AbstractConnection, "_bench_counted", False):
        return
    original, write = AbstractConnection.send_packed_command, Direct._write

    def counted(self, command, check_health=True):
        _count(self, command)
        return original(self, command, check_health)

    def written(connection, sock, data):
        _count(connection, data)
        return write(connection, sock, data)

    AbstractConnection.send_packed_command = counted  # type: ignore[method-assign]
    Direct._write = staticmethod(written)  # type: ignore[method-assign]
    AbstractConnection._bench_counted = True  # type: ignore[attr-defined]


def _names(packed) -> str:
    """The command names in a packed request (several for a pipeline), e.g. ``MULTI+XADD+EXEC``."""
    data = b"".join(bytes(chunk) for chunk in packed) if isinstance(packed, list) else bytes(packed)
    parts = data.split(b"\r\n")
    return "+".join(
        parts[i + 2].decode(errors="replace") for i, p in enumerate(parts[:-2]) if p.startswith(b"*")
    )


@contextlib.contextmanager
def counting():
    counts: dict = {}
    _state()["counts"] = counts
    try:
        yield counts
    finally:
        _state()["counts"] = None


def counted_turn(job) -> dict:
    """What a work horse does with AI job ``job`` (``play_ai_turn``'s body), with its round trips counted."""
    from gameroom.workers import jobs

    match_id, version, seat = job.args
    with counting() as counts:
        result = jobs.play_turn(jobs.job_matches(job), match_id, version, seat, job.id)
    return {"result": result, "counts": dict(counts)}


def in_work_horse(function, *args) -> dict:
    """``function(*args)`` in a forked child, as RQ's worker runs a job in a work horse."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        try:
            payload = json.dumps(function(*args)).encode()
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            payload = json.dumps({"error": repr(exc)}).encode()
        with os.fdopen(write, "wb") as out:
            out.write(payload)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as got:
        data = got.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def prepare_worker_process(events_url: str, queue_url: str) -> None:
    """What ``gameroom worker`` does once per process, before it forks work horses."""
    from gameroom.workers import worker

    worker.prepare(events_url, QUEUE, queue_url)


def _where(url: str) -> str:
    if url.startswith("unix://"):
        return url[len("unix://") :].split("?")[0]
    from urllib.parse import urlparse

    parsed = urlparse(url)
    return f"{parsed.hostname}:{parsed.port or 6379}"


def ai_turn(slug: str, events_url: str, queue_url: str) -> dict:
    import redis

    from gameroom.composition import matches_on
    from gameroom.eventstore import keys
    from gameroom.registry import build_registry
    from gameroom.workers.scheduler import JOB_FUNCTION, queue_for

    events, queue_client = redis.Redis.from_url(events_url), redis.Redis.from_url(queue_url)
    registry = build_registry()
    game = registry.get(slug)
    setup = matches_on(events, registry)  # no scheduler: no job yet
    n = max(2, game.info.min_players)
    loaded, _tokens = setup.create(slug, [{"name": f"AI {i}", "ai": "random"} for i in range(n)])
    seat = game.active_seats(loaded.folded.state)[0]
    job_id = keys.ai_job_id(loaded.record.id, loaded.version, seat)
    job = queue_for(queue_client, QUEUE).enqueue(
        JOB_FUNCTION, loaded.record.id, loaded.version, seat, job_id=job_id
    )
    value = in_work_horse(counted_turn, job)
    if value.get("result", {}).get("status") != "applied":
        raise SystemExit(f"{slug}: the AI job did not apply a move: {value}")
    return value["counts"]


def human_move(events_url: str, queue_url: str, moves: int = 3) -> list[dict]:
    from gameroom import create_app

    app = create_app({"redis_url": events_url, "queue_redis_url": queue_url, "ai_mode": "rq"})
    client = app.test_client()
    r = client.post("/api/matches", json={"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
    data = r.get_json()
    match_id, tokens = data["match"]["id"], {int(k): v for k, v in data["tokens"].items()}
    counts = []
    for i in range(2 + moves):
        for seat in (0, 1):  # whose turn it is
            headers = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = client.get(f"/api/matches/{match_id}/legal-moves", headers=headers).get_json()["moves"]
            if legal:
                break
        with counting() as seen:
            r = client.post(f"/api/matches/{match_id}/moves", json={"move": legal[0]}, headers=headers)
        if r.status_code != 201:
            raise SystemExit(f"human move refused: {r.status_code} {r.get_json()}")
        if i >= 2:
            counts.append(dict(seen))
    return counts


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="bench_ai_roundtrips.py",
        description="Count the Redis round trips of one AI turn per game (run by a real gameroom "
        "worker) and of a warm human move (through the Flask app), on two throwaway redis-servers.",
    )
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated game slugs")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--trace", action="store_true", help="also list the commands of each round trip")
    args = parser.parse_args(argv)
    _install_counter()
    _state()["trace"] = args.trace
    rows = {}
    # No fsync: the counts do not depend on it, and a shared disk makes fsyncs slow.
    with (
        redis_for_bench(None, "no") as (events_url, events_client),
        redis_for_bench(None, "no") as (queue_url, _q),
    ):
        _state()["roles"].update({_where(events_url): "events", _where(queue_url): "queue"})
        prepare_worker_process(events_url, queue_url)
        for slug in args.games.split(","):
            rows[slug] = ai_turn(slug, events_url, queue_url)
        human = human_move(events_url, queue_url)
        facts = run_facts(events_client())
    print(f"{'AI turn of':24} {'events RTs':>10} {'queue RTs':>10}")
    for slug, counts in rows.items():
        print(f"{slug:24} {counts.get('events', 0):>10} {counts.get('queue', 0):>10}")
        for role in ("events", "queue"):
            if f"{role} commands" in counts:
                print(f"    {role}: " + ", ".join(counts[f"{role} commands"]))
    print(
        f"{'warm human move (nim)':24} "
        + ", ".join(f"{c.get('events', 0)}/{c.get('queue', 0)}" for c in human)
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"facts": facts, "ai_turn": rows, "human_move": human}, indent=2)
        )


if __name__ == "__main__":
    main()
