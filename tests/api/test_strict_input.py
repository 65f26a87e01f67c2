"""Numbers, flags, AI levels and names are taken as the OpenAPI document types them, not as
Python would coerce them: ``1.5``, ``"1"`` and ``true`` are no integer, ``"yes"`` is no
boolean, ``"+1"`` and ``"１"`` are no query integer, ``""`` is no AI level, and a name of
invisible or bidi-control characters is no name. Each is refused with a problem and
changes nothing; the ordinary values beside them are still accepted.

Run against the app over a real redis-server (see tests/conftest.py).
"""

import json

import pytest

NIM_TAKE = {"type": "take", "pile": 0, "count": 1}
NOT_INTEGERS = [1.5, 1.0, "1", True]


def _lobby(api):
    return [m["id"] for m in api.get("/api/matches?limit=200").get_json()["matches"]]


def _events(api, match_id):
    return api.get(f"/api/matches/{match_id}/events").get_json()["entries"]


def _first(api, match_id):
    return api.state(match_id)["active_seats"][0]


def _finished(api):
    """A finished Nim match (forks need one) and its tokens."""
    match_id, tokens = api.create(seed="strict")
    while api.state(match_id)["status"] != "finished":
        seat = _first(api, match_id)
        assert api.move(match_id, tokens[seat], api.legal(match_id, tokens[seat])[0]).status_code == 201
    return match_id, tokens


# -- integers, numbers and booleans in request bodies ------------------------------


@pytest.mark.parametrize("version", NOT_INTEGERS)
def test_fork_refuses_a_version_that_is_not_a_json_integer(api, expect_problem, version):
    match_id, _ = _finished(api)
    before = _lobby(api)
    expect_problem(api.post(f"/api/matches/{match_id}/fork", {"version": version}), 422, "validation-error")
    assert _lobby(api) == before
    assert api.post(f"/api/matches/{match_id}/fork", {"version": 1}).status_code == 201


@pytest.mark.parametrize(
    "body",
    [{"expected_version": v} for v in NOT_INTEGERS] + [{"seat": v} for v in [0.0, "0", False]],
)
def test_a_move_refuses_expected_version_or_seat_that_is_not_a_json_integer(api, expect_problem, body):
    match_id, tokens = api.create()
    seat = _first(api, match_id)
    expect_problem(api.move(match_id, tokens[seat], NIM_TAKE, **body), 422, "validation-error")
    assert api.state(match_id)["version"] == 1 and len(_events(api, match_id)) == 1
    assert api.move(match_id, tokens[seat], NIM_TAKE, expected_version=1, seat=seat).status_code == 201


@pytest.mark.parametrize("steps", [1.5, 1.0, "1", True])
def test_undo_refuses_steps_that_are_not_a_json_integer(api, expect_problem, steps):
    match_id, tokens = api.create()
    seat = _first(api, match_id)
    assert api.move(match_id, tokens[seat], NIM_TAKE).status_code == 201
    refused = api.post(f"/api/matches/{match_id}/undo", {"steps": steps}, token=tokens[seat])
    expect_problem(refused, 422, "validation-error")
    assert api.state(match_id)["version"] == 2 and len(_events(api, match_id)) == 2
    assert api.get(f"/api/matches/{match_id}/undo-requests").get_json()["requests"] == []
    assert api.post(f"/api/matches/{match_id}/undo", {"steps": 1}, token=tokens[seat]).status_code == 201


@pytest.mark.parametrize(
    "clock",
    [
        {"bank": "10"},
        {"bank": True},
        {"per_move": "30"},
        {"per_move": [30]},
        {"bank": 60, "increment": "1"},
    ],
)
def test_a_clock_refuses_seconds_that_are_not_a_json_number(api, expect_problem, clock):
    before = _lobby(api)
    body = {"game": "nim", "seats": [{"name": "A"}, {"name": "B"}], "clock": clock}
    expect_problem(api.post("/api/matches", body), 422, "validation-error")
    assert _lobby(api) == before


def test_a_clock_takes_integer_and_fractional_seconds(api):
    match_id, _ = api.create(clock={"per_move": 30, "bank": 60.5, "increment": 1})
    control = api.get(f"/api/matches/{match_id}").get_json()["settings"]["clock"]
    assert control == {"per_move": 30.0, "bank": 60.5, "increment": 1.0}


@pytest.mark.parametrize(
    "change",
    [
        {"complete": "true"},
        {"complete": 1},
        {"format_version": 1.0},
        {"format_version": "1"},
        {"rules_version": True},
        {"version": "9"},
        {"created": "yesterday"},
    ],
)
def test_import_refuses_numbers_and_flags_of_the_wrong_json_type(api, expect_problem, change):
    match_id, _ = _finished(api)
    doc = api.get(f"/api/matches/{match_id}/export").get_json()
    before = _lobby(api)
    expect_problem(api.post("/api/matches/import", {**doc, **change}), 422, "validation-error")
    assert _lobby(api) == before
    assert api.post("/api/matches/import", doc).status_code == 201


# -- game options ------------------------------------------------------------------


@pytest.mark.parametrize(
    "game, options",
    [
        ("nim", {"piles": [1.5, 3, 2]}),
        ("nim", {"piles": ["3", 4]}),
        ("nim", {"piles": [2.9]}),
        ("nim", {"piles": [True, 2]}),
        ("nim", {"max_take": 2.0}),
        ("nim", {"max_take": "2"}),
        ("nim", {"misere": "yes"}),
        ("nim", {"misere": 1}),
        ("look-at-the-stars", {"solo_variant": "yes"}),
        ("look-at-the-stars", {"live_score": 0}),
        ("stars-are-right", {"allow_mirror": "true"}),
        ("stars-are-right", {"turn_limit": "100"}),
        ("tiny-stellar-empires", {"discard_pile_public": "no"}),
    ],
)
def test_game_options_refuse_numbers_and_flags_of_the_wrong_json_type(api, expect_problem, game, options):
    seats = [{"name": "A"}, {"name": "B"}]
    before = _lobby(api)
    body = expect_problem(
        api.post("/api/matches", {"game": game, "seats": seats, "options": options}), 422, "bad-options"
    )
    assert set(body["errors"]["options"]) == set(options)
    assert _lobby(api) == before


def test_game_options_of_the_right_json_type_are_taken_as_sent(api):
    match_id, _ = api.create(options={"piles": [1, 3, 2], "max_take": 2, "misere": True})
    assert api.get(f"/api/matches/{match_id}").get_json()["options"] == {
        "piles": [1, 3, 2],
        "max_take": 2,
        "misere": True,
    }
    assert api.create(game="look-at-the-stars", seats=[{"name": "Solo"}], options={"solo_variant": True})


# -- query integers ----------------------------------------------------------------

NOT_DIGITS = ["%2B1", "%201", "1%20", "1%0A", "%EF%BC%91", "1.0", "1_0", "0x1", "-0", "", "1e0"]


@pytest.mark.parametrize("value", NOT_DIGITS)
def test_query_integers_take_ascii_digits_only(api, expect_problem, value):
    match_id, tokens = api.create()
    seat = _first(api, match_id)
    assert api.move(match_id, tokens[seat], NIM_TAKE).status_code == 201
    for path in [
        f"/api/matches?offset={value}",
        f"/api/matches?limit={value}",
        f"/api/matches/{match_id}/events?after={value}",
        f"/api/matches/{match_id}/events?limit={value}",
        f"/api/matches/{match_id}/state?version={value}",
        f"/api/matches/{match_id}/state?seat={value}",
        f"/api/matches/{match_id}/stream?after={value}",
    ]:
        expect_problem(api.get(path, validate=False), 422, "validation-error")
    # the same places take the plain digits
    assert api.get(f"/api/matches/{match_id}/state?version=1").get_json()["version"] == 1
    assert [e["version"] for e in _events(api, match_id)] == [1, 2]
    assert [
        e["version"]
        for e in api.get(f"/api/matches/{match_id}/events?after=1&limit=01").get_json()["entries"]
    ] == [2]
    assert api.get("/api/matches?offset=0&limit=1").status_code == 200


@pytest.mark.parametrize("seat", ["%EF%BC%91", "%D9%A1", "%E0%A5%A7"])
def test_a_seat_in_the_path_takes_ascii_digits_only(api, expect_problem, seat):
    # full-width, Arabic-Indic and Devanagari one
    match_id, _ = api.create(seats=[{"name": "Ana"}, None])
    expect_problem(
        api.post(f"/api/matches/{match_id}/seats/{seat}", {"name": "Bo"}, validate=False), 404, "not-found"
    )
    expect_problem(
        api.post(f"/api/matches/{match_id}/seats/{seat}/reclaim", validate=False), 404, "not-found"
    )
    assert api.get(f"/api/matches/{match_id}").get_json()["seats"][1]["open"] is True
    assert api.post(f"/api/matches/{match_id}/seats/1", {"name": "Bo"}).status_code == 201


# -- moves the rules check by hand -------------------------------------------------


@pytest.mark.parametrize(
    "game, move, rule",
    [
        ("nim", {"type": "take", "pile": True, "count": 1}, "no-such-pile"),
        ("nim", {"type": "take", "pile": False, "count": 1}, "no-such-pile"),
        ("nim", {"type": "take", "pile": 0.0, "count": 1}, "no-such-pile"),
        ("nim", {"type": "take", "pile": "0", "count": 1}, "no-such-pile"),
        ("nim", {"type": "take", "pile": 0, "count": True}, "take-at-least-one"),
        ("nim", {"type": "take", "pile": 0, "count": 1.0}, "take-at-least-one"),
        ("tic-tac-toe", {"type": "mark", "cell": True}, "no-such-cell"),
        ("tic-tac-toe", {"type": "mark", "cell": 4.0}, "no-such-cell"),
    ],
)
def test_a_move_with_a_bool_or_float_for_an_integer_is_an_illegal_move(api, expect_problem, game, move, rule):
    match_id, tokens = api.create(game=game)
    seat = _first(api, match_id)
    body = expect_problem(api.move(match_id, tokens[seat], move), 422, "illegal-move")
    assert body["rule"] == rule
    assert api.state(match_id)["version"] == 1 and len(_events(api, match_id)) == 1
    assert api.move(match_id, tokens[seat], api.legal(match_id, tokens[seat])[0]).status_code == 201


# -- an empty AI level -------------------------------------------------------------


def test_an_empty_ai_level_is_refused_at_create_fork_and_import(api, expect_problem):
    match_id, _ = _finished(api)
    doc = api.get(f"/api/matches/{match_id}/export").get_json()
    before = _lobby(api)
    seats = [{"name": "A"}, {"name": "B", "ai": ""}]
    expect_problem(api.post("/api/matches", {"game": "nim", "seats": seats}), 422, "unknown-ai-level")
    expect_problem(
        api.post(f"/api/matches/{match_id}/fork", {"version": 2, "seats": seats}), 422, "unknown-ai-level"
    )
    expect_problem(api.post("/api/matches/import", {**doc, "seats": seats}), 422, "unknown-ai-level")
    assert _lobby(api) == before
    # an absent or null level is a human seat, as before
    created = api.post("/api/matches", {"game": "nim", "seats": [{"name": "A"}, {"name": "B", "ai": None}]})
    assert created.status_code == 201 and sorted(created.get_json()["tokens"]) == ["0", "1"]


def test_an_empty_ai_level_is_refused_at_leave_and_in_a_timeout_policy(api, expect_problem):
    match_id, tokens = api.create()
    seat = _first(api, match_id)
    refused = api.post(f"/api/matches/{match_id}/leave", {"level": ""}, token=tokens[seat])
    expect_problem(refused, 422, "validation-error")
    assert api.state(match_id)["version"] == 1 and api.state(match_id, token=tokens[seat])["seat"] == seat
    before = _lobby(api)
    body = {
        "game": "nim",
        "seats": [{"name": "A"}, {"name": "B"}],
        "clock": {"per_move": 30},
        "timeout": {"level": ""},
    }
    expect_problem(api.post("/api/matches", body), 422, "validation-error")
    assert _lobby(api) == before


def test_a_seat_stored_with_an_empty_ai_level_before_the_fix_still_forks_and_exports(
    api, plain_matches, redis_client
):
    # Played to the end outside the app, so the app reads the record as stored.
    loaded, _ = plain_matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}])
    match_id, game = loaded.record.id, plain_matches.game(loaded.record)
    while not game.outcome(loaded.folded.state):
        seat = game.active_seats(loaded.folded.state)[0]
        plain_matches.submit(match_id, seat, game.legal_moves(loaded.folded.state, seat)[0])
        loaded = plain_matches.load(match_id)
    redis_client.hset(f"gameroom:{{{match_id}}}:meta", "seat:1", json.dumps({"name": "Bo", "ai": ""}))
    assert api.get(f"/api/matches/{match_id}").get_json()["seats"][1]["ai"] == ""
    fork = api.post(f"/api/matches/{match_id}/fork", {"version": 2})
    assert fork.status_code == 201, fork.get_json()
    assert fork.get_json()["match"]["seats"][1]["ai"] is None
    doc = api.get(f"/api/matches/{match_id}/export").get_json()
    assert doc["seats"][1] == {"name": "Bo", "ai": None}
    assert api.post("/api/matches/import", doc).status_code == 201


# -- names of invisible or bidi-control characters ---------------------------------

INVISIBLE = [
    "\u200b",  # zero-width space
    "\ufeff",  # BOM
    "\u202eevil",  # right-to-left override
    "Ana\u2066",  # left-to-right isolate
    "\u200fBo",  # right-to-left mark
    "\u00ad",  # soft hyphen
    "x\U000e0041",  # a tag character (astral: beyond the published pattern)
    "\u2060\u2060",  # word joiners
    "\u200d",  # a zero-width joiner alone
    "\u200dAna",  # ... at the start
    "Ana\u200c",  # a non-joiner at the end
    "a\u200d\u200db",  # ... joining a format character
    "a\u200d b",  # ... or a blank
    "\u3164",  # Hangul filler: a letter that shows nothing
    "\u2800 \u2800",  # braille blanks
    "\u0301",  # a combining mark alone
    "\ufe0f",  # a variation selector alone
    "ad\u034fmin",  # a combining grapheme joiner: shows as "admin"
    "Bob\ufe0f",  # variation selectors after a letter: show as "Bob"
    "Bob\ufe00",
    "Bob\U000e0100",
    "1\ufe0f",  # ... after a digit that starts no keycap
    "ad\u3164min",  # a Hangul filler inside a name
    "a\u1160b",
    "a\u17b4b",  # a Khmer invisible vowel
    "a\u2028b",  # line and paragraph separators
    "a\u2029b",
    "\U0001f3f4\U000e0067\U000e0062",  # a flag tag sequence without its cancel tag
    "\U0001f3f4\U000e007f",  # ... or without tags
    "Ana\U000e0067\U000e0062\U000e007f",  # tags without the black flag
]


@pytest.mark.parametrize("name", INVISIBLE)
def test_names_with_invisible_or_bidi_control_characters_are_refused_everywhere(api, expect_problem, name):
    finished, _ = _finished(api)
    doc = api.get(f"/api/matches/{finished}/export").get_json()
    match_id, _ = api.create(seats=[{"name": "Ana"}, None])
    before = _lobby(api)
    seats = [{"name": "Ana"}, {"name": name}]
    expect_problem(api.post("/api/matches", {"game": "nim", "seats": seats}), 422, "validation-error")
    expect_problem(api.post(f"/api/matches/{match_id}/seats/1", {"name": name}), 422, "validation-error")
    expect_problem(
        api.post(f"/api/matches/{finished}/fork", {"version": 2, "seats": seats}), 422, "validation-error"
    )
    expect_problem(api.post("/api/matches/import", {**doc, "seats": seats}), 422, "validation-error")
    assert _lobby(api) == before
    assert api.get(f"/api/matches/{match_id}").get_json()["seats"][1]["open"] is True


@pytest.mark.parametrize(
    "name",
    [
        "Zoë",
        "李小龍",
        "Ω-7",
        "🚀",
        "👩\u200d👩\u200d👧 family",  # emoji joined by zero-width joiners
        "👍🏽",  # a skin-tone modifier
        "❤\ufe0f",  # a variation selector after its character
        "1\ufe0f\u20e3",  # a keycap
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Ana",  # Scotland's flag
        "می\u200cخواهم",  # Persian with a zero-width non-joiner
        "क्\u200dष",  # Devanagari with a zero-width joiner
        "José\u0301",  # a combining mark after a letter
        "O'Brien",
        "_",
    ],
)
def test_printable_names_in_any_script_are_still_welcome(api, name):
    match_id, tokens = api.create(seats=[{"name": "Ana"}, None])
    claimed = api.post(f"/api/matches/{match_id}/seats/1", {"name": name})
    assert claimed.status_code == 201, claimed.get_json()
    assert json.loads(api.get(f"/api/matches/{match_id}").get_data())["seats"][1]["name"] == name
    created, _ = api.create(seats=[{"name": name}, {"name": "Bo"}])
    assert api.get(f"/api/matches/{created}").get_json()["seats"][0]["name"] == name
