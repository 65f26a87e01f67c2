"""pytest fixtures: a throwaway real redis-server, started the way the app starts its own.

Load with ``pytest_plugins = ["gameroom.testing.redis_server"]`` in a conftest.
"""

from __future__ import annotations

import pytest

from ..eventstore.embedded import EmbeddedRedis


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A real redis-server (AOF on) for the whole test session."""
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
def redis_client(redis_server):
    """A client on the session's server, with an empty database."""
    client = redis_server.client()
    client.flushall()
    yield client
    client.close()


@pytest.fixture(scope="session")
def queue_redis_server(tmp_path_factory):
    """A second real redis-server, for RQ's queue when it is not the events Redis."""
    with EmbeddedRedis(tmp_path_factory.mktemp("queue-redis")) as server:
        yield server


@pytest.fixture
def queue_redis_client(queue_redis_server):
    """A client on the queue's server, with an empty database."""
    client = queue_redis_server.client()
    client.flushall()
    yield client
    client.close()
