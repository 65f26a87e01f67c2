"""openapi.yaml is generated from the schemas, valid, and served."""

from pathlib import Path

import yaml
from openapi_spec_validator import validate

from gameroom.app import _component_prefix
from gameroom.openapi import first_party, spec_yaml

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_committed_openapi_yaml_matches_the_code(registry):
    generated = spec_yaml(first_party(registry))
    assert SPEC.read_text() == generated, (
        "openapi.yaml is out of date with the schemas: regenerate it with `make openapi` "
        "(or `.venv/bin/gameroom openapi > openapi.yaml`) and commit it."
    )


def test_the_committed_document_ignores_third_party_games(registry):
    """`make openapi` writes the first-party games only, whatever else is installed (here: Nim)."""
    assert "nim" in registry and registry.installed("nim").distribution != "gameroom"
    assert spec_yaml() == spec_yaml(first_party(registry))
    assert "NimMove" not in yaml.safe_load(SPEC.read_text())["components"]["schemas"]


def test_openapi_yaml_is_a_valid_openapi_document():
    validate(yaml.safe_load(SPEC.read_text()))


def test_the_served_document_is_the_committed_one_plus_the_installed_third_party_games(client, registry):
    served = client.get("/api/openapi.json").get_json()
    committed = yaml.safe_load(SPEC.read_text())
    validate(served)
    assert served["paths"] == committed["paths"]
    served_schemas, committed_schemas = (
        served["components"].pop("schemas"),
        committed["components"].pop("schemas"),
    )
    assert served == committed
    third_party = [g for g in registry if g.distribution != "gameroom"]
    assert third_party, "the test environment installs examples/nim"
    prefixes = tuple(_component_prefix(g.slug) for g in third_party)
    assert {k: v for k, v in served_schemas.items() if not k.startswith(prefixes)} == committed_schemas
    for installed in third_party:
        assert f"{_component_prefix(installed.slug)}Move" in served_schemas


def test_every_installed_game_publishes_its_schemas(client, registry):
    names = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    for installed in registry:
        prefix = "".join(p.capitalize() for p in installed.slug.split("-"))
        for kind in ("Options", "Move", "View", "Event"):
            assert f"{prefix}{kind}" in names
