"""Every client string is hostile (issue 13, items 3, 4 and 6): each input below gets a
clear problem+json refusal with a stable code, changes nothing, and never a 5xx.

Run against the app over a real redis-server (see tests/conftest.py).
"""

import json

import pytest

from gameroom.api.bodies import MAX_DEPTH

BIG = [2**63, 2**64, 2**64 + 1, 10**30]


def _lobby(api):
    return [m["id"] for m in api.get("/api/matches?limit=200").get_json()["matches"]]


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _post_raw(api, path, raw, token=None, headers=None):
    return api.call("POST", path, raw=raw, token=token, headers=headers)


# -- JSON nested ~1,000 deep ----------------------------------------------------------


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 20_000])
def test_json_nested_1000_deep_is_refused_everywhere(api, expect_problem, depth):
    match_id, tokens = api.create()
    before = _lobby(api)
    seats = '[{"name": "Ana"}, {"name": "Bo", "x": %s}]' % _nested(depth)
    expect_problem(
        _post_raw(api, "/api/matches", '{"game": "nim", "seats": %s}' % seats), 400, "json-too-deep"
    )
    move = '{"move": {"type": "take", "pile": 0, "count": 1, "x": %s}}' % _nested(depth)
    expect_problem(
        _post_raw(api, f"/api/matches/{match_id}/moves", move, token=tokens[0]), 400, "json-too-deep"
    )
    expect_problem(
        _post_raw(api, "/api/matches/import", '{"entries": %s}' % _nested(depth)), 400, "json-too-deep"
    )
    expect_problem(
        _post_raw(api, f"/api/matches/{match_id}/seats/0", '{"name": %s}' % _nested(depth)),
        400,
        "json-too-deep",
    )
    assert _lobby(api) == before
    assert api.state(match_id)["version"] == 1


def test_json_nested_within_the_limit_still_reaches_the_schema(api, expect_problem):
    # 60 levels is JSON the server reads; the schema then refuses a list as a name.
    body = '{"game": "nim", "seats": [{"name": %s}, {"name": "Bo"}]}' % _nested(60)
    expect_problem(_post_raw(api, "/api/matches", body), 422, "validation-error")


# -- integers with thousands of digits ---------------------------------------------


@pytest.mark.parametrize("digits", [20, 3000, 4300, 5000, 60_000])
def test_integers_with_thousands_of_digits_are_refused(api, expect_problem, digits):
    match_id, tokens = api.create()
    number = "9" * digits
    move = '{"move": {"type": "take", "pile": 0, "count": 1}, "expected_version": %s}' % number
    expect_problem(
        _post_raw(api, f"/api/matches/{match_id}/moves", move, token=tokens[0]), 400, "number-out-of-range"
    )
    junk = '{"move": {"type": "take", "pile": 0, "count": %s}}' % number
    expect_problem(
        _post_raw(api, f"/api/matches/{match_id}/moves", junk, token=tokens[0]), 400, "number-out-of-range"
    )
    options = '{"game": "nim", "seats": [{"name": "A"}, {"name": "B"}], "options": {"piles": [%s]}}' % number
    expect_problem(_post_raw(api, "/api/matches", options), 400, "number-out-of-range")
    assert api.state(match_id)["version"] == 1


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_are_refused(api, expect_problem, literal):
    match_id, tokens = api.create()
    move = '{"move": {"type": "take", "pile": 0, "count": %s}}' % literal
    response = _post_raw(api, f"/api/matches/{match_id}/moves", move, token=tokens[0])
    # NaN and Infinity are not JSON at all; 1e400 is JSON that no float holds.
    if literal == "1e400":
        expect_problem(response, 400, "number-out-of-range")
    else:
        expect_problem(response, 400, "malformed-json")
    assert api.state(match_id)["version"] == 1


# -- offset, after, version, limit at 2^63, 2^64 and beyond -----------------------


@pytest.mark.parametrize("value", BIG)
def test_offset_after_version_limit_at_2_63_2_64_and_beyond_are_refused(api, expect_problem, value):
    match_id, tokens = api.create()
    for path in [
        f"/api/matches?offset={value}",
        f"/api/matches?limit={value}",
        f"/api/matches/{match_id}/events?after={value}",
        f"/api/matches/{match_id}/events?limit={value}",
        f"/api/matches/{match_id}/state?version={value}",
        f"/api/matches/{match_id}/state?seat={value}",
        f"/api/matches/{match_id}/stream?after={value}",
    ]:
        expect_problem(api.get(path), 422, "validation-error")
    expect_problem(
        api.get(f"/api/matches/{match_id}/stream", headers={"Last-Event-ID": str(value)}),
        400,
        "bad-last-event-id",
    )
    # beyond 64 bits the body itself is refused; within, the schema's bound refuses it
    status, code = (400, "number-out-of-range") if value > 2**63 - 1 else (422, "validation-error")
    expect_problem(
        api.move(match_id, tokens[0], {"type": "take", "pile": 0, "count": 1}, expected_version=value),
        status,
        code,
    )
    fork = api.post(f"/api/matches/{match_id}/fork", {"version": value})
    assert fork.status_code in (400, 422), fork.get_json()
    assert api.state(match_id)["version"] == 1


def test_the_largest_accepted_numbers_answer_without_error(api):
    # 2^53 - 1 is accepted where a version or an offset goes: an empty page, an unknown version.
    match_id, _ = api.create()
    top = 2**53 - 1
    assert api.get(f"/api/matches?offset={top}").get_json()["matches"] == []
    assert api.get(f"/api/matches/{match_id}/events?after={top}").get_json()["entries"] == []
    assert api.get(f"/api/matches/{match_id}/state?version={top}").status_code == 404


# -- names: lone surrogates and control characters, at create and claim -----------

SURROGATES = ['"\\ud800x"', '"x\\udfff"', '"\\udc00\\ud800"']
CONTROLS = ['"a\\u0000b"', '"tab\\there"', '"\\u001b[31mred"', '"line\\nbreak"', '"\\u007f"', '"   "']
#: Python's ``$`` also matches before a final newline: these passed the name's pattern.
TRAILING_NEWLINES = ['"Ana\\n"', '"Ana\\r\\n"', '"\\u0041\\n"']


@pytest.mark.parametrize("name", SURROGATES + CONTROLS + TRAILING_NEWLINES)
def test_names_with_lone_surrogates_or_control_characters_are_refused_at_create_and_claim(
    api, expect_problem, name
):
    status, code = (400, "invalid-unicode") if name in SURROGATES else (422, "validation-error")
    before = _lobby(api)
    created = _post_raw(
        api, "/api/matches", '{"game": "nim", "seats": [{"name": %s}, {"name": "Bo"}]}' % name
    )
    expect_problem(created, status, code)
    assert _lobby(api) == before
    # The same name at claim: refused the same way, the seat stays open.
    match_id, tokens = api.create(seats=[{"name": "Ana"}, None])
    expect_problem(_post_raw(api, f"/api/matches/{match_id}/seats/1", '{"name": %s}' % name), status, code)
    assert api.get(f"/api/matches/{match_id}").get_json()["seats"][1]["open"] is True
    # Someone with a plain name can still take it, and the match plays, reads and streams for everyone.
    claimed = api.post(f"/api/matches/{match_id}/seats/1", {"name": "Bo"})
    assert claimed.status_code == 201
    tokens[1] = claimed.get_json()["token"]
    active = api.state(match_id)["active_seats"][0]
    assert api.move(match_id, tokens[active], api.legal(match_id, tokens[active])[0]).status_code == 201
    assert api.get(f"/api/matches/{match_id}/events").status_code == 200
    stream = api.get(f"/api/matches/{match_id}/stream")
    assert stream.status_code == 200 and b"event: entry" in stream.get_data()


def test_a_name_ending_in_a_newline_is_refused_at_fork_and_import_too(api, expect_problem):
    doc = _finished_export(api)
    match_id = [m["id"] for m in api.get("/api/matches?status=finished").get_json()["matches"]][0]
    before = _lobby(api)
    seats = [{"name": "Ana"}, {"name": "Bo\n"}]
    fork = api.post(f"/api/matches/{match_id}/fork", {"version": 2, "seats": seats})
    assert "seats" in expect_problem(fork, 422, "validation-error")["errors"]
    imported = api.post("/api/matches/import", {**doc, "seats": seats})
    assert "seats" in expect_problem(imported, 422, "validation-error")["errors"]
    assert _lobby(api) == before


def test_an_option_ending_in_a_newline_is_refused(api, expect_problem):
    """The Stars Are Right's ``no_cancel_checks`` (letters of abcd) took ``"ab\\n"`` and stored it."""
    before = _lobby(api)
    body = {"game": "stars-are-right", "seats": [{"name": "Ana"}, {"name": "Bo"}]}
    refused = api.post("/api/matches", {**body, "options": {"no_cancel_checks": "ab\n"}})
    assert "no_cancel_checks" in expect_problem(refused, 422, "bad-options")["errors"]["options"]
    assert _lobby(api) == before
    created = api.post("/api/matches", {**body, "options": {"no_cancel_checks": "ab"}})
    assert created.get_json()["match"]["options"]["no_cancel_checks"] == "ab"


def test_printable_unicode_names_are_still_welcome(api):
    match_id, _ = api.create(seats=[{"name": "Zoë 🚀"}, {"name": "👩‍👩‍👧 family"}])
    assert [s["name"] for s in api.get(f"/api/matches/{match_id}").get_json()["seats"]] == [
        "Zoë 🚀",
        "👩‍👩‍👧 family",
    ]


def test_lone_surrogates_are_refused_in_any_string_of_any_body(api, expect_problem):
    match_id, tokens = api.create()
    for path, raw in [
        ("/api/matches", '{"game": "nim", "seats": [{"name": "A"}, {"name": "B"}], "seed": "\\ud800"}'),
        ("/api/matches", '{"game": "\\ud800", "seats": []}'),
        (f"/api/matches/{match_id}/moves", '{"move": {"type": "\\udfff"}}'),
        (f"/api/matches/{match_id}/moves", '{"move": {"\\ud800": 1}}'),
    ]:
        expect_problem(_post_raw(api, path, raw, token=tokens[0]), 400, "invalid-unicode")
    assert api.state(match_id)["version"] == 1


# -- import: empty or wrong-sized seats, names, AI levels (13.3, 13.4) -------------


def _finished_export(api):
    match_id, tokens = api.create(seed="import-me")
    while api.state(match_id)["status"] != "finished":
        for _seat, token in tokens.items():
            moves = api.legal(match_id, token)
            if moves:
                assert api.move(match_id, token, moves[0]).status_code == 201
    return api.get(f"/api/matches/{match_id}/export").get_json()


@pytest.mark.parametrize(
    "seats, code",
    [
        ([], "validation-error"),
        ([{"name": "A"}], "bad-seat-count"),
        ([{"name": "A"}, {"name": "B"}, {"name": "C"}], "bad-seat-count"),
        ([{"name": "A"}] * 17, "validation-error"),
        ([{"name": "A"}, {"name": "B", "ai": "grandmaster"}], "unknown-ai-level"),
        ([{"name": "A"}, {"name": "\x07bell"}], "validation-error"),
        ([{"name": "A"}, {"name": ""}], "validation-error"),
        ([{"name": "A"}, None], "validation-error"),
        ([{"name": "A"}, {}], "validation-error"),
    ],
)
def test_import_with_empty_or_wrong_sized_seats_bad_names_or_ai_levels_is_refused(
    api, expect_problem, seats, code
):
    doc = _finished_export(api)
    before = _lobby(api)
    expect_problem(_post_raw(api, "/api/matches/import", json.dumps({**doc, "seats": seats})), 422, code)
    assert _lobby(api) == before
    assert api.post("/api/matches/import", doc).status_code == 201  # the export itself imports


def test_fork_refuses_unknown_ai_levels_like_create(api, expect_problem):
    doc = _finished_export(api)
    match_id = [m["id"] for m in api.get("/api/matches?status=finished").get_json()["matches"]][0]
    before = _lobby(api)
    expect_problem(
        api.post("/api/matches", {"game": "nim", "seats": [{"name": "A"}, {"name": "B", "ai": "god"}]}),
        422,
        "unknown-ai-level",
    )
    expect_problem(
        api.post(
            f"/api/matches/{match_id}/fork",
            {"version": 2, "seats": [{"name": "A"}, {"name": "B", "ai": "god"}]},
        ),
        422,
        "unknown-ai-level",
    )
    expect_problem(
        api.post(
            f"/api/matches/{match_id}/fork", {"version": 2, "seats": [{"name": "A"}, {"name": "\u0000"}]}
        ),
        422,
        "validation-error",
    )
    assert _lobby(api) == before
    level = api.get("/api/games/nim").get_json()["ai_levels"][0]
    assert (
        api.post(
            f"/api/matches/{match_id}/fork",
            {"version": 2, "seats": [{"name": "A"}, {"name": "B", "ai": level}]},
        ).status_code
        == 201
    )
    assert doc["complete"] is True


# -- HTTP conformance (13.6) -------------------------------------------------------


def test_401_carries_www_authenticate_bearer(api, expect_problem):
    match_id, _ = api.create()
    missing = api.move(match_id, None, {"type": "take", "pile": 0, "count": 1})
    expect_problem(missing, 401, "token-required")
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    wrong = api.get(f"/api/matches/{match_id}/state", token="not-a-token")
    expect_problem(wrong, 401, "bad-token")
    assert wrong.headers["WWW-Authenticate"] == 'Bearer realm="gameroom", error="invalid_token"'
    scheme = api.get(f"/api/matches/{match_id}/state", headers={"Authorization": "Basic eDp5"})
    expect_problem(scheme, 401, "bad-token")
    assert scheme.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "method, path, allowed",
    [
        ("DELETE", "/api/matches", {"GET", "POST"}),
        ("PUT", "/api/games", {"GET"}),
        ("TRACE", "/api/readyz", {"GET"}),
        ("PATCH", "/api/matches/{m}/moves", {"POST"}),
        ("GET", "/api/matches/import", {"POST"}),
        ("DELETE", "/api/matches/import", {"POST"}),
    ],
)
def test_405_carries_allow(api, expect_problem, method, path, allowed):
    match_id, _ = api.create()
    response = api.call(method, path.format(m=match_id), validate=False)
    expect_problem(response, 405, "method-not-allowed")
    listed = {m.strip() for m in response.headers["Allow"].split(",")}
    assert allowed <= listed and listed <= allowed | {"HEAD", "OPTIONS"}


def test_options_and_get_of_import_do_not_fall_into_match_id(api):
    options = api.call("OPTIONS", "/api/matches/import", validate=False)
    assert options.status_code == 200
    assert {m.strip() for m in options.headers["Allow"].split(",")} == {"POST", "OPTIONS"}
    get = api.call("GET", "/api/matches/import", validate=False)
    assert get.status_code == 405 and get.get_json()["code"] == "method-not-allowed"
    # A match id that merely starts with "import" is an id like any other.
    assert api.get("/api/matches/importer").get_json()["code"] == "unknown-match"


def test_a_lone_surrogate_stored_before_the_fix_does_not_break_the_match_for_anyone(api, matches):
    # A name written before bodies with lone surrogates were refused: the match still reads.
    match_id, tokens = api.create(seats=[{"name": "Ana"}, None])
    matches.store.redis.hset(
        f"gameroom:{{{match_id}}}:meta", "seat:1", json.dumps({"name": "\ud800x", "ai": None})
    )
    matches.store.redis.hset(f"gameroom:{{{match_id}}}:tokens", "0" * 64, 1)
    for path in ["", "/state", "/events", "/export"]:
        response = api.get(f"/api/matches/{match_id}{path}")
        assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
    # (the response is read with the standard library: the test client's get_json is the strict one)
    assert json.loads(api.get(f"/api/matches/{match_id}").get_data())["seats"][1]["name"] == "\ud800x"


@pytest.mark.parametrize("key", ["a\x00b", "tab\tkey", "del\x7f", "é-latin", "ÿþ", "", "k" * 129])
def test_an_idempotency_key_with_a_control_or_non_ascii_character_is_refused(api, expect_problem, key):
    match_id, tokens = api.create()
    seat = api.state(match_id)["active_seats"][0]
    move = api.legal(match_id, tokens[seat])[0]
    before = api.state(match_id)["version"]
    refused = api.call(
        "POST",
        f"/api/matches/{match_id}/moves",
        {"move": move},
        token=tokens[seat],
        headers={"Idempotency-Key": key},
        validate=False,  # the header itself breaks the documented pattern
    )
    expect_problem(refused, 400, "bad-idempotency-key")
    assert api.state(match_id)["version"] == before
    kept = api.call(
        "POST",
        f"/api/matches/{match_id}/moves",
        {"move": move},
        token=tokens[seat],
        headers={"Idempotency-Key": "a b~"},
    )
    assert kept.status_code == 201 and api.state(match_id)["version"] == before + 1


# -- a body that is not declared JSON ---------------------------------------------------

FORM = "application/x-www-form-urlencoded"  # what `curl -d` sends without -H


def _post_typed(api, path, body, content_type, token=None):
    """POST ``body`` as ``content_type``; the answer is checked against openapi.yaml."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = api.client.post(path, data=body, content_type=content_type, headers=headers)
    api._validate("POST", path, r, headers)
    return r


@pytest.mark.parametrize(
    "content_type", [FORM, "text/plain", "application/xml", "multipart/form-data; boundary=x"]
)
def test_a_body_not_declared_json_is_refused_with_415_and_changes_nothing(api, expect_problem, content_type):
    """Read as "no body", a leave's ``{"level": "mcts"}`` sent form-encoded would hand the seat
    to the default level; every body route refuses it instead."""
    match_id, tokens = api.create()
    base = f"/api/matches/{match_id}"
    version = api.state(match_id)["version"]
    before = _lobby(api)
    seat = api.state(match_id)["active_seats"][0]
    for path, body, token in [
        ("/api/matches", '{"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]}', None),
        (f"{base}/moves", '{"move": {"type": "take", "pile": 0, "count": 1}}', tokens[seat]),
        (f"{base}/leave", '{"level": "greedy"}', tokens[seat]),
        (f"{base}/undo", '{"steps": 1}', tokens[seat]),
        ("/api/matches/import", "{}", None),
    ]:
        expect_problem(_post_typed(api, path, body, content_type, token), 415, "unsupported-media-type")
    assert api.state(match_id)["version"] == version and _lobby(api) == before


def test_a_bodiless_post_with_any_content_type_still_works(api):
    """``curl -X POST`` with no body, or a client that always sends a Content-Type: no body, no 415."""
    match_id, tokens = api.create()
    seat = api.state(match_id)["active_seats"][0]
    r = api.call(
        "POST", f"/api/matches/{match_id}/resign", token=tokens[seat], headers={"Content-Type": FORM}
    )
    assert r.status_code == 201, r.get_data(as_text=True)


# -- a name twice in one object ---------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        '{"move": {"type": "take", "pile": 0, "count": 1, "count": 2}}',
        '{"move": {"type": "take", "pile": 0, "count": 1}, "move": {"type": "take", "pile": 0, "count": 2}}',
        '{"move": {"type": "take", "pile": 0, "count": 1}, "expected_version": 1, "expected_version": 9}',
    ],
)
def test_a_name_twice_in_one_object_is_refused_not_read_as_its_last_value(api, expect_problem, raw):
    match_id, tokens = api.create()
    expect_problem(
        _post_raw(api, f"/api/matches/{match_id}/moves", raw, token=tokens[0]), 400, "duplicate-json-name"
    )
    assert api.state(match_id)["version"] == 1


def test_a_name_twice_is_refused_on_creation_and_claims_too(api, expect_problem):
    before = _lobby(api)
    body = '{"game": "nim", "game": "tic-tac-toe", "seats": [{"name": "Ana"}, {"name": "Bo"}]}'
    expect_problem(_post_raw(api, "/api/matches", body), 400, "duplicate-json-name")
    assert _lobby(api) == before
    match_id, _tokens = api.create(seats=[{"name": "Ana"}, None])
    expect_problem(
        _post_raw(api, f"/api/matches/{match_id}/seats/1", '{"name": "Bo", "name": "Eve"}'),
        400,
        "duplicate-json-name",
    )
    assert api.get(f"/api/matches/{match_id}").get_json()["seats"][1]["open"] is True


def test_the_same_name_in_different_objects_is_fine(api):
    body = '{"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}], "options": {"piles": [2]}}'
    assert _post_raw(api, "/api/matches", body).status_code == 201


# -- the actions that take no parameters read their body too ---------------------------


def _nim(api):
    data = api.post("/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}]}).get_json()
    return data["match"]["id"], data["tokens"], data["admin_token"]


def _bodiless_actions(api):
    """A resign, a reclaim, a rematch and a release, each ready to succeed: ``[(path, token)]``,
    and the ids of the matches they would change."""
    playing, tokens, _ = _nim(api)
    left, left_tokens, admin = _nim(api)
    assert api.post(f"/api/matches/{left}/leave", {}, token=left_tokens["1"]).status_code == 201
    over, over_tokens, over_admin = _nim(api)
    assert api.post(f"/api/matches/{over}/resign", token=over_tokens["0"]).status_code == 201
    kept = api.post(f"/api/matches/{over}/rematch", token=over_tokens["1"]).get_json()["match"]["id"]
    done, done_tokens, _ = _nim(api)
    assert api.post(f"/api/matches/{done}/resign", token=done_tokens["0"]).status_code == 201
    actions = [
        (f"/api/matches/{playing}/resign", tokens["0"]),
        (f"/api/matches/{left}/seats/1/reclaim", admin),
        (f"/api/matches/{done}/rematch", done_tokens["1"]),
        (f"/api/matches/{kept}/seats/0/release", over_admin),
    ]
    return actions, [playing, left, over, kept, done]


def _versions(api, match_ids):
    return [api.get(f"/api/matches/{m}").get_json()["version"] for m in match_ids]


@pytest.mark.parametrize(
    "content_type, body, status, code",
    [
        ("text/plain", "please do not resign", 415, "unsupported-media-type"),
        ("application/xml", "<x/>", 415, "unsupported-media-type"),
        (FORM, "confirm=no", 415, "unsupported-media-type"),
        ("application/json", "{broken", 400, "malformed-json"),
        ("application/json", _nested(10_000), 400, "json-too-deep"),
        ("application/json", '{"x": "%s"}' % ("x" * 70_000), 413, "body-too-large"),
        ("application/json", '{"confirm": false}', 422, "validation-error"),
        ("application/json", '{"level": "greedy"}', 422, "validation-error"),
        ("application/json", "[]", 422, "validation-error"),
        ("application/json", "null", 422, "validation-error"),
        ("application/json", '"resign"', 422, "validation-error"),
    ],
)
def test_resign_reclaim_rematch_and_release_refuse_a_body_they_cannot_take_and_do_nothing(
    api, expect_problem, content_type, body, status, code
):
    """Left unread, ``please do not resign`` sent as text/plain resigned: these actions cannot be
    undone, so a body that is not JSON, is broken, or asks for anything is refused as on every
    other route."""
    actions, match_ids = _bodiless_actions(api)
    versions, before = _versions(api, match_ids), _lobby(api)
    for path, token in actions:
        expect_problem(_post_typed(api, path, body, content_type, token), status, code)
    assert _versions(api, match_ids) == versions and _lobby(api) == before


@pytest.mark.parametrize(
    "content_type, body",
    [(None, None), ("application/json", ""), ("application/json", "{}"), ("application/json", " { } ")],
)
def test_resign_reclaim_rematch_and_release_take_no_body_or_an_empty_object(api, content_type, body):
    actions, _ = _bodiless_actions(api)
    for path, token in actions:
        r = _post_typed(api, path, body, content_type, token)
        assert r.status_code == 201, (path, r.get_data(as_text=True))


@pytest.mark.parametrize(
    "method, path",
    [("GET", "/api//games"), ("POST", "/api//matches"), ("GET", "//api/games"), ("GET", "/static//x.js")],
)
def test_a_doubled_slash_is_a_404_problem_not_a_redirect_to_the_clients_host(client, method, path):
    """werkzeug merged slashes with a 308 (HTML body, Location built from the Host header)."""
    response = client.open(
        path, method=method, headers={"Host": "evil.example"}, json={} if method == "POST" else None
    )
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
    assert "Location" not in response.headers
    assert response.get_json()["code"] == "not-found"


@pytest.mark.parametrize("match_id", ["x" * 3000, "a%00b", "abc%E2%80%AEdef", "m%20atch"])
def test_an_unknown_match_id_of_no_id_shape_is_not_echoed_back(api, expect_problem, match_id):
    """A 404 names the id only when it looks like one: whatever else was in the URL (3,000
    characters, a NUL, a right-to-left override) is not repeated to the client."""
    for path in (
        f"/api/matches/{match_id}",
        f"/api/matches/{match_id}/state",
        f"/api/matches/{match_id}/stream",
    ):
        problem = expect_problem(api.get(path), 404, "unknown-match")
        assert problem["detail"] == "No match with that id.", problem
    named = expect_problem(api.get("/api/matches/no-such-match-0/state"), 404, "unknown-match")
    assert named["detail"] == "No match no-such-match-0."
