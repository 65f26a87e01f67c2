"""The lean path (gameroom.http.lean) answers exactly as the Flask views do: moves, plain state
reads, seat claims and creation.

Two matches with the same seed are played with the same requests: one
through the lean path (the app with the fast paths on, ``client``), one
through Flask's routes (the same app with ``GAMEROOM_FAST_PATHS`` off,
``flask_client``, on the same Redis). Every status, header and body must be
the same, up to the match id and the secrets and times that differ between two
matches.
"""

import json

import pytest

from gameroom import create_app, jsoncodec
from gameroom.http import lean
from gameroom.schemas import SeatTokenSchema

TAKE = {"type": "take", "pile": 0, "count": 1}


def _app(redis_server, registry, fast_paths: bool):
    """The test app with reproducible seeds, so that two matches of one seed are the same match."""
    settings = {"redis_url": redis_server.url, "ai_mode": "off", "reproducible_seeds": True}
    app = create_app({**settings, "fast_paths": fast_paths}, registry)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def app(redis_server, registry):
    """The app with the lean path (the fast paths on)."""
    return _app(redis_server, registry, True)


@pytest.fixture
def flask_client(redis_server, registry):
    """A client of the app with the fast paths off: Flask's routes answer every request."""
    return _app(redis_server, registry, False).test_client()


def _count_calls(app, monkeypatch, endpoint: str) -> list:
    """A list that grows by one for each request reaching the Flask view ``endpoint`` (which still runs)."""
    calls = []
    view = app.view_functions[endpoint]

    def counting(*args, **kwargs):
        calls.append(1)
        return view(*args, **kwargs)

    monkeypatch.setitem(app.view_functions, endpoint, counting)
    return calls


@pytest.fixture
def flask_view_calls(app, monkeypatch):
    """How many requests reached the Flask view of POST .../moves (counts only; the view still runs)."""
    return _count_calls(app, monkeypatch, "play.Moves")


def _requests(tokens, seat, version):
    """(what, body or raw bytes, token, extra headers): successes and every kind of refusal."""
    mine, theirs = tokens[seat], tokens[1 - seat]
    return [
        ("not-your-turn", {"move": TAKE}, theirs, {}),
        ("not-your-seat", {"move": TAKE, "seat": 1 - seat}, mine, {}),
        ("bad-token", {"move": TAKE}, "not-a-token", {}),
        ("token-required", {"move": TAKE}, None, {}),
        ("basic-scheme", {"move": TAKE}, None, {"Authorization": "Basic abc"}),
        ("illegal-move", {"move": {"type": "take", "pile": 0, "count": 99}}, mine, {}),
        ("validation-error", {"move": "take"}, mine, {}),
        ("unknown-field", {"move": TAKE, "extra": 1}, mine, {}),
        ("malformed-json", b"{nope", mine, {}),
        ("not-an-object", b"[1, 2]", mine, {}),
        ("too-deep", b"[" * 100 + b"]" * 100, mine, {}),
        ("nan", b'{"move": {"type": "take", "pile": 0, "count": NaN}}', mine, {}),
        ("key-too-long", {"move": TAKE}, mine, {"Idempotency-Key": "k" * 129}),
        ("stale", {"move": TAKE, "expected_version": 999}, mine, {}),
        ("move", {"move": TAKE, "expected_version": version}, mine, {"Idempotency-Key": "once"}),
        ("replay", {"move": TAKE, "expected_version": version}, mine, {"Idempotency-Key": "once"}),
        ("key-reused", {"move": {**TAKE, "count": 2}}, theirs, {"Idempotency-Key": "once"}),
        ("next", {"move": TAKE}, theirs, {}),
        ("include", {"move": {**TAKE, "pile": 1}}, mine, {}),
        ("unknown-match", {"move": TAKE}, mine, {}),
    ]


def _send(client, match_id, request):
    what, body, token, headers = request
    headers = dict(headers)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    path = f"/api/matches/{'no-such-match' if what == 'unknown-match' else match_id}/moves"
    if what == "include":
        path += "?include=legal_moves"
    if isinstance(body, bytes):
        return client.post(path, data=body, content_type="application/json", headers=headers)
    return client.post(path, json=body, headers=headers)


def test_the_lean_path_answers_every_move_request_as_flask_does(api, client, flask_client, flask_view_calls):
    lean_id, lean_tokens = api.create(seed="lean-path")
    flask_id, flask_tokens = api.create(seed="lean-path")
    start = api.state(lean_id)
    [seat], version = start["active_seats"], start["version"]
    assert api.state(flask_id)["active_seats"] == [seat]
    compared = 0
    pairs = zip(_requests(lean_tokens, seat, version), _requests(flask_tokens, seat, version))
    for lean_request, flask_request in pairs:
        before = len(flask_view_calls)
        a = _send(client, lean_id, lean_request)
        served_by_flask = len(flask_view_calls) - before
        b = _send(flask_client, flask_id, flask_request)
        what = lean_request[0]
        assert a.status_code == b.status_code, (what, a.get_json(), b.get_json())
        assert list(a.headers) == list(b.headers), what  # in order (werkzeug's == is not)
        assert a.get_data().replace(lean_id.encode(), b"ID") == b.get_data().replace(
            flask_id.encode(), b"ID"
        ), what
        if what == "include":
            assert a.status_code == 201 and "legal_moves" in a.get_json()["state"], a.get_json()
        if what in (
            "move",
            "replay",
            "next",
            "include",
            "stale",
            "not-your-turn",
            "illegal-move",
            "key-reused",
        ):
            assert served_by_flask == 0, f"{what}: the lean path should have answered"
        compared += 1
    assert compared == 20
    assert api.state(lean_id)["version"] == api.state(flask_id)["version"] == version + 3


def test_unusual_requests_go_to_flask(api, client, flask_view_calls):
    match_id, tokens = api.create(seed="lean-unusual")
    [seat] = api.state(match_id)["active_seats"]
    headers = {"Authorization": f"Bearer {tokens[seat]}"}
    path = f"/api/matches/{match_id}/moves"
    r = client.post(path + "?include=legal_moves&x=1", json={"move": TAKE}, headers=headers)
    assert r.status_code == 201 and "legal_moves" in r.get_json()["state"]
    assert len(flask_view_calls) == 1
    r = client.post(path, data=b'{"move": {}}', content_type="text/plain", headers=headers)
    assert r.status_code in (415, 422) and len(flask_view_calls) <= 2
    assert client.post(
        path, json={"move": TAKE}, headers={**headers, "Origin": "http://x.example"}
    ).status_code
    assert len(flask_view_calls) >= 2


def test_only_the_ordinary_move_shape_is_taken(app):
    """The path, method and id shapes the middleware takes; everything else is Flask's."""
    seen = []
    middleware = lean.LeanRequests(lambda environ, start: seen.append(environ["PATH_INFO"]) or [], None, 1000)
    for method, path, query in [
        ("GET", "/api/matches/abc/moves", ""),
        ("POST", "/api/matches/abc/moves/", ""),
        ("POST", "/api/matches/import/moves", ""),
        ("POST", "/api/matches/a%2Fb/moves", ""),
        ("POST", "/api/matches/é/moves", ""),
        ("POST", "/api/matches/abc/moves", "include=legal_moves&include=legal_moves"),
        ("POST", "/api/matches/abc/moves", "include=other"),
        ("POST", "/api/matches/abc/moves", ""),  # no Content-Length
    ]:
        middleware(
            {
                "REQUEST_METHOD": method,
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "CONTENT_TYPE": "application/json",
            },
            None,
        )
    assert len(seen) == 8


@pytest.mark.parametrize("length", ["\u00b2", "\uff11", "+2", "9" * 5000])
def test_a_content_length_that_is_not_ascii_digits_goes_to_flask(length):
    """``str.isdigit`` takes '²' and '１' (and ``int`` then fails or reads 1); ``int`` refuses 5000 digits."""
    seen = []
    middleware = lean.LeanRequests(lambda environ, start: seen.append(environ["PATH_INFO"]) or [], None, 1000)
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/matches/abc/moves",
        "QUERY_STRING": "",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": length,
    }
    middleware(environ, None)
    assert seen == ["/api/matches/abc/moves"]


# -- the plain state read -------------------------------------------------------------


@pytest.fixture
def flask_state_calls(app, monkeypatch):
    """How many requests reached the Flask view of GET .../state."""
    return _count_calls(app, monkeypatch, "play.State")


def _read_state(client, match_id, auth):
    headers = {"Authorization": auth} if auth else {}
    return client.get(f"/api/matches/{match_id}/state", headers=headers)


def test_the_lean_path_answers_a_plain_state_read_as_flask_does(api, client, flask_client, flask_state_calls):
    match_id, tokens = api.create(seed="lean-state")
    [seat] = api.state(match_id)["active_seats"]
    api.move(match_id, tokens[seat], TAKE)
    callers = {
        "seat 0": f"Bearer {tokens[0]}",
        "seat 1": f"Bearer {tokens[1]}",
        "spectator": None,
        "bad-token": "Bearer not-a-token",
        "basic-scheme": "Basic abc",
        "empty bearer": "Bearer ",
    }
    for what, auth in callers.items():
        for where in (match_id, "no-such-match"):
            before = len(flask_state_calls)
            a = _read_state(client, where, auth)
            assert len(flask_state_calls) == before, f"{what}: the lean path should have answered"
            b = _read_state(flask_client, where, auth)
            assert (a.status_code, list(a.headers), a.get_data()) == (
                b.status_code,
                list(b.headers),
                b.get_data(),
            )
    views = {what: _read_state(client, match_id, auth).get_json() for what, auth in callers.items()}
    assert (
        views["seat 0"]["seat"] == 0 and views["seat 1"]["seat"] == 1 and views["spectator"]["seat"] is None
    )
    assert views["bad-token"]["code"] == "bad-token" and views["seat 0"]["version"] == 2


def test_a_conditional_or_queried_state_read_goes_to_flask(api, client, flask_state_calls):
    match_id, tokens = api.create(seed="lean-state-flask")
    first = client.get(f"/api/matches/{match_id}/state")
    assert first.status_code == 200 and not flask_state_calls
    again = client.get(f"/api/matches/{match_id}/state", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and len(flask_state_calls) == 1
    past = client.get(f"/api/matches/{match_id}/state?version=1")
    assert past.status_code == 200 and len(flask_state_calls) == 2
    # "import" is no match id to the lean path: Flask answers whatever it makes of it
    assert client.get("/api/matches/import/state").status_code == 404 and len(flask_state_calls) == 3


# -- seat claims ------------------------------------------------------------------------


@pytest.fixture
def flask_claim_calls(app, monkeypatch):
    """How many requests reached the Flask view of POST .../seats/<n>."""
    return _count_calls(app, monkeypatch, "matches.SeatClaim")


def _claim(client, match_id, seat, body):
    path = f"/api/matches/{match_id}/seats/{seat}"
    if isinstance(body, bytes):
        return client.post(path, data=body, content_type="application/json")
    return client.post(path, json=body)


def _named(response, names):
    data = response.get_data()
    for secret, name in names.items():
        data = data.replace(secret.encode(), name.encode())
    return response.status_code, response.headers, data


def test_the_lean_path_answers_seat_claims_as_flask_does(api, client, flask_client, flask_claim_calls):
    lean_id, _ = api.create(seats=[None, None], seed="lean-claim")
    flask_id, _ = api.create(seats=[None, None], seed="lean-claim")
    attempts = [
        ("claim seat 0", 0, {"name": "Ana"}, True),
        ("seat taken", 0, {"name": "Bo"}, True),
        ("no such seat", 5, {"name": "Bo"}, True),
        ("claim seat 1, the match starts", 1, {"name": "Zoë 🚀"}, True),
        ("unknown match", 0, {"name": "Cy"}, True),
        ("schema refuses: no name", 0, {}, False),
        ("schema refuses: unknown field", 0, {"name": "Cy", "x": 1}, False),
        ("malformed JSON", 0, b"{nope", False),
    ]
    for what, seat, body, lean_answers in attempts:
        before = len(flask_claim_calls)
        target = ("no-such-match", "no-such-match") if what == "unknown match" else (lean_id, flask_id)
        a = _claim(client, target[0], seat, body)
        taken_by_lean = len(flask_claim_calls) == before
        b = _claim(flask_client, target[1], seat, body)
        names = {lean_id: "ID"}
        if a.status_code == 201:
            names[a.get_json()["token"]] = "TOKEN"
            names[str(a.get_json()["match"]["created"])] = "CREATED"
        other = {flask_id: "ID"}
        if b.status_code == 201:
            other[b.get_json()["token"]] = "TOKEN"
            other[str(b.get_json()["match"]["created"])] = "CREATED"
        assert _named(a, names)[0::2] == _named(b, other)[0::2], what
        # the same headers; the length may differ with the creation time's digits, so it is checked
        assert [h for h in a.headers if h[0] != "Content-Length"] == [
            h for h in b.headers if h[0] != "Content-Length"
        ]
        assert int(a.headers["Content-Length"]) == len(a.get_data()), what
        assert taken_by_lean == lean_answers, what
    lean, flask = (
        api.get(f"/api/matches/{lean_id}").get_json(),
        api.get(f"/api/matches/{flask_id}").get_json(),
    )
    assert [s["name"] for s in lean["seats"]] == [s["name"] for s in flask["seats"]] == ["Ana", "Zoë 🚀"]
    assert lean["status"] == flask["status"] == "active"


def test_the_lean_path_answers_keyed_claims_as_flask_does(api, client, flask_client, flask_claim_calls):
    """Idempotency-Key on a claim: the repeat, the refusals and their codes, alike on both paths."""
    lean_id, _ = api.create(seats=[None, None], seed="lean-keyed-claim")
    flask_id, _ = api.create(seats=[None, None], seed="lean-keyed-claim")
    attempts = [
        ("claim with a key", 0, "Ana", "key-1"),
        ("the repeat", 0, "Ana", "key-1"),
        ("the same key, another name", 0, "Bo", "key-1"),
        ("another key", 0, "Ana", "key-2"),
        ("no key", 0, "Ana", None),
        ("a bad key", 1, "Bo", "k" * 129),
        ("claim seat 1, the match starts", 1, "Bo", "key-1"),
        ("the repeat, once the match started", 1, "Bo", "key-1"),
    ]
    tokens: dict = {}
    for what, seat, name, key in attempts:
        headers = {"Idempotency-Key": key} if key is not None else {}
        before = len(flask_claim_calls)
        a = client.post(f"/api/matches/{lean_id}/seats/{seat}", json={"name": name}, headers=headers)
        assert len(flask_claim_calls) == before, what  # the lean path answered
        b = flask_client.post(f"/api/matches/{flask_id}/seats/{seat}", json={"name": name}, headers=headers)
        names, other = {lean_id: "ID"}, {flask_id: "ID"}
        for response, named in ((a, names), (b, other)):
            if response.status_code == 201:
                named[response.get_json()["token"]] = "TOKEN"
                named[str(response.get_json()["match"]["created"])] = "CREATED"
        assert _named(a, names)[0::2] == _named(b, other)[0::2], what
        if a.status_code == 201:
            assert tokens.setdefault(seat, a.get_json()["token"]) == a.get_json()["token"], what
    assert set(tokens) == {0, 1}


@pytest.mark.parametrize(
    "settings",
    [
        {"clock": {"per_move": 20, "bank": 60}, "timeout": {"action": "forfeit"}},
        {"hide_names": True, "unlisted": True},
        {"clock": {"per_move": 5}, "timeout": {"action": "ai-match", "level": "random"}, "hide_names": True},
    ],
)
def test_the_lean_claim_answers_as_flask_with_lifecycle_settings(
    api, client, flask_client, flask_claim_calls, settings
):
    """The lean claim skips the view's dump (``SeatTokenSchema``): its answer must be the bytes
    that dump makes of it, with the keys of Flask's answer to the same claim."""
    ids = [api.create(seats=[None, None], seed="lean-settings", **settings)[0] for _ in range(2)]
    for seat in (0, 1):  # the second claim fills the match: its clocks start
        a = _claim(client, ids[0], seat, {"name": f"p{seat}"})
        b = _claim(flask_client, ids[1], seat, {"name": f"p{seat}"})
        assert a.status_code == b.status_code == 201
        assert not flask_claim_calls  # the lean path answered a
        lean, flask = json.loads(a.get_data()), json.loads(b.get_data())
        assert a.get_data() == jsoncodec.dumps(SeatTokenSchema().dump(lean)) + b"\n"
        assert _key_paths(lean) == _key_paths(flask)
        assert "settings" in lean["match"] and lean["match"]["settings"] == flask["match"]["settings"]


def _key_paths(value, at=()):
    """Every key path of a JSON document, in order (list items by position)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in [(*at, k), *_key_paths(v, (*at, k))]]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _key_paths(v, (*at, i))]
    return []


def test_a_claimed_token_from_the_lean_path_plays(api, client):
    match_id, _ = api.create(seats=[None, None])
    tokens = {
        seat: _claim(client, match_id, seat, {"name": f"p{seat}"}).get_json()["token"] for seat in (0, 1)
    }
    [seat] = api.state(match_id)["active_seats"]
    assert api.move(match_id, tokens[seat], TAKE).status_code == 201


@pytest.mark.parametrize("seat", ["00", "01", "+1", "1.0", "999", "-1"])
def test_a_seat_written_otherwise_is_answered_as_flask_answers_it(api, client, flask_client, seat):
    """Only ``0`` and ``1``–``99`` as Flask's int converter writes them are taken; Flask answers the rest."""
    lean_id, _ = api.create(seats=[None, None], seed="odd-seat")
    flask_id, _ = api.create(seats=[None, None], seed="odd-seat")
    a = client.post(f"/api/matches/{lean_id}/seats/{seat}", json={"name": "x"})
    b = flask_client.post(f"/api/matches/{flask_id}/seats/{seat}", json={"name": "x"})
    assert a.status_code == b.status_code and a.status_code != 500
    assert (a.get_json() or {}).get("code") == (b.get_json() or {}).get("code")
    assert (
        api.get(f"/api/matches/{lean_id}").get_json()["seats"]
        == api.get(f"/api/matches/{flask_id}").get_json()["seats"]
    )


# -- creation ---------------------------------------------------------------------------


@pytest.fixture
def flask_create_calls(app, monkeypatch):
    """How many requests reached the Flask view of POST /api/matches (and GET, the lobby)."""
    return _count_calls(app, monkeypatch, "matches.MatchCollection")


def _created_named(response):
    """(status, headers but the length, body) with the new match's secrets and times named."""
    data = response.get_data()
    if response.status_code == 201:
        created = response.get_json()
        names = {created["match"]["id"]: "ID", created["admin_token"]: "ADMIN"}
        names |= {token: f"TOKEN{seat}" for seat, token in created["tokens"].items()}
        names[json.dumps(created["match"]["created"])] = "CREATED"
        for secret, name in names.items():
            data = data.replace(secret.encode(), name.encode())
    headers = [
        (k, v.rsplit("/", 1)[0] if k == "Location" else v)
        for k, v in response.headers
        if k != "Content-Length"
    ]
    return response.status_code, headers, data


CREATIONS = {
    "two named seats": {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}], "seed": "s"},
    "open seats": {"game": "nim", "seats": [None, None], "seed": "s"},
    "an AI seat": {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bot", "ai": "random"}], "seed": "s"},
    "options": {"game": "nim", "seats": [None, None], "options": {"piles": [1, 2]}, "seed": "s"},
    "unlisted, hidden names": {
        "game": "nim",
        "seats": [None, None],
        "unlisted": True,
        "hide_names": True,
        "seed": "s",
    },
    "unknown game": {"game": "chess", "seats": [None, None]},
    "bad seat count": {"game": "nim", "seats": [None]},
    "bad options": {"game": "nim", "seats": [None, None], "options": {"piles": "many"}},
    "unknown AI level": {"game": "nim", "seats": [None, {"name": "Bot", "ai": "godlike"}]},
    "timeout without clock": {"game": "nim", "seats": [None, None], "timeout": {"level": "random"}},
    "schema refuses: a seat without a name": {"game": "nim", "seats": [None, {"ai": "random"}]},
    "schema refuses: no game": {"seats": [None, None]},
    "schema refuses: unknown field": {"game": "nim", "seats": [None, None], "x": 1},
}


@pytest.mark.parametrize("what", CREATIONS)
def test_the_lean_path_creates_matches_as_flask_does(api, client, flask_client, flask_create_calls, what):
    body = CREATIONS[what]
    a = client.post("/api/matches", json=body)
    lean_answered = not flask_create_calls
    b = flask_client.post("/api/matches", json=body)
    assert lean_answered == (not what.startswith("schema refuses")), what
    assert _created_named(a) == _created_named(b), what
    assert a.status_code != 500
    if a.status_code == 201:
        assert int(a.headers["Content-Length"]) == len(a.get_data())
        assert a.headers["Location"] == f"/api/matches/{a.get_json()['match']['id']}"
        match_id = a.get_json()["match"]["id"]
        assert api.get(f"/api/matches/{match_id}").get_json()["seats"] == a.get_json()["match"]["seats"]
