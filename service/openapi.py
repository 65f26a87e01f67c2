"""Generate the OpenAPI document from the same schemas that validate requests.

Three documents, one source:

- ``openapi.yaml`` (``gameroom openapi``, ``make openapi``) describes the
  platform and the *first-party* games only, so installing a third-party game
  never makes the committed document drift;
- ``/api/openapi.json`` is what this server runs: every installed game;
- ``/api/games/{slug}/openapi.json`` is the same API typed for one game
  (:func:`gameroom.api.gamedoc.game_document`, which the games endpoint
  applies to the second).

Generation is deterministic (no dates, no set order), so a merge conflict in
``openapi.yaml`` is resolved by regenerating it.
"""

from __future__ import annotations

import yaml

from .app import create_app
from .registry import Registry, build_registry

#: Never contacted: building the spec touches no Redis (redis-py connects lazily).
_UNUSED_REDIS = "redis://127.0.0.1:1/0"

#: The distribution that ships the first-party games.
FIRST_PARTY = "gameroom"


def first_party(registry: Registry) -> Registry:
    """Only the games this project ships (``plugins/``), not whatever else is installed."""
    return registry.only(lambda installed: installed.distribution == FIRST_PARTY)


def spec_dict(registry: Registry | None = None) -> dict:
    """The document a server with ``registry``'s games serves (default: the first-party games)."""
    registry = registry if registry is not None else first_party(build_registry())
    app = create_app({"redis_url": _UNUSED_REDIS, "ai_mode": "off"}, registry)
    with app.app_context():
        return app.extensions["gameroom_api"].spec.to_dict()


def spec_yaml(registry: Registry | None = None) -> str:
    class Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data):  # write shared parts out in full: no &id anchors
            return True

    return yaml.dump(spec_dict(registry), Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)
