"""openapi.yaml is generated from the schemas, valid, and served."""
from pathlib import Path

import yaml
from openapi_spec_validator import validate

from service.openapi import spec_yaml

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_committed_openapi_yaml_matches_the_code(registry):
    generated = spec_yaml(registry)
    assert SPEC.read_text() == generated, (
        "openapi.yaml is out of date with the schemas: regenerate it with `make openapi` "
        "(or `.venv/bin/gameroom openapi > openapi.yaml`) and commit it."
    )


def test_openapi_yaml_is_a_valid_openapi_document():
    validate(yaml.safe_load(SPEC.read_text()))


def test_the_served_document_is_the_committed_one(client):
    served = client.get("/api/openapi.json").get_json()
    assert served == yaml.safe_load(SPEC.read_text())


def test_every_installed_game_publishes_its_schemas(registry):
    doc = yaml.safe_load(SPEC.read_text())
    names = doc["components"]["schemas"]
    for installed in registry:
        prefix = "".join(p.capitalize() for p in installed.slug.split("-"))
        for kind in ("Options", "Move", "View", "Event"):
            assert f"{prefix}{kind}" in names
