"""How gameroom connects to its Redis servers: :func:`connect`, the one function every
process (API, worker, CLI, tests) gets its clients from, through the composition root
(:mod:`gameroom.composition`).

The events Redis is a single server (``redis://``, ``unix://``) or a Redis Cluster.

A cluster is configured, not guessed: ``GAMEROOM_REDIS_URL`` names it with
the scheme ``redis+cluster://`` (``rediss+cluster://`` for TLS) and one or
more startup nodes, ``redis+cluster://[user:password@]host:port[,host:port...]``.
The client learns the rest of the cluster from them. With any other scheme
the URL is one server, as before (redis-py's ``from_url``).

A cluster client never retries a command after a timeout (it may have been
executed: an append retried blindly could be applied twice; the API answers
503 instead), as the single server's client; it follows MOVED/ASK
redirections and retries after a connection error or while a failover leaves
slots uncovered (redis-py's cluster handling). It routes XREAD by its own
keys, connects on first use, and a cluster that is not reachable or not whole
yet is an outage like a Redis that is down (:mod:`gameroom.eventstore.cluster`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from .cluster import GameroomCluster

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


class ClusterURLError(ValueError):
    pass


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://``, ``rediss+cluster://``)."""
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES


def is_cluster(client: Any) -> bool:
    """Whether ``client`` talks to a Redis Cluster."""
    return isinstance(client, RedisCluster)


def parse_cluster_url(url: str) -> tuple[list[tuple[str, int]], dict]:
    """``(startup nodes, client options)`` of a ``redis+cluster://`` URL."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in CLUSTER_SCHEMES:
        raise ClusterURLError(f"not a Redis Cluster URL (redis+cluster://host:port,...): {url!r}")
    options: dict = {}
    if scheme.lower().startswith("rediss"):
        options["ssl"] = True
    rest, _, query = rest.partition("?")
    netloc = rest.split("/", 1)[0]
    if "@" in netloc:
        credentials, netloc = netloc.rsplit("@", 1)
        user, has_password, password = credentials.partition(":")
        if has_password:
            options["password"] = unquote(password)
            if user:
                options["username"] = unquote(user)
        elif user:
            options["password"] = unquote(user)
    nodes = []
    for part in netloc.split(","):
        host, colon, port = part.strip().rpartition(":")
        ascii_digits = port.isascii() and port.isdigit() and len(port) <= 5  # not '²', not 5000 digits
        if not colon or not host or not ascii_digits or not 0 < int(port) < 65536:
            raise ClusterURLError(f"a cluster node must be host:port, not {part!r} (in {url!r})")
        nodes.append((host.strip("[]"), int(port)))
    for name, value in parse_qsl(query):
        if name in ("socket_timeout", "socket_connect_timeout"):
            options[name] = float(value)
        else:
            raise ClusterURLError(f"unknown option {name!r} in the cluster URL {url!r}")
    return nodes, options


def cluster_client(url: str, *, pool_timeout: float | None = None, **kwargs) -> GameroomCluster:
    """A cluster client on the startup nodes of ``url``; ``kwargs``: redis-py connection options
    (``max_connections`` is per node).

    ``pool_timeout``: each node's pool blocks up to that many seconds for a free connection when
    all ``max_connections`` are busy, as the single server's pool does, rather than failing at once
    (not with TLS, where redis-py's default pool is kept)."""
    nodes, options = parse_cluster_url(url)
    kwargs.pop("retry", None)  # the cluster client retries at its own level (see the module docstring)
    if pool_timeout is not None and not options.get("ssl"):
        # redis-py uses connection_pool_class only for a client made from a URL: give it the first node's.
        (host, port), rest = nodes[0], nodes[1:]
        return GameroomCluster(
            rest,
            url=f"redis://{host}:{port}",
            connection_pool_class=redis.BlockingConnectionPool,
            timeout=pool_timeout,
            **{**options, **kwargs},
        )
    return GameroomCluster(nodes, **{**options, **kwargs})


def client_from_url(url: str, **kwargs) -> Any:
    """A client of the events Redis at ``url``: :func:`cluster_client` for a cluster URL, else
    ``redis.Redis.from_url``."""
    if is_cluster_url(url):
        return cluster_client(url, **kwargs)
    return redis.Redis.from_url(url, **kwargs)


def check_redis_url(url: str, name: str) -> None:
    """Refuse (:class:`~gameroom.config.ConfigError`, naming the setting ``name``) a Redis URL no
    client can use, before anything starts: else every worker fails on it."""
    from ..config import ConfigError

    try:
        if is_cluster_url(url):
            parse_cluster_url(url)
        else:
            redis.Redis.from_url(url)
    except ValueError as exc:  # ClusterURLError is one too
        raise ConfigError(f"{name} is not a Redis URL: {exc}") from None


def refuse_cluster_queue(queue_url: str | None, events_url: str = "") -> None:
    """RQ needs a plain Redis: refuse a cluster for the queue, naming the setting that makes it one.

    ``queue_url``: the queue's own URL (``GAMEROOM_QUEUE_REDIS_URL``, ``--queue-url``); when none
    is set, the queue is the events Redis, ``events_url`` (``GAMEROOM_REDIS_URL``, ``--url``)."""
    if queue_url:
        if is_cluster_url(queue_url):
            raise ClusterURLError(
                "RQ's queue needs a plain Redis, not a cluster: GAMEROOM_QUEUE_REDIS_URL (--queue-url) "
                "names a Redis Cluster; set it to a single Redis server"
            )
    elif is_cluster_url(events_url):
        raise ClusterURLError(
            "RQ's queue needs a plain Redis, not a cluster: set GAMEROOM_QUEUE_REDIS_URL to a "
            "single Redis server (GAMEROOM_REDIS_URL is a cluster, and the queue defaults to it)"
        )


@dataclass(frozen=True)
class Clients:
    """The Redis clients of one process.

    ``events``: the request path's client of the events Redis (timeouts, a
    blocking pool; a cluster client on a cluster); ``blocking``: the events
    Redis for blocking reads (XREAD BLOCK: connect timeout only); ``queue``:
    RQ's queue (AI jobs, clock timeouts), ``events`` itself when no other
    queue Redis is configured; None on a cluster with no queue Redis configured.
    """

    events: Any
    blocking: Any
    queue: redis.Redis | None

    def ping_queue(self) -> None:
        """Raise (a :data:`gameroom.eventstore.UNAVAILABLE` error) unless the queue Redis answers now
        (nothing to ask when there is no queue client)."""
        if self.queue is not None:
            self.queue.ping()


def connection_options(timeout: float) -> tuple[dict, dict]:
    """redis-py options of the request path's client and of the blocking-read client.

    Both connect within ``timeout`` seconds and retry a broken connection once,
    at once (a Redis that restarted); the request path's also gives up on a
    reply after ``timeout`` seconds, and never retries a timeout.
    """

    def retry():
        return Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))

    request = {"socket_timeout": timeout, "socket_connect_timeout": timeout, "retry": retry()}
    blocking = {"socket_connect_timeout": timeout, "retry": retry()}
    return request, blocking


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
    only. The queue's client (``queue_redis_url``; RQ needs a plain primary,
    so a cluster URL is refused) has the request path's options.
    """
    if config.queue_redis_url:
        refuse_cluster_queue(config.queue_redis_url)
    request, blocking = connection_options(config.redis_timeout)

    def pooled(target: str) -> redis.Redis:
        pool = redis.BlockingConnectionPool.from_url(
            target, max_connections=config.redis_max_connections, timeout=config.redis_pool_timeout, **request
        )
        return redis.Redis(connection_pool=pool)

    if is_cluster_url(url):
        events: Any = cluster_client(
            url,
            max_connections=config.redis_max_connections,
            pool_timeout=config.redis_pool_timeout,
            **request,
        )
        reader: Any = cluster_client(url, **blocking)
    else:
        events, reader = pooled(url), redis.Redis.from_url(url, **blocking)
    if not config.queue_redis_url or config.queue_redis_url == url:
        # On a cluster there is no queue unless one is configured (RQ needs a plain Redis): a
        # process that schedules AI turns or clocks is refused (gameroom.composition).
        queue = None if is_cluster_url(url) else events
    else:
        queue = pooled(config.queue_redis_url)
    return Clients(events, reader, queue)
