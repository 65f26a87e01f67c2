"""The application factory (flaskr style): ``create_app(config=None)``."""

from __future__ import annotations

import atexit
import logging

import redis
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_cls
from flask import Flask

from . import api as api_package
from . import tagged, web
from .api import apidocs, cors, problems
from .api.bodies import LimitedRequest, StrictJSONProvider
from .api.docs import GameroomApi
from .api.lean import LeanMoves
from .api.links import LinksPlugin
from .api.requestlog import RequestLog
from .application import Matches
from .config import Config
from .eventstore import EventStore
from .eventstore.hub import StreamHub
from .eventstore.records import MatchRecords
from .eventstore.seed_secret import seeding_for
from .history import History
from .lifecycle import Lifecycle
from .registry import Registry, build_registry

log = logging.getLogger(__name__)

API_TITLE = "gameroom"
API_VERSION = "1"
API_DESCRIPTION = (
    "An event-sourced game server. Errors are application/problem+json with a stable `code`.\n\n"
    "Moves, views and events differ from game to game: this document publishes each installed game's "
    "schemas as components named `<Game>Move`, `<Game>View`, `<Game>Event`, `<Game>Options` (moves and "
    "events as a `oneOf` discriminated on `type`), and `GET /api/games/{slug}/openapi.json` is this API "
    "with the match operations typed for one game: generate a client from that one."
)


def _component_prefix(slug: str) -> str:
    return "".join(part.capitalize() for part in slug.replace("_", "-").split("-"))


def schema_name_resolver(registry: Registry):
    """Name nested schemas of a game after the game (``StarsAreRightPool``), so that two
    games' helper schemas with one class name never collide in the OpenAPI document."""
    prefixes = {}
    for installed in registry:
        module = type(installed.game).__module__
        # a game inside gameroom (first-party, or a test game): its own package
        root = module.rsplit(".", 1)[0] if module.startswith("gameroom.") else module.split(".")[0]
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
    """Publish every game's schemas as OpenAPI components; returns slug -> kind -> name.

    ``<Game>Options`` and ``<Game>View`` are the game's schemas. ``<Game>Move``
    and ``<Game>Event`` are a ``oneOf`` of one component per ``type``
    (``<Game><Type>Move``), discriminated on ``type``, when the game declares
    its variants (see :mod:`gameroom.tagged`); else its flat schema.
    """
    names = {}
    for installed in registry:
        schemas = installed.game.schemas()
        prefix = _component_prefix(installed.slug)
        names[installed.slug] = {}
        for kind in ("options", "view", "move", "event"):
            name = f"{prefix}{kind.capitalize()}"
            union = tagged.variants(schemas, kind) if kind in ("move", "event") else None
            if union is None:
                spec.components.schema(name, schema=getattr(schemas, kind))
            else:
                spec.components.schema(name, component=_tagged_union(spec, prefix, kind, union))
            names[installed.slug][kind] = name
    return names


def _tagged_union(spec, prefix: str, kind: str, union: dict) -> dict:
    mapping = {}
    for value, cls in sorted(union.items()):
        name = f"{prefix}{tagged.camel(value)}{kind.capitalize()}"
        spec.components.schema(name, schema=cls)
        mapping[value] = f"#/components/schemas/{name}"
    return {
        "description": f"One {kind}; its `type` tells which.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


#: JSON null in OpenAPI 3.0.
NULL = {"type": "object", "nullable": True, "enum": [None]}


class _Converter(OpenAPIConverter):
    """apispec's converter, with nullable nested schemas that generators can type.

    apispec documents a nullable ``Nested`` in OpenAPI 3.0 as ``anyOf: [{type:
    object, nullable: true}, {$ref}]``, which client generators turn into an
    untyped object (the match's ``outcome``). ``anyOf: [{$ref}, null]``, with
    null spelt as OpenAPI 3.0 allows (``type`` beside ``nullable``, as linters
    want), keeps the type: generated clients get ``Outcome | None``.
    """

    def field2nullable(self, field, ret) -> dict:
        if field.allow_none and "$ref" in ret:
            return {"anyOf": [{"$ref": ret.pop("$ref")}, NULL]}
        if field.allow_none and "type" not in ret:
            for key in ("oneOf", "anyOf"):
                if key in ret:  # a documented union (metadata): null is one more member
                    return {key: [*ret.pop(key), NULL]}
        return super().field2nullable(field, ret)


class _MarshmallowPlugin(MarshmallowPlugin):
    Converter = _Converter


def _connect(config: Config) -> tuple[redis.Redis, redis.Redis, str]:
    """The request path's client, the client for blocking reads, and the Redis URL.

    The request path's client has socket and connect timeouts of
    ``redis_timeout`` and retries only a broken connection, once and at once
    (redis-py's default retries ten times with backoff, also on timeouts): a
    frozen or dead Redis costs a request at most about ``redis_timeout`` and
    then a 503 (gameroom.api.problems). Its pool blocks (up to
    ``redis_pool_timeout`` seconds) when all of its ``redis_max_connections``
    are busy, rather than failing: under gevent a burst of requests is a burst
    of concurrent Redis users. A blocking read (XREAD BLOCK) waits longer than
    ``redis_timeout`` by design, so it has a client with the connect timeout only.
    """
    from .eventstore import connection_options

    url = config.redis_url
    if not url:
        from .eventstore.embedded import EmbeddedRedis

        server = EmbeddedRedis(config.data_dir, appendfsync=config.redis_appendfsync).start()
        atexit.register(server.stop)
        url = server.url
    request, blocking = connection_options(config.redis_timeout)
    pool = redis.BlockingConnectionPool.from_url(
        url, max_connections=config.redis_max_connections, timeout=config.redis_pool_timeout, **request
    )
    return redis.Redis(connection_pool=pool), redis.Redis.from_url(url, **blocking), url


def _queue_client(config: Config, events: redis.Redis) -> redis.Redis:
    """The client of RQ's queue: ``queue_redis_url`` with the request path's timeouts, else ``events``."""
    if not config.queue_redis_url:
        return events
    from .eventstore import connection_options

    request, _blocking = connection_options(config.redis_timeout)
    pool = redis.BlockingConnectionPool.from_url(
        config.queue_redis_url,
        max_connections=config.redis_max_connections,
        timeout=config.redis_pool_timeout,
        **request,
    )
    return redis.Redis(connection_pool=pool)


class GameroomFlask(Flask):
    """Flask, parsing request bodies strictly (see :mod:`gameroom.api.bodies`) and encoding
    every JSON body with :mod:`gameroom.jsoncodec`."""

    json_provider_class = StrictJSONProvider
    request_class = LimitedRequest


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
            "info": {
                "description": API_DESCRIPTION,
                "license": {"name": "MIT", "url": "https://opensource.org/license/mit"},
            },
            "servers": [{"url": "/", "description": "this server"}],
            "components": {"securitySchemes": {"seatToken": {"type": "http", "scheme": "bearer"}}},
            "security": [{}, {"seatToken": []}],
        },
    )
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    registry = registry or build_registry()
    client, blocking, url = _connect(config)
    matches = Matches(
        EventStore(client, blocking=blocking),
        MatchRecords(client),
        registry,
        snapshot_every=config.snapshot_every,
        append_retries=config.append_retries,
        seeding=seeding_for(config, client),
    )
    app.extensions["gameroom"] = matches
    app.extensions["gameroom_history"] = History(matches)
    app.extensions["gameroom_import_max_body"] = api_package.history.import_max_body(config, registry)
    app.extensions["gameroom_hub"] = StreamHub(
        client, url, max_streams=config.sse_max_streams, max_per_client=config.sse_max_streams_per_client
    )

    app.url_map.converters["match_id"] = api_package.matches.MatchIdConverter
    api = GameroomApi(
        app,
        spec_kwargs={
            "marshmallow_plugin": _MarshmallowPlugin(schema_name_resolver=schema_name_resolver(registry)),
            "extra_plugins": [LinksPlugin()],
        },
    )
    app.extensions["gameroom_api"] = api  # its spec: openapi.yaml and the per-game documents
    api.register_converter(api_package.matches.MatchIdConverter, api_package.matches.match_id_param_schema)
    for blueprint in api_package.BLUEPRINTS:
        api.register_blueprint(blueprint)
    app.extensions["gameroom_schema_names"] = register_game_schemas(api.spec, registry)
    components = api.spec.to_dict()["components"]["schemas"]
    app.extensions["gameroom_options_jsonschema"] = {
        slug: components[names["options"]] for slug, names in app.extensions["gameroom_schema_names"].items()
    }
    app.register_blueprint(apidocs.bp)
    problems.init_app(app)
    web.init_app(app, registry)
    cors.init_app(app, config.cors_origins)
    # Ordinary moves are answered below Flask (same schema, same problems); all else goes to Flask.
    app.wsgi_app = LeanMoves(app.wsgi_app, matches, config.max_body)  # type: ignore[method-assign]
    app.wsgi_app = RequestLog(app.wsgi_app, config.slow_request_ms)  # type: ignore[method-assign]

    if config.ai_mode == "rq":
        from .workers.scheduler import AIScheduler
        from .workers.timeouts import TimeoutScheduler

        queue_client = _queue_client(config, client)
        matches.after_append.append(AIScheduler(queue_client, config.queue))
        matches.after_append.append(TimeoutScheduler(queue_client, config.queue))
    app.extensions["gameroom_lifecycle"] = Lifecycle(matches)
    return app
