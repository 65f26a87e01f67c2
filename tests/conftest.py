"""Shared fixtures: a real redis-server per session, the app, its clients.

pytest-flask provides ``client`` from the ``app`` fixture here.
"""

import pytest

from gameroom import create_app
from gameroom.application import Matches
from gameroom.composition import matches_on
from gameroom.core.rng import Seeding
from gameroom.eventstore import EventStore
from gameroom.registry import build_registry

pytest_plugins = ["gameroom.testing.redis_server", "gameroom.testing.browser", "gameroom.testing.cluster"]


@pytest.fixture(scope="session")
def registry():
    return build_registry()


@pytest.fixture
def app(redis_server, redis_client, registry):
    app = create_app(
        {"redis_url": redis_server.url, "ai_mode": "rq", "sse_keepalive": 0.2, "sse_max_age": 3.0}, registry
    )
    app.config["TESTING"] = True
    yield app


@pytest.fixture
def matches(app) -> Matches:
    return app.extensions["gameroom"]


@pytest.fixture
def store(redis_client) -> EventStore:
    return EventStore(redis_client)


@pytest.fixture
def plain_matches(redis_client, registry) -> Matches:
    """The application layer without HTTP or AI scheduling; seeds reproducible (tests replay them)."""
    return matches_on(redis_client, registry, seeding=Seeding.reproducible())
