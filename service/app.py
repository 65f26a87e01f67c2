"""The application factory (flaskr style): ``create_app(config=None)``."""

from __future__ import annotations

import logging

from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_cls
from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from . import api as api_package
from . import tagged, web
from .api import apidocs, cors, problems, replication
from .api.bodies import LimitedRequest, StrictJSONProvider
from .api.docs import GameroomApi
from .api.links import LinksPlugin
from .application import History, Seats
from .composition import compose
from .config import Config
from .eventstore.hub import StreamHub
from .http import draining
from .http.lean import LeanRequests
from .http.requestlog import RequestLog
from .registry import Registry

log = logging.getLogger(__name__)

API_TITLE = "gameroom"
API_VERSION = "1"
API_DESCRIPTION = (
    "An event-sourced game server. Errors are application/problem+json with a stable `code`. "
    "A request whose HTTP framing is ambiguous (two `Content-Length` headers, one that is not plain "
    "ASCII digits, `Transfer-Encoding` beside a `Content-Length` or other than a lone `chunked`, a "
    "header line with a bare CR, a NUL or a folding, a line that is no `name: value`) or whose "
    "request line is malformed is refused before any operation: 400 `bad-http-framing`; so is a "
    "request line over 8 KiB (414 `uri-too-long`) and more than 100 header lines or one over 64 KiB "
    "(431 `header-fields-too-large`). After each the connection is closed.\n\n"
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


class ExactPaths(Flask.url_map_class):
    """werkzeug's URL map, answering no path with a redirect: by default it merges slashes
    (``/api//games``) with a 308 whose body is HTML and whose ``Location`` is built from the client's
    ``Host`` header. Such a path is a 404 problem+json like any other unknown one."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{**kwargs, "merge_slashes": False})


class GameroomFlask(Flask):
    """Flask, parsing request bodies strictly (see :mod:`gameroom.api.bodies`) and encoding
    every JSON body with :mod:`gameroom.jsoncodec`."""

    json_provider_class = StrictJSONProvider
    request_class = LimitedRequest
    url_map_class = ExactPaths


def create_app(config: Config | dict | None = None, registry: Registry | None = None) -> Flask:
    """Build the WSGI app.

    ``config``: a :class:`Config`, or a dict of overrides on top of the
    environment's. With no Redis URL configured, an embedded redis-server is
    started in ``data_dir`` and stopped at exit. Everything behind the HTTP
    layer is built by :func:`gameroom.composition.compose` (the extension
    ``gameroom_wiring``; ``gameroom`` is its :class:`Matches`).
    """
    if not isinstance(config, Config):
        config = Config.from_env(**(config or {}))
    app = GameroomFlask(__name__)
    app.config.update(_flask_settings(config))
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    wiring = compose(config, registry)
    registry, matches, client = wiring.registry, wiring.matches, wiring.clients.events
    app.extensions["gameroom_wiring"] = wiring
    app.extensions["gameroom"] = matches
    app.extensions["gameroom_history"] = History(matches)
    app.extensions["gameroom_import_max_body"] = api_package.history.import_max_body(config, registry)
    app.extensions["gameroom_hub"] = hub = StreamHub(
        client,
        wiring.url,
        max_streams=config.sse_max_streams,
        max_per_client=config.sse_max_streams_per_client,
    )
    draining.on_drain(hub.end_all)  # a stopping worker ends its streams instead of holding them

    _register_api(app, registry)
    app.register_blueprint(apidocs.bp)
    problems.init_app(app)
    web.init_app(app, registry)
    cors.init_app(app, config.cors_origins)
    app.extensions["gameroom_seats"] = seats = Seats(matches)
    if config.fast_paths:
        # A match's ordinary requests answered below Flask (same schemas, same problems); all else
        # goes to Flask. Off (GAMEROOM_FAST_PATHS=0): Flask's routes answer every request.
        app.wsgi_app = LeanRequests(  # type: ignore[method-assign]
            app.wsgi_app,
            matches,
            config.max_body,
            vary_origin=bool(cors.parse_origins(config.cors_origins)),
            seats=seats,
        )
    if config.redis_wait_replicas > 0:
        app.wsgi_app = replication.ReplicasHeader(app.wsgi_app)  # type: ignore[method-assign]
    app.wsgi_app = RequestLog(app.wsgi_app, config.slow_request_ms)  # type: ignore[method-assign]
    if config.trusted_proxies:
        # Outermost, so that every layer below (the lean path, Flask, the stream caps, the logs, and
        # gunicorn's access log, which reads the same environ) sees the client the proxies saw.
        # X-Forwarded-For only: the API makes no absolute URL (scheme, host) and is not mounted under a prefix.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=config.trusted_proxies, x_proto=0, x_host=0, x_port=0, x_prefix=0
        )
    return app


def _flask_settings(config: Config) -> dict:
    """Flask's and flask-smorest's settings: the body limit and the OpenAPI document's metadata."""
    return dict(
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


def _register_api(app: Flask, registry: Registry) -> GameroomApi:
    """The REST API on ``app``: its blueprints, and every game's schemas in its OpenAPI document."""
    app.url_map.converters["match_id"] = api_package.matches.MatchIdConverter
    app.url_map.converters["int"] = api_package.matches.AsciiIntegerConverter
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
    return api
