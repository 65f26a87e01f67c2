"""gameroom's Redis Cluster client: redis-py's, with what it lacks to live through outages.

:class:`GameroomCluster` is redis-py's ``RedisCluster`` with two changes:

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

from typing import Any

import redis
from redis._parsers.commands import CommandsParser
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import ClusterDownError, SlotNotCoveredError


class GameroomCluster(RedisCluster):
    """redis-py's cluster client, retrying a command only where it cannot have run twice (see the
    module docstring for the rest).

    ``startup``: ``(host, port)`` of the startup nodes; ``options``: ``RedisCluster``'s.
    """

    ERRORS_ALLOW_RETRY = (redis.ConnectionError, ClusterDownError, SlotNotCoveredError)  # type: ignore[assignment]

    def __init__(self, startup: list[tuple[str, int]], **options: Any):
        super().__init__(startup_nodes=[ClusterNode(host, port) for host, port in startup], **options)
        # redis-py makes its own; this one only adds behaviour (see the module docstring).
        self.commands_parser = _CommandKeys(self, self.commands_parser.commands)


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
