"""Shared fixtures: a real redis-server per session, the app, its clients.

pytest-flask provides ``client`` from the ``app`` fixture here.
"""
import pytest

from service import create_app
from service.application import Matches
from service.core.rng import Seeding
from service.eventstore import EventStore
from service.eventstore.records import MatchRecords
from service.registry import build_registry

pytest_plugins = ["service.testing.redis_server", "service.testing.browser"]


@pytest.fixture(scope="session")
def registry():
    return build_registry()


@pytest.fixture
def app(redis_server, redis_client, registry):
    app = create_app({"redis_url": redis_server.url, "ai_mode": "rq", "sse_keepalive": 0.2,
                      "sse_max_age": 3.0}, registry)
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
    return Matches(EventStore(redis_client), MatchRecords(redis_client), registry, seeding=Seeding.reproducible())
