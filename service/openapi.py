"""Generate the OpenAPI document from the same schemas that validate requests."""
from __future__ import annotations

from .registry import Registry, build_registry

#: Never contacted: building the spec touches no Redis (redis-py connects lazily).
_UNUSED_REDIS = "redis://127.0.0.1:1/0"


def spec_dict(registry: Registry | None = None) -> dict:
    from .app import create_app

    app = create_app({"redis_url": _UNUSED_REDIS, "ai_mode": "off"}, registry or build_registry())
    with app.app_context():
        return app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()


def spec_yaml(registry: Registry | None = None) -> str:
    import yaml

    return yaml.safe_dump(spec_dict(registry), sort_keys=False, allow_unicode=True, width=100)
