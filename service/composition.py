"""The composition root: the one place that builds gameroom's object graph.

:func:`compose` turns a :class:`~gameroom.config.Config` into a
:class:`Wiring`: the Redis clients (:func:`gameroom.eventstore.connect.connect`),
the event store and match records on them, the plugin registry, the seeding
(the seed secret), :class:`~gameroom.application.Matches`, and its
after-append hooks (the AI scheduler and the timeout scheduler, on RQ's
queue). The app factory, the worker, the CLI, the test fixtures and the
benchmarks all call it, so they cannot drift apart.

Build it once per process and keep it: :class:`Matches` caches folds,
records and token seats, so a second load of a match costs one round trip
instead of several. ``gameroom worker`` builds it before RQ forks its work
horses, which inherit it (see :mod:`gameroom.workers.worker`).
"""

from __future__ import annotations

import atexit
from dataclasses import dataclass, field

import redis

from .application import Matches
from .config import Config
from .core.rng import Seeding
from .eventstore import EventStore
from .eventstore.connect import Clients, connect, refuse_cluster_queue
from .eventstore.records import MatchRecords
from .eventstore.seed_secret import seeding_for, token_secret_for
from .registry import Registry, build_registry
from .workers.clock_scheduler import TimeoutScheduler
from .workers.scheduler import AIScheduler


@dataclass
class Wiring:
    """What :func:`compose` built: one process's object graph."""

    config: Config
    #: The events Redis's URL (the embedded server's, when none was configured).
    url: str
    clients: Clients
    registry: Registry
    matches: Matches
    #: The after-append hooks on RQ's queue (empty when ``scheduling`` is off).
    schedulers: list = field(default_factory=list)

    @property
    def ai_scheduler(self) -> AIScheduler | None:
        """The :class:`~gameroom.workers.scheduler.AIScheduler` among :attr:`schedulers` (or None)."""
        return next((s for s in self.schedulers if isinstance(s, AIScheduler)), None)

    @property
    def timeout_scheduler(self) -> TimeoutScheduler | None:
        """The :class:`~gameroom.workers.clock_scheduler.TimeoutScheduler` among :attr:`schedulers` (or None)."""
        return next((s for s in self.schedulers if isinstance(s, TimeoutScheduler)), None)


def events_url(config: Config) -> str:
    """``config.redis_url``; with none, an embedded redis-server in ``data_dir``, stopped at exit."""
    if config.redis_url:
        return config.redis_url
    from .eventstore.embedded import EmbeddedRedis

    server = EmbeddedRedis(config.data_dir, appendfsync=config.redis_appendfsync).start()
    atexit.register(server.stop)
    return server.url


def compose(
    config: Config | dict | None = None,
    registry: Registry | None = None,
    *,
    clients: Clients | None = None,
    scheduling: bool | None = None,
    seeding: Seeding | None = None,
) -> Wiring:
    """Build the object graph of one process from ``config``.

    ``config``: a :class:`Config`, or a dict of overrides on top of the
    environment's (``GAMEROOM_*``). ``registry``: the games (default: the
    installed plugins). ``clients``: existing Redis clients (tests share the
    session's; default: :func:`gameroom.eventstore.connect.connect` on the configured
    URLs, starting an embedded Redis when none is). ``scheduling``: attach the
    AI and timeout schedulers on ``config.queue`` (default: when ``ai_mode``
    is ``rq``). ``seeding``: replaces the configured one (tests that replay
    their seeds).
    """
    if not isinstance(config, Config):
        config = Config.from_env(**(config or {}))
    registry = registry or build_registry()
    if clients is None:
        url = events_url(config)
        clients = connect(config, url)
    else:
        url = config.redis_url
    matches = Matches(
        EventStore(
            clients.events,
            blocking=clients.blocking,
            wait_replicas=config.redis_wait_replicas,
            wait_timeout_ms=config.redis_wait_timeout_ms,
        ),
        MatchRecords(clients.events),
        registry,
        snapshot_every=config.snapshot_every,
        append_retries=config.append_retries,
        seeding=seeding or seeding_for(config, clients.events),
        token_secret=token_secret_for(config, clients.events),
    )
    schedulers: list = []
    if config.ai_mode == "rq" if scheduling is None else scheduling:
        if clients.queue is None:  # the events Redis is a cluster, and no queue Redis is set
            refuse_cluster_queue("", url)
        schedulers = [AIScheduler(clients.queue, config.queue), TimeoutScheduler(clients.queue, config.queue)]
        matches.after_append.extend(schedulers)
    return Wiring(config, url, clients, registry, matches, schedulers)


def shared_clients(client: redis.Redis, queue: redis.Redis | None = None) -> Clients:
    """:class:`Clients` on one existing client (tests, tools): blocking reads and, unless ``queue``
    is given, the queue on it too."""
    return Clients(client, client, client if queue is None else queue)


def matches_on(
    client: redis.Redis, registry: Registry, *, seeding: Seeding | None = None, config: Config | None = None
) -> Matches:
    """:class:`Matches` on one existing client, without scheduling (tests, tools, benchmarks)."""
    wiring = compose(
        config or Config(), registry, clients=shared_clients(client), scheduling=False, seeding=seeding
    )
    return wiring.matches
