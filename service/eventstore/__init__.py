"""The only code that talks to Redis about matches and events."""

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from .redis_streams import AppendResult, EventStore

#: What a client sees when Redis is down, frozen or still loading: the API answers 503.
UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError)


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


__all__ = ["AppendResult", "EventStore", "UNAVAILABLE", "connection_options"]
