"""The typed API: operationIds, declared headers, discriminated unions, per-game documents,
and moves with keys their type does not take refused (issue 18, issue 13 item 4)."""

import re

import pytest
from openapi_spec_validator import validate

from gameroom.registry import build_registry

SLUGS = [g.slug for g in build_registry()]
METHODS = ("get", "post", "put", "patch", "delete")


def _operations(doc):
    for path, item in doc["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


@pytest.fixture
def served(client):
    return client.get("/api/openapi.json").get_json()


def test_every_operation_has_a_stable_unique_operation_id(served):
    ids = [op.get("operationId") for _, _, op in _operations(served)]
    assert None not in ids
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][A-Za-z]+", i) for i in ids), ids
    assert {
        "createMatch",
        "submitMove",
        "getState",
        "getLegalMoves",
        "streamEvents",
        "getGameOpenapi",
    } <= set(ids)


def test_the_headers_the_server_reads_and_sends_are_declared(served):
    paths = served["paths"]

    def header_params(path, method):
        return {p["name"] for p in paths[path][method].get("parameters", []) if p["in"] == "header"}

    assert "Idempotency-Key" in header_params("/api/matches/{match_id}/moves", "post")
    assert "If-None-Match" in header_params("/api/matches/{match_id}/state", "get")
    assert "Last-Event-ID" in header_params("/api/matches/{match_id}/stream", "get")
    state = paths["/api/matches/{match_id}/state"]["get"]["responses"]
    assert "ETag" in state["200"]["headers"] and "ETag" in state["304"]["headers"]
    for path in ("/api/matches", "/api/matches/{match_id}/fork", "/api/matches/import"):
        assert "Location" in paths[path]["post"]["responses"]["201"]["headers"], path
    for path, method, op in _operations(served):
        unauthorized = op["responses"].get("401")
        if unauthorized is not None:
            assert "WWW-Authenticate" in unauthorized["headers"], (path, method)
        if "requestBody" in op:  # any body may be malformed JSON or too large
            assert {"400", "413"} <= set(op["responses"]), (path, method)


def test_the_stream_is_documented_as_server_sent_events_of_entries(served):
    ok = served["paths"]["/api/matches/{match_id}/stream"]["get"]["responses"]["200"]
    assert list(ok["content"]) == ["text/event-stream"]
    assert ok["content"]["text/event-stream"]["x-item-schema"] == {"$ref": "#/components/schemas/Entry"}


@pytest.mark.parametrize("slug", SLUGS)
def test_every_move_and_event_type_is_its_own_schema_in_a_discriminated_union(served, registry, slug):
    from gameroom import tagged
    from gameroom.app import _component_prefix

    game = registry.get(slug)
    schemas = served["components"]["schemas"]
    prefix = _component_prefix(slug)
    for kind in ("move", "event"):
        variants = tagged.variants(game.schemas(), kind)
        assert variants, f"{slug} declares no {kind} variants"
        union = schemas[f"{prefix}{kind.capitalize()}"]
        assert union["discriminator"]["propertyName"] == "type"
        mapping = union["discriminator"]["mapping"]
        assert set(mapping) == set(variants)
        assert [one["$ref"] for one in union["oneOf"]] == list(mapping.values())
        for value, ref in mapping.items():
            variant = schemas[ref.rsplit("/", 1)[1]]
            assert variant["properties"]["type"]["enum"] == [value]
            assert "type" in variant["required"]
            for name, prop in variant["properties"].items():
                assert prop.get("type") or prop.get("$ref") or prop.get("allOf") or prop.get("oneOf"), (
                    f"{ref} property {name} is untyped"
                )
    # every move the game may offer has a type the union names
    flat = game.schemas().move._declared_fields["type"]
    offered = next((v.choices for v in flat.validators if hasattr(v, "choices")), None)
    if offered is not None:
        assert set(offered) == set(schemas[f"{prefix}Move"]["discriminator"]["mapping"])


def test_first_party_views_have_no_untyped_or_write_only_properties(served):
    """StarsAreRightView.up was writeOnly and 13 of its properties had no type (issue 18)."""
    schemas = served["components"]["schemas"]
    for name, schema in schemas.items():
        if not name.startswith(("StarsAreRight", "LookAtTheStars", "TinyStellarEmpires")):
            continue
        for prop_name, prop in schema.get("properties", {}).items():
            assert not prop.get("writeOnly"), f"{name}.{prop_name} is writeOnly"
            assert (
                prop.get("type")
                or prop.get("$ref")
                or prop.get("allOf")
                or prop.get("oneOf")
                or prop.get("anyOf")
            ), f"{name}.{prop_name} has no type"
    up = schemas["StarsAreRightView"]["properties"]["up"]
    assert up["type"] == "array" and up["items"]["type"] == "string" and up["minItems"] == 25


@pytest.mark.parametrize("slug", SLUGS)
def test_the_per_game_document_types_the_match_operations_for_that_game(client, registry, slug):
    from gameroom.app import _component_prefix

    response = client.get(f"/api/games/{slug}/openapi.json")
    assert response.status_code == 200
    doc = response.get_json()
    validate(doc)
    prefix = _component_prefix(slug)
    schemas = doc["components"]["schemas"]
    move = {"$ref": f"#/components/schemas/{prefix}Move"}
    assert schemas["MoveRequest"]["properties"]["move"] == move
    assert schemas["LegalMoves"]["properties"]["moves"]["items"] == move
    assert schemas["State"]["properties"]["view"] == {"$ref": f"#/components/schemas/{prefix}View"}
    assert schemas["Entry"]["properties"]["events"]["items"] == {
        "$ref": f"#/components/schemas/{prefix}Event"
    }
    assert schemas["MatchCreate"]["properties"]["game"]["enum"] == [slug]
    assert schemas["MatchCreate"]["properties"]["options"] == {
        "$ref": f"#/components/schemas/{prefix}Options"
    }
    others = [_component_prefix(g.slug) for g in registry if g.slug != slug]
    leaked = [n for n in schemas if any(n.startswith(o) and not n.startswith(prefix) for o in others)]
    assert not leaked, leaked


@pytest.mark.parametrize("slug", SLUGS)
def test_a_per_game_document_types_summary_options_for_every_game_as_the_lobby_lists_them(
    client, registry, slug
):
    """GET /api/matches lists every game's matches: a summary typed for one game would misread the rest."""
    whole = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    doc = client.get(f"/api/games/{slug}/openapi.json").get_json()
    schemas = doc["components"]["schemas"]
    assert schemas["MatchSummary"]["properties"]["options"] == whole["MatchSummary"]["properties"]["options"]
    assert schemas["MatchList"] == whole["MatchList"]
    assert "/api/openapi.json" in doc["info"]["description"]
    assert "other game" in doc["info"]["description"]


def test_a_per_game_document_of_an_unknown_game_is_a_404_problem(client, expect_problem):
    expect_problem(client.get("/api/games/no-such-game/openapi.json"), 404, "unknown-game")


# -- moves with unknown keys (issue 13 item 4) ------------------------------------------------

#: Options that keep setup light; the rules are unchanged.
SHORT = {"stars-are-right": {"turn_limit": 2}}


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("junk", [{"junk": 1}, {"seat": 0, "x" * 300: None}, {"type_": "take"}])
def test_a_move_with_a_key_its_type_does_not_take_is_refused_and_changes_nothing(
    api, matches, expect_problem, slug, junk
):
    game = matches.registry.get(slug)
    n = max(2, game.info.min_players)
    match_id, tokens = api.create(
        slug, [{"name": f"P{i}"} for i in range(n)], options=SHORT.get(slug, {}), seed=f"junk-{slug}"
    )
    summary = api.get(f"/api/matches/{match_id}").get_json()
    seat = summary["active_seats"][0]
    legal = api.legal(match_id, tokens[seat])[0]
    events_before = api.get(f"/api/matches/{match_id}/events", token=tokens[seat]).get_json()

    r = api.move(match_id, tokens[seat], {**legal, **junk})
    body = expect_problem(r, 422, "unknown-move-field")
    assert set(body["errors"]["move"]) == {k[:40] for k in junk}
    assert api.get(f"/api/matches/{match_id}/events", token=tokens[seat]).get_json() == events_before

    # the very same move without the junk is legal: the key alone was refused
    r = api.move(match_id, tokens[seat], legal)
    assert r.status_code == 201, r.get_json()
    assert all(
        set(e["move"]) <= set(legal)
        for e in api.get(f"/api/matches/{match_id}/events", token=tokens[seat]).get_json()["entries"]
        if "move" in e
    )
