"""WAIT for replicas before a move is acknowledged (``GAMEROOM_REDIS_WAIT_REPLICAS``).

Redis replicates asynchronously: a primary answers an append before any
replica has it, so a primary that dies right then takes acknowledged moves
with it, and a replica promoted in its place (Sentinel, Cluster failover)
does not have them. With ``redis_wait_replicas`` = *n* > 0 the event store
follows every append with ``WAIT n timeout`` on the same connection, in the
same round trip (WAIT waits for the last write of the connection it is sent
on, so it must not go through another pooled connection), and on a cluster
on the match's master.

WAIT is not a transaction: when fewer than *n* replicas confirm within the
timeout, the entry is still in the primary's log (readers and live streams
may already have it), and a later failover may or may not lose it. So the
request still succeeds; what it got is reported in the response header
``Gameroom-Replicas: <acknowledged>/<wanted>`` and a WARNING is logged (see
deploy/redis.md, "Replicas and WAIT"). Redis 6.2 (the embedded server's) has
no ``WAITAOF``; Redis 7.2+ could also wait for the local fsync that way.
"""

from __future__ import annotations

import contextvars
import logging

import redis
from redis.exceptions import AskError, ClusterDownError, MovedError, TryAgainError

log = logging.getLogger(__name__)

#: What WAIT reported for this request's appends: ``(fewest acknowledged, wanted)``, or None.
_OUTCOME: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar(
    "gameroom_replicas", default=None
)
#: A slot that moved (failover, resharding) while we held the old master's connection.
_REDIRECTS = (MovedError, AskError, TryAgainError, ClusterDownError)


def client_of(client, key: str):
    """The client whose connections reach the master of ``key``: ``client`` itself unless a cluster."""
    if isinstance(client, redis.RedisCluster):
        return client.get_redis_connection(client.get_node_from_key(key))
    return client


def execute(pipe, client) -> list:
    """``pipe.execute()``. On a cluster, a slot that moved away from the node, or a node that
    does not answer, is a 503 (the client retries) and the cluster client learns the new
    layout, so that the next request goes to the new master."""
    try:
        return pipe.execute()
    except (*_REDIRECTS, redis.ConnectionError, redis.TimeoutError) as exc:
        if not isinstance(client, redis.RedisCluster):
            raise
        try:
            if isinstance(exc, MovedError):
                client.nodes_manager.move_slot(exc)
            else:
                client.nodes_manager.initialize()
        except redis.RedisError:
            pass  # the cluster is still electing: the next request tries again
        if isinstance(exc, _REDIRECTS):
            raise redis.ConnectionError(f"the match's slot moved: {exc}") from exc
        raise


def acknowledged(match_id: str, version: int, acked: int, wanted: int) -> None:
    """Record what WAIT said of an append (the request's fewest), and warn when short."""
    current = _OUTCOME.get()
    _OUTCOME.set((min(acked, current[0]) if current else acked, wanted))
    if acked < wanted:
        log.warning(
            "match %s version %d: %d of %d replicas acknowledged the append in time",
            match_id,
            version,
            acked,
            wanted,
        )


def outcome() -> tuple[int, int] | None:
    """What WAIT said of this request's appends so far: ``(fewest acknowledged, wanted)``, or None."""
    return _OUTCOME.get()


def reset() -> None:
    """Forget the previous request's outcome (a pooled thread or greenlet serves many)."""
    _OUTCOME.set(None)
