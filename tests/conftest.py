"""Shared fixtures: a real redis-server per session, the app, its clients.

pytest-flask provides ``client`` from the ``app`` fixture here.

Markers by what a test needs (applied here, so a new test gets them by itself): ``browser``
for the tests that drive Chromium (the ``browser`` fixture, tests/browser), ``cluster`` for
the tests on a Redis Cluster (the ``redis_cluster`` fixture, tests/cluster). ``make check``
leaves them out, with the ``slow`` ones. Under pytest-xdist (``make test``) each group shares
one worker, and with it the session's one Chromium or one cluster.
"""

from pathlib import Path

import pytest

from gameroom import create_app
from gameroom.application import Matches
from gameroom.composition import matches_on
from gameroom.core.rng import Seeding
from gameroom.eventstore import EventStore
from gameroom.registry import build_registry

pytest_plugins = ["gameroom.testing.redis_server", "gameroom.testing.browser", "gameroom.testing.cluster"]

HERE = Path(__file__).resolve().parent
#: marker -> (the fixtures that make a test one of them, the folder whose tests all are)
BY_NEED = {
    "browser": ({"browser"}, HERE / "browser"),
    "cluster": ({"redis_cluster", "cluster_client"}, HERE / "cluster"),
}


@pytest.hookimpl(tryfirst=True)  # before pytest's -m selection and xdist's grouping read the marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for marker, (fixtures, folder) in BY_NEED.items():
            if names & fixtures or folder in item.path.parents:
                item.add_marker(getattr(pytest.mark, marker))
                item.add_marker(pytest.mark.xdist_group(marker))


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
