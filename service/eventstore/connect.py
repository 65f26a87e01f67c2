"""How gameroom connects to its Redis servers: one function, :func:`connect`.

Every process (API, worker, CLI, tests) gets its clients here, through the
composition root (:mod:`gameroom.composition`), so a new kind of backend
(Redis Cluster for the events) changes this module and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from . import connection_options


@dataclass(frozen=True)
class Clients:
    """The Redis clients of one process.

    ``events``: the request path's client of the events Redis (timeouts, a
    blocking pool); ``blocking``: the events Redis for blocking reads (XREAD
    BLOCK: connect timeout only); ``queue``: RQ's queue (AI jobs, clock
    timeouts), ``events`` itself when no other queue Redis is configured.
    """

    events: redis.Redis
    blocking: redis.Redis
    queue: redis.Redis


def connect(config, url: str) -> Clients:
    """The clients of a process configured by ``config`` on the events Redis at ``url``.

    The request path's clients have socket and connect timeouts of
    ``redis_timeout`` and retry only a broken connection, once and at once
    (redis-py's default retries ten times with backoff, also on timeouts): a
    frozen or dead Redis costs a request at most about ``redis_timeout`` and
    then a 503 (gameroom.api.problems). Their pools block (up to
    ``redis_pool_timeout`` seconds) when all of their ``redis_max_connections``
    are busy, rather than failing: under gevent a burst of requests is a burst
    of concurrent Redis users. A blocking read (XREAD BLOCK) waits longer than
    ``redis_timeout`` by design, so it has a client with the connect timeout
    only. The queue's client (``queue_redis_url``; RQ needs a plain primary)
    has the request path's options.
    """
    request, blocking = connection_options(config.redis_timeout)

    def pooled(target: str) -> redis.Redis:
        pool = redis.BlockingConnectionPool.from_url(
            target, max_connections=config.redis_max_connections, timeout=config.redis_pool_timeout, **request
        )
        return redis.Redis(connection_pool=pool)

    events = pooled(url)
    queue = (
        events
        if not config.queue_redis_url or config.queue_redis_url == url
        else pooled(config.queue_redis_url)
    )
    return Clients(events, redis.Redis.from_url(url, **blocking), queue)
