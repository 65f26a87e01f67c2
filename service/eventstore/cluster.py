"""gameroom's Redis Cluster client: redis-py's, with what it lacks to live through outages.

:class:`GameroomCluster` is redis-py's ``RedisCluster`` with four changes:

- **It connects on first use, not when built**, and a cluster it cannot use
  yet (no node answers; nodes up, but the cluster not created or not every
  slot served) is :class:`ClusterUnavailable`, a ``redis.ConnectionError``:
  the API boots and answers ``503 redis-unavailable`` until the cluster is
  whole, then works without a restart; a worker waits for it. redis-py's
  client connects in its constructor and raises a ``RedisClusterException``
  (which nothing maps to an outage), so a process whose cluster was not up
  yet (Kubernetes starts the API with the Job that creates the cluster)
  failed to start. A failed attempt is tried again at most every
  :data:`RETRY_EVERY` seconds; meanwhile every use fails at once.
- **A whole cluster gone at run time is one too**: redis-py refreshes its
  view of the cluster after a connection error and, when no node answers,
  raises ``RedisClusterException`` from the refresh.
- **XREAD is routed without asking a server.** XREAD's keys have no fixed
  position ("movable keys"), so redis-py asks a server where they are
  (``COMMAND GETKEYS``), always its *default node* (a master picked at the
  start), and it does so before its error handling, which would replace a
  default node that does not answer. Once that master died, every XREAD
  of the process failed until it came back, long after a replica had taken
  over its slots: every live stream of an API process stalled (the stream
  hub reads with XREAD). XREAD's keys are read from its arguments here.
- **Any other command with movable keys** whose lookup finds the default
  node dead gets another node as default, as redis-py does for a command
  sent to it, and its keys are looked up there.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import redis
from redis._parsers.commands import CommandsParser
from redis.cluster import ClusterNode, NodesManager, RedisCluster
from redis.connection import Encoder
from redis.exceptions import ClusterDownError, RedisClusterException, SlotNotCoveredError

#: Seconds between two attempts to connect to a cluster that could not be used.
RETRY_EVERY = 1.0


class ClusterUnavailable(redis.ConnectionError):
    """The cluster cannot be used now: no node answers, or not every slot is served."""


class GameroomCluster(RedisCluster):
    """redis-py's cluster client, retrying a command only where it cannot have run twice, and
    connecting lazily (see the module docstring).

    ``startup``: ``(host, port)`` of the startup nodes; ``options``: ``RedisCluster``'s.
    """

    ERRORS_ALLOW_RETRY = (redis.ConnectionError, ClusterDownError, SlotNotCoveredError)  # type: ignore[assignment]

    def __init__(self, startup: list[tuple[str, int]], **options: Any):
        self._startup = list(startup)
        self._options = options
        self._ready = False
        self._connecting = threading.Lock()
        self._connector: int | None = None  # the thread now connecting
        self._retry_at = 0.0
        self._failure = ""
        # Known without a server, and asked for before any command (a script's digest).
        self.encoder = Encoder(
            options.get("encoding", "utf-8"),
            options.get("encoding_errors", "strict"),
            options.get("decode_responses", False),
        )

    def __getattr__(self, name: str) -> Any:
        # Reached only for an attribute that is not there: before the first connection, every
        # attribute redis-py's constructor sets. Connect, then look again.
        state = self.__dict__
        if (
            name.startswith("__")
            or state.get("_ready", True)
            or state.get("_connector") == threading.get_ident()
        ):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self._connect()
        return getattr(self, name)

    def _connect(self) -> None:
        """Run redis-py's constructor (it discovers the cluster); :class:`ClusterUnavailable` unless
        the cluster is whole."""
        with self._connecting:
            if self._ready:
                return
            now = time.monotonic()
            if now < self._retry_at:
                raise ClusterUnavailable(self._failure)
            offline = set(self.__dict__)
            self._connector = threading.get_ident()
            try:
                nodes = [ClusterNode(host, port) for host, port in self._startup]
                RedisCluster.__init__(self, startup_nodes=nodes, **self._options)
            except (RedisClusterException, redis.RedisError) as exc:
                self._forget(offline)
                self._retry_at = now + RETRY_EVERY
                self._failure = f"Redis Cluster unavailable: {exc}"
                raise ClusterUnavailable(self._failure) from exc
            finally:
                self._connector = None
            # redis-py makes its own; these only add behaviour (see the module docstring).
            self.nodes_manager.__class__ = _NodesManager
            self.commands_parser = _CommandKeys(self, self.commands_parser.commands)
            self._ready = True

    def _forget(self, offline: set[str]) -> None:
        """Undo a constructor that failed half-way: back to the state before it, its connections closed."""
        manager = self.__dict__.get("nodes_manager")
        if manager is not None:
            manager.close()
        for name in set(self.__dict__) - offline:
            del self.__dict__[name]

    def close(self) -> None:
        if self._ready:
            super().close()


class _NodesManager(NodesManager):
    """redis-py's, but a refresh that finds no usable cluster raises :class:`ClusterUnavailable`."""

    def initialize(self, *args, **kwargs) -> None:
        try:
            super().initialize(*args, **kwargs)
        except RedisClusterException as exc:  # no node answers; slots not all served; nodes disagree
            raise ClusterUnavailable(f"Redis Cluster unavailable: {exc}") from exc


class _CommandKeys(CommandsParser):
    """redis-py's key lookup, XREAD's keys read from its arguments, and a lookup on a dead default
    node tried again on another node."""

    def __init__(self, cluster: RedisCluster, commands: dict):  # the commands are known: no COMMAND again
        self.redis_connection = cluster
        self.commands = commands

    def get_keys(self, redis_conn, *args):
        if args and _name(args[0]) == "XREAD":
            found = xread_keys(args)
            if found is not None:
                return found
        try:
            return super().get_keys(redis_conn, *args)
        except (redis.ConnectionError, redis.TimeoutError):
            cluster = self.redis_connection
            if cluster.get_default_node().redis_connection is redis_conn:
                cluster.replace_default_node()
            other = cluster.get_default_node().redis_connection
            if other is redis_conn:  # no other node to ask
                raise
            return super().get_keys(other, *args)


def xread_keys(args: tuple) -> list | None:
    """The keys of ``XREAD [COUNT n] [BLOCK ms] STREAMS key... id...``; None if it is not that."""
    position = 1
    while position < len(args) and _name(args[position]) in ("COUNT", "BLOCK"):
        position += 2
    if position >= len(args) or _name(args[position]) != "STREAMS":
        return None
    streams = args[position + 1 :]
    if not streams or len(streams) % 2:
        return None
    return list(streams[: len(streams) // 2])


def _name(arg: Any) -> str:
    if isinstance(arg, bytes):
        return arg.decode("latin-1").upper()
    return str(arg).upper()
