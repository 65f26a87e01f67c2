"""A real Redis primary with replicas, on local TCP ports (replication needs TCP).

Started from the same redis-server binary as the embedded default, with the
embedded default's durability (AOF, ``appendfsync always``)::

    with ReplicatedRedis(tmp_path, replicas=1) as servers:
        servers.primary_url, servers.replica_clients()[0]

Load the fixture ``replicated_redis`` with ``pytest_plugins =
["gameroom.testing.replicated"]`` (a primary and one replica per module).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

from ..eventstore.embedded import find_redis_server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ReplicatedRedis:
    """A primary and ``replicas`` replicas of it, each in a folder of ``base``."""

    def __init__(self, base: str | os.PathLike, *, replicas: int = 1, appendfsync: str = "always"):
        self.base = Path(base)
        self.ports = [free_port() for _ in range(1 + replicas)]
        self.appendfsync = appendfsync
        self.processes: list[subprocess.Popen] = []

    @property
    def primary_url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def primary_client(self) -> redis.Redis:
        return redis.Redis(port=self.ports[0])

    def replica_clients(self) -> list[redis.Redis]:
        return [redis.Redis(port=port) for port in self.ports[1:]]

    def _start(self, index: int) -> subprocess.Popen:
        folder = self.base / f"redis-{index}"
        folder.mkdir(parents=True, exist_ok=True)
        args = [
            find_redis_server(),
            "--port", str(self.ports[index]),
            "--bind", "127.0.0.1",
            "--dir", str(folder),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--maxmemory-policy", "noeviction",
            "--logfile", str(folder / "redis.log"),
        ]  # fmt: skip
        if index:
            args += ["--replicaof", "127.0.0.1", str(self.ports[0])]
        return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start(self) -> ReplicatedRedis:
        self.processes = [self._start(i) for i in range(len(self.ports))]
        self.wait_synced()
        return self

    def wait_synced(self, timeout: float = 30.0) -> None:
        """Wait until every replica's link to the primary is up."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                info = self.primary_client().info("replication")
                if info.get("connected_slaves") == len(self.ports) - 1 and all(
                    r.info("replication").get("master_link_status") == "up" for r in self.replica_clients()
                ):
                    return
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the replicas did not sync with the primary in time")
            time.sleep(0.05)

    def pause_replica(self, index: int = 0) -> None:
        """Freeze a replica (SIGSTOP): it acknowledges nothing until :meth:`resume_replica`."""
        self.processes[1 + index].send_signal(signal.SIGSTOP)

    def resume_replica(self, index: int = 0) -> None:
        self.processes[1 + index].send_signal(signal.SIGCONT)

    def stop(self) -> None:
        for proc in self.processes:
            proc.send_signal(signal.SIGCONT)
            proc.terminate()
        for proc in self.processes:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def __enter__(self) -> ReplicatedRedis:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@pytest.fixture(scope="module")
def replicated_redis(tmp_path_factory):
    """A real primary with one replica (TCP on 127.0.0.1), for one test module."""
    with ReplicatedRedis(tmp_path_factory.mktemp("replicated")) as servers:
        yield servers
