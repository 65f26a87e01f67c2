"""Kill a Redis Cluster master under move load: what clients see, and which acknowledged moves are lost.

    .venv/bin/python bench/bench_failover.py                   # without and with WAIT; ~2 min
    .venv/bin/python bench/bench_failover.py --wait 1 --runs 3 # only with WAIT 1, three kills

For each setting of ``GAMEROOM_REDIS_WAIT_REPLICAS`` in ``--wait`` and each of
``--runs`` runs: a fresh local Redis Cluster (3 masters + 3 replicas,
``gameroom.testing.cluster.LocalCluster``; ``cluster-node-timeout`` from
``--node-timeout-ms``, AOF with ``--appendfsync``) and a real ``gameroom
serve`` on it (gunicorn, gevent, ``--workers`` processes; AI off). ``--clients``
threads, each with its own keep-alive connection, play nim moves over HTTP on
their own matches as fast as the server answers (each move with a fresh
``Idempotency-Key``). After ``--before`` seconds the master that serves the
most of those matches is SIGKILLed; the cluster promotes its replica; the
load goes on ``--after`` seconds after the promotion.

Reported per run: the moves acknowledged (201) before and after the kill;
every other answer by status and problem code (and transport errors); how
long the promotion took; the longest outage a match saw (from the kill to its
first acknowledged move after it, over the matches of the killed master); and
the acknowledged moves lost: after the run, every 201 is checked against the
logs through a fresh cluster client (its idempotency record must hold the
acknowledged version, and the log must reach that version).
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import shutil
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from _common import run_facts, write_json

from gameroom.eventstore import keys
from gameroom.eventstore.connect import client_from_url
from gameroom.eventstore.redis_streams import parse_idempotency
from gameroom.testing.cluster import LocalCluster
from gameroom.testing.served import Served

PILES = [20] * 8  # 160 stones: a match takes up to 158 moves before a new one is needed
MAX_MOVES = sum(PILES) - 2


class Client(threading.Thread):
    """One player connection: moves on its own matches, round robin, until told to stop."""

    def __init__(self, port: int, matches: int, stop: threading.Event, log: list):
        super().__init__(daemon=True)
        self.port, self.count, self.stop, self.log = port, matches, stop, log
        self.conn = None
        self.matches: list[dict] = []
        #: (match id, version, seat, idempotency key, time, Gameroom-Replicas header or None)
        self.acked: list[tuple] = []
        self.replicas: str | None = None
        self.errors: collections.Counter = collections.Counter()

    def _call(self, method: str, path: str, body=None, token=None, key=None):
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if key:
            headers["Idempotency-Key"] = key
        try:
            self.conn.request(method, path, json.dumps(body) if body is not None else None, headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.conn.close()
            self.conn = None
            return None, type(exc).__name__
        self.replicas = response.getheader("Gameroom-Replicas")
        try:
            return response.status, json.loads(data) if data else {}
        except ValueError:
            return response.status, {}

    def new_match(self) -> dict | None:
        status, body = self._call(
            "POST",
            "/api/matches",
            {"game": "nim", "seats": [{"name": "A"}, {"name": "B"}], "options": {"piles": PILES}},
        )
        if status != 201:
            self.errors[("create", status, body if status is None else body.get("code"))] += 1
            return None
        match = {"id": body["match"]["id"], "tokens": body["tokens"], "version": None, "seat": None}
        self.refresh(match)
        return match

    def refresh(self, match: dict) -> None:
        status, body = self._call("GET", f"/api/matches/{match['id']}")
        if status == 200:
            match["version"] = body["version"]
            match["seat"] = body["active_seats"][0] if body["active_seats"] else None

    def setup(self) -> None:
        while len(self.matches) < self.count:
            made = self.new_match()
            if made:
                self.matches.append(made)

    def run(self) -> None:
        while not self.stop.is_set():
            for i, match in enumerate(self.matches):
                if self.stop.is_set():
                    break
                if match["version"] is None or match["seat"] is None:
                    self.refresh(match)
                    continue
                if match["version"] > MAX_MOVES:
                    self.matches[i] = self.new_match() or match
                    continue
                self.move(match)

    def move(self, match: dict) -> None:
        version, seat = match["version"], match["seat"]
        pile = next(p for p in range(len(PILES)) if (version - 1) < 20 * (p + 1))
        key = uuid.uuid4().hex
        status, body = self._call(
            "POST",
            f"/api/matches/{match['id']}/moves",
            {"move": {"type": "take", "pile": pile, "count": 1}},
            token=match["tokens"][str(seat)],
            key=key,
        )
        now = time.monotonic()
        if status == 201:
            self.acked.append((match["id"], body["version"], seat, key, now, self.replicas))
            match["version"], match["seat"] = body["version"], 1 - seat
            return
        code = body if status is None else (body.get("code") if isinstance(body, dict) else None)
        self.errors[("move", status, code)] += 1
        self.log.append((now, match["id"], status, code))
        self.refresh(match)


def lost_moves(url: str, acked: list[tuple]) -> list[tuple]:
    """The acknowledged moves whose entry is not in the log (checked through a fresh client)."""
    client = client_from_url(url, socket_timeout=30)
    lost = []
    length: dict = {}
    for match_id, version, seat, key, _t, replicas in acked:
        raw = client.hget(keys.idempotency(match_id), f"{seat}:{key}")
        if match_id not in length:
            length[match_id] = int(client.xlen(keys.events(match_id)))
        if raw is None or parse_idempotency(raw)[0] != version or length[match_id] < version:
            lost.append((match_id, version, replicas))
    client.close()
    return lost


def run_mode(args, wait: int, lag_ms: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="gameroom-bench-failover-"))
    try:
        # cluster-replica-validity-factor 0: a replica that restarted (the lagging-replica scenario)
        # may still be promoted; Redis' default (10) refuses one out of touch for 10 node timeouts.
        cluster = LocalCluster(
            tmp / "cluster",
            node_timeout_ms=args.node_timeout_ms,
            appendfsync=args.appendfsync,
            extra_args=["--cluster-replica-validity-factor", "0"],
        )
        return _measure(args, wait, lag_ms, tmp, cluster)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _measure(args, wait: int, lag_ms: int, folder: Path, cluster: LocalCluster) -> dict:
    cluster.start()
    env = {
        "GAMEROOM_REDIS_URL": cluster.url,
        "GAMEROOM_AI_MODE": "off",
        "GAMEROOM_REDIS_WAIT_REPLICAS": str(wait),
        "GAMEROOM_REDIS_WAIT_TIMEOUT_MS": str(args.wait_timeout_ms),
        "GAMEROOM_LOG_LEVEL": "WARNING",
    }
    try:
        with Served(folder / "serve", workers=args.workers, ai_workers=0, env=env) as server:
            stop = threading.Event()
            log: list = []
            clients = [Client(server.port, args.matches_per_client, stop, log) for _ in range(args.clients)]
            for c in clients:
                c.setup()
            owned = [m["id"] for c in clients for m in c.matches]
            by_master = collections.Counter(cluster.master_of(keys.events(m)).port for m in owned)
            victim = cluster.node(by_master.most_common(1)[0][0])
            on_victim = {m for m in owned if cluster.master_of(keys.events(m)).port == victim.port}
            for c in clients:
                c.start()
            time.sleep(args.before)
            if lag_ms:  # the victim's replica falls behind just before the kill (see --replica-lag-ms)
                [replica] = [
                    n
                    for n in cluster.replicas()
                    if n.alive and int(n.info("replication")["master_port"]) == victim.port
                ]
                cluster.pause(replica)
                time.sleep(lag_ms / 1000)
            t_kill = time.monotonic()
            cluster.kill_master(victim)
            if lag_ms:
                # What was still in flight to the replica is lost with the master's host: the
                # replica restarts from its own AOF (everything it had applied, fsynced).
                cluster.kill(replica)
                cluster._spawn(replica)
                cluster._wait_answers(replica, time.monotonic() + 30)
            cluster.wait_failover(victim, timeout=120)
            t_promoted = time.monotonic()
            time.sleep(args.after)
            stop.set()
            for c in clients:
                c.join(60)
            t_end = time.monotonic()
        acked = [a for c in clients for a in c.acked]
        lost = lost_moves(cluster.url, acked)
    finally:
        cluster.stop()
    errors: collections.Counter = collections.Counter()
    for c in clients:
        errors.update(c.errors)
    first_after = {}
    for match_id, _v, _s, _k, t, _r in acked:
        if match_id in on_victim and t >= t_kill:
            first_after[match_id] = min(t, first_after.get(match_id, t))
    outages = [first_after.get(m, t_end) - t_kill for m in on_victim]
    return {
        "wait_replicas": wait,
        "acked_before_kill": sum(1 for a in acked if a[4] < t_kill),
        "acked_after_kill": sum(1 for a in acked if a[4] >= t_kill),
        "errors": {" ".join(map(str, k)): n for k, n in sorted(errors.items(), key=str)},
        "promotion_s": t_promoted - t_kill,
        "longest_outage_s": max(outages) if outages else 0.0,
        "matches": len(owned),
        "matches_on_killed_master": len(on_victim),
        "lost": len(lost),
        "lost_confirmed": sum(
            1 for _m, _v, r in lost if r is not None and r.split("/")[0] == r.split("/")[1]
        ),
        "acked_unconfirmed": sum(
            1 for a in acked if a[5] is not None and a[5].split("/")[0] != a[5].split("/")[1]
        ),
        "lost_examples": lost[:10],
        "replica_lag_ms": lag_ms,
    }


def table(runs: list[dict]) -> str:
    lines = [
        "| WAIT replicas | replica frozen before the kill | acked moves before / after the kill | other answers (what status code: count) | promotion s | longest outage s | acked with fewer replicas (header) | acked moves lost (of them confirmed by WAIT) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        errors = "; ".join(f"{k}: {v}" for k, v in r["errors"].items()) or "none"
        frozen = f"{r['replica_lag_ms']} ms" if r["replica_lag_ms"] else "no"
        lines.append(
            f"| {r['wait_replicas']} | {frozen} | {r['acked_before_kill']:,} / {r['acked_after_kill']:,} | {errors} | "
            f"{r['promotion_s']:.1f} | {r['longest_outage_s']:.1f} | {r['acked_unconfirmed'] if r['wait_replicas'] else '-'} | "
            f"**{r['lost']}** ({r['lost_confirmed'] if r['wait_replicas'] else '-'}) |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="bench_failover.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--wait", default="0,1", help="GAMEROOM_REDIS_WAIT_REPLICAS values to run (default: %(default)s)"
    )
    p.add_argument(
        "--runs",
        type=int,
        default=1,
        help="kills per WAIT value, each on a fresh cluster (default: %(default)s)",
    )
    p.add_argument("--clients", type=int, default=8, help="client threads (default: %(default)s)")
    p.add_argument(
        "--matches-per-client", type=int, default=4, help="matches each client plays (default: %(default)s)"
    )
    p.add_argument(
        "--before", type=float, default=5.0, help="seconds of load before the kill (default: %(default)s)"
    )
    p.add_argument(
        "--after", type=float, default=5.0, help="seconds of load after the promotion (default: %(default)s)"
    )
    p.add_argument(
        "--workers", type=int, default=2, help="gunicorn processes of the API (default: %(default)s)"
    )
    p.add_argument(
        "--node-timeout-ms",
        type=int,
        default=2000,
        help="cluster-node-timeout of every node (default: %(default)s)",
    )
    p.add_argument(
        "--wait-timeout-ms",
        type=int,
        default=1000,
        help="GAMEROOM_REDIS_WAIT_TIMEOUT_MS (default: %(default)s)",
    )
    p.add_argument(
        "--appendfsync",
        default="always",
        choices=["always", "everysec", "no"],
        help="AOF of every node (default: %(default)s)",
    )
    p.add_argument(
        "--replica-lag-ms",
        default="0,500",
        help="scenarios: 0 = SIGKILL the master as it is; N = a replica N ms behind: freeze (SIGSTOP) the "
        "master's replica N ms before the kill, and after it restart the replica from its own AOF, so that the "
        "replication stream in flight is lost with the master (default: %(default)s)",
    )
    p.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = p.parse_args(argv)
    waits = [int(w) for w in args.wait.split(",")]
    if any(w < 0 for w in waits) or args.runs < 1 or args.clients < 1 or args.matches_per_client < 1:
        p.error("--wait values must be >= 0 and the counts positive")
    lags = [int(x) for x in args.replica_lag_ms.split(",")]
    runs = []
    for _ in range(args.runs):
        for lag in lags:
            for wait in waits:
                print(
                    f"== WAIT {wait}, replica frozen {lag} ms before the kill: {args.clients} clients ...",
                    flush=True,
                )
                runs.append(run_mode(args, wait, lag))
                print(table(runs[-1:]).splitlines()[-1], flush=True)
    print("\n" + table(runs))
    if args.json:
        write_json(args.json, {"facts": run_facts(), "settings": vars(args), "runs": runs})
    return 0


if __name__ == "__main__":
    sys.exit(main())
