"""The application factory (flaskr style): ``create_app(config=None)``."""
from __future__ import annotations

import atexit
import inspect
import logging

import redis
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_cls
from flask import Flask
from .api.docs import GameroomApi

from . import api as api_package
from .api import cors, problems
from .application import Matches
from .config import Config
from .history import History
from .eventstore import EventStore
from .eventstore.hub import StreamHub
from .eventstore.records import MatchRecords
from .registry import Registry, build_registry

log = logging.getLogger(__name__)

API_TITLE = "gameroom"
API_VERSION = "1"


def _component_prefix(slug: str) -> str:
    return "".join(part.capitalize() for part in slug.replace("_", "-").split("-"))


def schema_name_resolver(registry: Registry):
    """Name nested schemas of a game after the game (``StarsAreRightPool``), so that two
    games' helper schemas with one class name never collide in the OpenAPI document."""
    prefixes = {}
    for installed in registry:
        module = type(installed.game).__module__
        root = module.rsplit(".", 1)[0] if module.startswith("plugins.") else module.split(".")[0]
        prefixes[root] = _component_prefix(installed.slug)

    def resolve(schema) -> str:
        resolved = resolve_schema_cls(schema)
        cls = resolved[0] if isinstance(resolved, list) else resolved
        name = cls.__name__.removesuffix("Schema") or cls.__name__
        for root, prefix in prefixes.items():
            if cls.__module__ == root or cls.__module__.startswith(root + "."):
                return name if name.startswith(prefix) else prefix + name
        return name

    return resolve


def register_game_schemas(spec, registry: Registry) -> dict:
    """Publish every game's schemas as OpenAPI components; returns slug -> kind -> name."""
    names = {}
    for installed in registry:
        schemas = installed.game.schemas()
        prefix = _component_prefix(installed.slug)
        names[installed.slug] = {}
        for kind in ("options", "move", "view", "event"):
            name = f"{prefix}{kind.capitalize()}"
            spec.components.schema(name, schema=getattr(schemas, kind))
            names[installed.slug][kind] = name
    return names


def _connect(config: Config) -> tuple[redis.Redis, str]:
    """A client of the configured Redis (an embedded one when none is), and its URL.

    Its pool blocks (up to ``redis_pool_timeout`` seconds) when all of its
    ``redis_max_connections`` are busy, rather than failing: under gevent a
    burst of requests is a burst of concurrent Redis users.
    """
    url = config.redis_url
    if not url:
        from .eventstore.embedded import EmbeddedRedis

        server = EmbeddedRedis(config.data_dir).start()
        atexit.register(server.stop)
        url = server.url
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=config.redis_max_connections,
                                                 timeout=config.redis_pool_timeout)
    return redis.Redis(connection_pool=pool), url


class GameroomFlask(Flask):
    """Flask, remembering which handlers are coroutines.

    Flask asks ``inspect.iscoroutinefunction`` of every hook and view on every
    request (about a dozen calls); no handler changes its nature, so the
    answer is kept per function (bound methods by their function).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._is_sync: dict = {}

    def ensure_sync(self, func):
        target = getattr(func, "__func__", func)
        sync = self._is_sync.get(target)
        if sync is None:
            sync = self._is_sync[target] = not inspect.iscoroutinefunction(func)
        return func if sync else self.async_to_sync(func)


def create_app(config: Config | dict | None = None, registry: Registry | None = None) -> Flask:
    """Build the WSGI app.

    ``config``: a :class:`Config`, or a dict of overrides on top of the
    environment's. With no Redis URL configured, an embedded redis-server is
    started in ``data_dir`` and stopped at exit.
    """
    if not isinstance(config, Config):
        config = Config.from_env(**(config or {}))
    app = GameroomFlask(__name__)
    app.config.update(
        GAMEROOM=config,
        MAX_CONTENT_LENGTH=config.max_body,
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api",
        OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS={
            "info": {"description": "An event-sourced game server. Errors are application/problem+json."},
            "components": {"securitySchemes": {"seatToken": {"type": "http", "scheme": "bearer"}}},
            "security": [{}, {"seatToken": []}],
        },
        JSON_SORT_KEYS=False,
    )
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    registry = registry or build_registry()
    client, url = _connect(config)
    matches = Matches(EventStore(client), MatchRecords(client), registry,
                      snapshot_every=config.snapshot_every, append_retries=config.append_retries)
    app.extensions["gameroom"] = matches
    app.extensions["gameroom_history"] = History(matches)
    app.extensions["gameroom_hub"] = StreamHub(client, url, max_streams=config.sse_max_streams,
                                               max_per_client=config.sse_max_streams_per_client)

    api = GameroomApi(app, spec_kwargs={
        "marshmallow_plugin": MarshmallowPlugin(schema_name_resolver=schema_name_resolver(registry))})
    for blueprint in api_package.BLUEPRINTS:
        api.register_blueprint(blueprint)
    app.extensions["gameroom_schema_names"] = register_game_schemas(api.spec, registry)
    components = api.spec.to_dict()["components"]["schemas"]
    app.extensions["gameroom_options_jsonschema"] = {
        slug: components[names["options"]] for slug, names in app.extensions["gameroom_schema_names"].items()
    }
    problems.init_app(app)
    cors.init_app(app, config.cors_origins)

    if config.ai_mode == "rq":
        from .workers.scheduler import AIScheduler

        matches.after_append.append(AIScheduler(client, config.queue))
    return app
