"""``GAMEROOM_FAST_PATHS``: with the fast paths on (the default) and off, the same requests get the
same responses, byte for byte but ``Date``; and each setting serves the way it says.

One representative sequence of a match's requests (creation, state, ETag and 304, a seat claim,
legal moves, moves with and without ``?include=legal_moves``, an idempotent replay, a
conflicting move, 404s, problem+json refusals: malformed JSON, a schema error, no token, an
unknown game, a wrong method) is sent to a server with the fast paths on and to one with them
off: in-process through Flask's test client (the lean path and gameroom's own Redis connections
against Flask's routes and redis-py's client), and on real ``gameroom serve`` processes (also the
worker's own request reader against gevent's handler).

What differs between two runs of one sequence, and only that, is normalised before comparing:
both servers have ``GAMEROOM_REPRODUCIBLE_SEEDS`` on and each match is created with the same
seed, so its game is the same, but match ids are random and the tokens are derived from them, so
each id and token is replaced by a name in the order it first appears; the creation time
(``created``) is replaced too, and since its digits may differ in number, ``Content-Length`` is
checked against the body of each response rather than between them.
"""

import http.client
import json
import re
import uuid

import pytest
import redis

from gameroom import create_app
from gameroom.config import Config
from gameroom.eventstore import direct
from gameroom.eventstore.connect import connect, is_ordinary
from gameroom.testing.live_server import LiveServer

TAKE = {"type": "take", "pile": 0, "count": 1}
JSON = {"Content-Type": "application/json"}
#: A secret or an id in a body or a header (the match id's 16 hex digits, a token's 32 characters).
_CREATED = re.compile(rb'"created":[0-9.e+-]+')


class _Names:
    """Each match id and token, named in the order it first appears (see the module's text)."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def learn(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        match = data.get("match")
        found = [
            match.get("id") if isinstance(match, dict) else None,
            data.get("admin_token"),
            data.get("token"),
            *(data.get("tokens") or {}).values(),
        ]
        for secret in found:
            if isinstance(secret, str) and secret not in self.names:
                self.names[secret] = f"<secret {len(self.names)}>"

    def apply(self, text: bytes) -> bytes:
        for secret, name in self.names.items():
            text = text.replace(secret.encode(), name.encode())
        return _CREATED.sub(b'"created":<time>', text)


def _exchange(send) -> list[tuple]:
    """The sequence of requests, each answer as ``(what, status, headers but Date and
    Content-Length, body)``, normalised; ``send(method, path, body bytes or None, headers)``
    returns ``(status, [(name, value)], body bytes)``."""
    names = _Names()
    answers = []

    def ask(what, method, path, body=None, headers=None, token=None):
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            headers = {**JSON, **headers}
        status, head, payload = send(method, path, body, headers)
        lengths = [v for k, v in head if k.lower() == "content-length"]
        assert lengths in ([str(len(payload))], []), (what, lengths, len(payload))
        names.learn(payload)
        kept = [
            (k, names.apply(v.encode()).decode())
            for k, v in head
            if k.lower() not in ("date", "content-length")
        ]
        answers.append((what, status, kept, names.apply(payload)))
        return status, payload, dict(head)

    _, created, _ = ask(
        "create", "POST", "/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, None], "seed": "alike"}
    )
    created = json.loads(created)
    match_id, token0 = created["match"]["id"], created["tokens"]["0"]
    base = f"/api/matches/{match_id}"
    _, _, head = ask("state", "GET", f"{base}/state")
    ask("state, If-None-Match: 304", "GET", f"{base}/state", headers={"If-None-Match": head["ETag"]})
    ask("state, another ETag", "GET", f"{base}/state", headers={"If-None-Match": '"v0-sx-w"'})
    _, claimed, _ = ask("claim", "POST", f"{base}/seats/1", {"name": "Bo"})
    ask("claim a taken seat", "POST", f"{base}/seats/1", {"name": "Cy"})
    tokens = {0: token0, 1: json.loads(claimed)["token"]}
    _, view, _ = ask("state of seat 0", "GET", f"{base}/state", token=tokens[0])
    view = json.loads(view)
    [seat], version = view["active_seats"], view["version"]
    mine, theirs = tokens[seat], tokens[1 - seat]
    ask("legal moves", "GET", f"{base}/legal-moves", token=mine)
    ask("not your turn", "POST", f"{base}/moves", {"move": TAKE}, token=theirs)
    move = {"move": TAKE, "expected_version": version}
    ask("move", "POST", f"{base}/moves", move, {"Idempotency-Key": "k1"}, token=mine)
    ask("the move again, same key", "POST", f"{base}/moves", move, {"Idempotency-Key": "k1"}, token=mine)
    ask("a conflicting move (stale version)", "POST", f"{base}/moves", move, token=theirs)
    ask("move with legal moves", "POST", f"{base}/moves?include=legal_moves", {"move": TAKE}, token=theirs)
    ask("malformed JSON", "POST", f"{base}/moves", b"{nope", JSON, token=mine)
    ask("schema error", "POST", f"{base}/moves", {"move": "take"}, token=mine)
    ask("no token", "POST", f"{base}/moves", {"move": TAKE})
    ask("bad token", "POST", f"{base}/moves", {"move": TAKE}, token="not-a-token")
    ask("illegal move", "POST", f"{base}/moves", {"move": {**TAKE, "count": 99}}, token=mine)
    ask("unknown match: state", "GET", "/api/matches/0123456789abcdef/state")
    ask("unknown match: move", "POST", "/api/matches/0123456789abcdef/moves", {"move": TAKE}, token=mine)
    ask("unknown path", "GET", "/api/nowhere")
    ask("wrong method", "DELETE", f"{base}/moves")
    ask("unknown game", "POST", "/api/matches", {"game": "chess", "seats": [None, None]})
    ask("summary", "GET", base)
    ask("state after", "GET", f"{base}/state", token=mine)
    return answers


def _assert_alike(fast: list, plain: list) -> None:
    assert [a[0] for a in fast] == [a[0] for a in plain]
    for one, other in zip(fast, plain, strict=True):
        assert one == other, one[0]
    statuses = {what: status for what, status, _, _ in fast}
    assert statuses["create"] == statuses["move"] == statuses["claim"] == 201
    assert (
        statuses["state, If-None-Match: 304"] == 304 and statuses["a conflicting move (stale version)"] == 409
    )
    assert statuses["unknown match: state"] == 404 and statuses["schema error"] == 422
    problems = [a for a in fast if a[1] >= 400]
    assert problems and all(("Content-Type", "application/problem+json") in a[2] for a in problems)


# -- in-process: Flask's test client ------------------------------------------------------


def _app(redis_server, registry, fast_paths: bool):
    settings = {"redis_url": redis_server.url, "ai_mode": "off", "reproducible_seeds": True}
    app = create_app({**settings, "fast_paths": fast_paths}, registry)
    app.config["TESTING"] = True
    return app


def _client_send(client):
    def send(method, path, body, headers):
        response = client.open(path, method=method, data=body, headers=headers)
        return response.status_code, list(response.headers), response.get_data()

    return send


def test_flask_s_test_client_gets_the_same_responses_with_the_fast_paths_on_and_off(redis_server, registry):
    fast, plain = (_app(redis_server, registry, on) for on in (True, False))
    answers = [_exchange(_client_send(app.test_client())) for app in (fast, plain)]
    _assert_alike(*answers)


def test_with_the_fast_paths_off_flask_s_routes_and_redis_py_serve_every_request(
    redis_server, registry, monkeypatch
):
    """Off: no request goes below Flask (every one reaches its view), and the store's commands go
    through redis-py's client (no connection of :mod:`gameroom.eventstore.direct`'s is made);
    on: the lean path answers the move without the view, on Direct's connections."""
    for fast_paths in (True, False):
        app = _app(redis_server, registry, fast_paths)
        client = app.extensions["gameroom_wiring"].clients.events
        assert is_ordinary(client) is not fast_paths
        calls = []
        view = app.view_functions["play.Moves"]
        monkeypatch.setitem(
            app.view_functions, "play.Moves", lambda *a, v=view, **k: calls.append(1) or v(*a, **k)
        )
        test_client = app.test_client()
        created = test_client.post(
            "/api/matches", json={"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]}
        )
        match_id, tokens = created.get_json()["match"]["id"], created.get_json()["tokens"]
        [seat] = test_client.get(f"/api/matches/{match_id}/state").get_json()["active_seats"]
        moved = test_client.post(
            f"/api/matches/{match_id}/moves",
            json={"move": TAKE},
            headers={"Authorization": f"Bearer {tokens[str(seat)]}"},
        )
        assert moved.status_code == 201
        assert len(calls) == (0 if fast_paths else 1), fast_paths
        kind = type(direct.of(client))
        assert kind is (direct.Direct if fast_paths else direct.Ordinary)


def test_redis_py_s_client_gives_the_replies_direct_gives(redis_server):
    """The store reads Redis's own replies (no redis-py callbacks) either way: a stream read, a
    script (the text run again once Redis lost its scripts), a pipeline whose error is raised."""
    clients = {on: connect(Config(fast_paths=on), redis_server.url).events for on in (True, False)}
    key = f"fast-paths:{uuid.uuid4().hex}"
    clients[True].xadd(key, {"entry": "1"}, id="1-0")
    count = "return {redis.call('INCR', KEYS[1] .. ':n'), ARGV[1]}"
    replies = {}
    for on, client in clients.items():
        run = direct.of(client)
        assert isinstance(run, direct.Direct if on else direct.Ordinary)
        script = direct.DirectScript(client, count)
        client.script_flush()
        replies[on] = [
            run("XRANGE", key, "-", "+"),
            script([key], ["a"]),
            run.pipeline(("XLEN", key), ("GET", "no-such-key")),
            direct.script(client, count)([key], ["b"]),
        ]
        with pytest.raises(redis.ResponseError):
            run.pipeline(("XLEN", key), ("INCR", key), ("XLEN", key))  # INCR of a stream: WRONGTYPE
    assert replies[True][0] == replies[False][0] == [[b"1-0", [b"entry", b"1"]]]
    assert [r[1:] for r in replies.values()] == [
        [[1, b"a"], [1, None], [2, b"b"]],
        [[3, b"a"], [1, None], [4, b"b"]],
    ]


# -- served: gameroom serve, one worker each ------------------------------------------------


@pytest.fixture(scope="module")
def servers(redis_server, tmp_path_factory):
    """Two servers on the test's Redis, fast paths on and off; DEBUG: the worker logs each request
    it reads itself."""
    env = {"GAMEROOM_REPRODUCIBLE_SEEDS": "1", "GAMEROOM_AI_MODE": "off", "GAMEROOM_LOG_LEVEL": "DEBUG"}
    workdir = tmp_path_factory.mktemp("fast-paths")
    with LiveServer(redis_server.url, workdir, env={**env, "GAMEROOM_FAST_PATHS": "1"}) as fast:
        with LiveServer(redis_server.url, workdir, env={**env, "GAMEROOM_FAST_PATHS": "0"}) as plain:
            yield fast, plain


def _socket_send(conn):
    def send(method, path, body, headers):
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.getheaders(), response.read()

    return send


def test_served_responses_are_the_same_with_the_fast_paths_on_and_off(servers):
    answers = []
    for server in servers:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)  # one keep-alive connection
        try:
            answers.append(_exchange(_socket_send(conn)))
        finally:
            conn.close()
    _assert_alike(*answers)
    fast, plain = servers
    assert "read by the worker: POST /api/matches/" in fast.log()
    assert "read by the worker" not in plain.log()


def test_the_access_log_leaves_the_fast_paths_on_and_logs_the_requests_the_worker_reads(
    redis_server, tmp_path
):
    """``GAMEROOM_ACCESS_LOG=1`` used to turn the worker's own request reader off (gevent's handler
    wrote the access log): now the worker still reads a move itself and writes its line, as
    gunicorn writes one for every other request."""
    env = {"GAMEROOM_AI_MODE": "off", "GAMEROOM_LOG_LEVEL": "DEBUG", "GAMEROOM_ACCESS_LOG": "1"}
    with LiveServer(redis_server.url, tmp_path, env=env) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        send = _socket_send(conn)
        body = json.dumps({"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]}).encode()
        status, _, created = send("POST", "/api/matches", body, JSON)
        created = json.loads(created)
        match_id = created["match"]["id"]
        status, _, view = send("GET", f"/api/matches/{match_id}/state?token=secret-in-query", None, {})
        [seat] = json.loads(view)["active_seats"]
        move = json.dumps({"move": TAKE}).encode()
        auth = {**JSON, "Authorization": f"Bearer {created['tokens'][str(seat)]}"}
        status, head, answer = send("POST", f"/api/matches/{match_id}/moves", move, auth)
        conn.close()
        assert status == 201, answer
        log = server.log()
    path = f"/api/matches/{match_id}/moves"
    assert f"read by the worker: POST {path}" in log
    [line] = [line for line in log.splitlines() if f'"POST {path}" 201 ' in line]
    # the bytes sent, status line, headers and body, as gevent counts them for its own requests
    sent = len("HTTP/1.1 201 CREATED\r\n\r\n") + sum(len(f"{k}: {v}\r\n") for k, v in head) + len(answer)
    assert re.fullmatch(rf'\[[^]]+\] 127\.0\.0\.1 "POST {path}" 201 {sent} [0-9]+us', line), (line, sent)
    assert f'"GET /api/matches/{match_id}/state" 200 ' in log  # gevent's handler's line (a query)
    assert "secret-in-query" not in log
