"""The composition root builds one process's object graph from a Config (real redis-servers)."""

from gameroom.composition import compose
from gameroom.config import Config
from gameroom.core.rng import Seeding
from gameroom.workers.clock_scheduler import TimeoutScheduler
from gameroom.workers.scheduler import AIScheduler


def _pool_path(client) -> str:
    return client.connection_pool.connection_kwargs["path"]


def test_with_the_shipped_defaults_one_redis_holds_events_and_queue_and_ai_is_scheduled(
    redis_server, registry
):
    wiring = compose(Config(redis_url=redis_server.url), registry)
    assert wiring.url == redis_server.url and wiring.registry is registry
    assert wiring.clients.queue is wiring.clients.events
    assert wiring.matches.store.redis is wiring.clients.events
    assert wiring.matches.store.blocking is wiring.clients.blocking
    assert [type(s) for s in wiring.matches.after_append] == [AIScheduler, TimeoutScheduler]
    assert wiring.ai_scheduler is wiring.schedulers[0] and wiring.ai_scheduler.queue.name == Config.queue
    # The request path's client gives up after redis_timeout; the blocking reads' does not.
    assert wiring.clients.events.connection_pool.connection_kwargs["socket_timeout"] == Config.redis_timeout
    assert wiring.clients.blocking.connection_pool.connection_kwargs.get("socket_timeout") is None


def test_a_queue_redis_of_its_own_gets_the_schedulers_and_nothing_else(
    redis_server, queue_redis_server, registry
):
    wiring = compose(
        Config(redis_url=redis_server.url, queue_redis_url=queue_redis_server.url, queue="q"), registry
    )
    assert _pool_path(wiring.clients.queue) == queue_redis_server.socket_path
    assert _pool_path(wiring.clients.events) == redis_server.socket_path
    assert all(s.queue.connection is wiring.clients.queue and s.queue.name == "q" for s in wiring.schedulers)
    assert wiring.matches.records.redis is wiring.clients.events


def test_ai_mode_off_schedules_nothing_and_the_stored_seed_secret_is_shared(
    redis_server, redis_client, registry
):
    first = compose(Config(redis_url=redis_server.url, ai_mode="off"), registry)
    second = compose(Config(redis_url=redis_server.url, ai_mode="off"), registry)
    assert first.schedulers == [] and first.matches.after_append == [] and first.ai_scheduler is None
    a, b = first.matches.seeding, second.matches.seeding  # made once in Redis, read by the other
    assert isinstance(a, Seeding) and a.match_seed("m", "s") == b.match_seed("m", "s")
