"""On a real ``gameroom serve`` (shipped settings): a move read by the worker itself
(gameroom.http.wire) is answered exactly as gevent's WSGI handler answers it.

Two matches with the same seed get the same requests on keep-alive
connections: one in the ordinary shape the worker reads itself, one with an
extra header it does not know (``X-Via``), which leaves the request to gevent's
handler. Status, headers (but ``Date``) and bodies must be the same, up to the
match id; pipelined requests and a body that arrives late are answered too.
"""

import http.client
import json
import re
import socket
import time

import pytest

from gameroom.testing.live_server import LiveServer

TAKE = {"type": "take", "pile": 0, "count": 1}


@pytest.fixture(scope="module")
def served(redis_server, tmp_path_factory):
    # DEBUG: the worker logs each request it reads itself, so the test can tell the two paths apart
    env = {"GAMEROOM_REPRODUCIBLE_SEEDS": "1", "GAMEROOM_AI_MODE": "off", "GAMEROOM_LOG_LEVEL": "DEBUG"}
    with LiveServer(redis_server.url, tmp_path_factory.mktemp("wire"), env=env) as live:
        yield live


def _json(conn, method, path, body=None, headers=None):
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers or {})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def _match(conn, seed):
    status, created = _json(
        conn,
        "POST",
        "/api/matches",
        {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}], "seed": seed},
        {"Content-Type": "application/json"},
    )
    assert status == 201, created
    return created["match"]["id"], {int(k): v for k, v in created["tokens"].items()}


def _requests(tokens, seat, version):
    """(what, body or raw bytes, token, extra headers, query): successes and refusals."""
    mine, theirs = tokens[seat], tokens[1 - seat]
    return [
        ("not-your-turn", {"move": TAKE}, theirs, {}, ""),
        ("bad-token", {"move": TAKE}, "not-a-token", {}, ""),
        ("token-required", {"move": TAKE}, None, {}, ""),
        ("illegal-move", {"move": {"type": "take", "pile": 0, "count": 99}}, mine, {}, ""),
        ("validation-error", {"move": "take"}, mine, {}, ""),
        ("malformed-json", b"{nope", mine, {}, ""),
        ("not-an-object", b"[1, 2]", mine, {}, ""),
        ("stale", {"move": TAKE, "expected_version": 999}, mine, {}, ""),
        ("move", {"move": TAKE, "expected_version": version}, mine, {"Idempotency-Key": "once"}, ""),
        ("replay", {"move": TAKE, "expected_version": version}, mine, {"Idempotency-Key": "once"}, ""),
        ("next", {"move": TAKE}, theirs, {}, ""),
        ("include", {"move": {**TAKE, "pile": 1}}, mine, {}, "?include=legal_moves"),
    ]


def _send(conn, match_id, request, extra):
    what, body, token, headers, query = request
    headers = {"Content-Type": "application/json", **headers, **extra}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn.request("POST", f"/api/matches/{match_id}/moves{query}", body=data, headers=headers)
    response = conn.getresponse()
    payload = response.read()
    head = [(k, v) for k, v in response.getheaders() if k != "Date"]
    return response.status, head, payload


def test_a_move_read_by_the_worker_is_answered_as_gevents_handler_answers_it(served):
    wire_conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    gevent_conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    wire_id, wire_tokens = _match(wire_conn, "wire")
    gevent_id, gevent_tokens = _match(gevent_conn, "wire")
    _, start = _json(wire_conn, "GET", f"/api/matches/{wire_id}/state")
    [seat], version = start["active_seats"], start["version"]
    statuses = []
    pairs = zip(_requests(wire_tokens, seat, version), _requests(gevent_tokens, seat, version))
    for wire_request, gevent_request in pairs:
        what = wire_request[0]
        a = _send(wire_conn, wire_id, wire_request, {})
        b = _send(gevent_conn, gevent_id, gevent_request, {"X-Via": "gevent"})
        assert _read_by_worker(served, wire_id) == len(statuses) + 1, what
        assert _read_by_worker(served, gevent_id) == 0, what
        assert a[0] == b[0], (what, a, b)
        assert a[1] == b[1], what
        assert a[2].replace(wire_id.encode(), b"ID") == b[2].replace(gevent_id.encode(), b"ID"), what
        statuses.append((what, a[0]))
    assert dict(statuses) == {
        "not-your-turn": 403,
        "bad-token": 401,
        "token-required": 401,
        "illegal-move": 422,
        "validation-error": 422,
        "malformed-json": 400,
        "not-an-object": 422,
        "stale": 409,
        "move": 201,
        "replay": 201,
        "next": 201,
        "include": 201,
    }
    for conn, match_id in ((wire_conn, wire_id), (gevent_conn, gevent_id)):
        _, state = _json(conn, "GET", f"/api/matches/{match_id}/state")
        assert state["version"] == version + 3
        conn.close()


def _read_by_worker(served, match_id, what="/moves"):
    """How many requests to ``match_id``'s paths ending in ``what`` the worker read itself,
    by its DEBUG log ("" counts every path of the match)."""
    found = re.findall(rf"read by the worker: (?:GET|POST) /api/matches/{match_id}/\S*", served.log())
    return sum(1 for line in found if line.endswith(what))


def _read_responses(sock, count, timeout=30):
    """``count`` whole responses (each with a Content-Length) from a raw socket."""
    sock.settimeout(timeout)
    data, out = b"", []
    while len(out) < count:
        end = data.find(b"\r\n\r\n")
        if end >= 0:
            head = data[:end].decode("latin-1")
            length = int(
                next(h for h in head.split("\r\n") if h.lower().startswith("content-length:")).split(":")[1]
            )
            if len(data) >= end + 4 + length:
                assert length, head
                out.append((head.split("\r\n")[0], json.loads(data[end + 4 : end + 4 + length])))
                data = data[end + 4 + length :]
                continue
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {len(out)} responses"
        data += chunk
    return out


def _raw_move(match_id, token, cell_body):
    body = json.dumps(cell_body).encode()
    return (
        f"POST /api/matches/{match_id}/moves HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def test_pipelined_moves_and_a_body_that_arrives_late_are_answered_in_order(served):
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    match_id, tokens = _match(conn, "pipelined")
    _, start = _json(conn, "GET", f"/api/matches/{match_id}/state")
    [seat] = start["active_seats"]
    conn.close()
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
        first = _raw_move(match_id, tokens[seat], {"move": TAKE, "expected_version": start["version"]})
        second = _raw_move(match_id, tokens[1 - seat], {"move": TAKE})
        health = b"GET /api/healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        sock.sendall(first + second + health)  # three requests in one segment
        answers = _read_responses(sock, 3)
        assert [a[0] for a in answers] == ["HTTP/1.1 201 CREATED", "HTTP/1.1 201 CREATED", "HTTP/1.1 200 OK"]
        assert [a[1]["state"]["version"] for a in answers[:2]] == [start["version"] + 1, start["version"] + 2]
        late = _raw_move(match_id, tokens[seat], {"move": TAKE})
        sock.sendall(late[:-10])  # headers and part of the body; the rest after a pause
        time.sleep(0.3)
        sock.sendall(late[-10:])
        [(status, body)] = _read_responses(sock, 1)
        assert status == "HTTP/1.1 201 CREATED", body
        assert body["state"]["version"] == start["version"] + 3
        assert _read_by_worker(served, match_id) == 3  # the late body was waited for


def _setup_exchanges(port, extra):
    """Create a match, claim both seats, read its state (then again with its ETag) and legal moves:
    [(status, headers but Date, body)] with the match id and the seat tokens replaced by names."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    out, names = [], {}

    def exchange(method, path, body=None, token=None, headers=None):
        headers = {**(headers or {}), **extra}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = conn.getresponse()
        payload = response.read()
        # Date differs, and so may the length with the creation time: checked here, compared named
        assert response.getheader("Content-Length", "0") == str(len(payload))
        head = [(k, v) for k, v in response.getheaders() if k not in ("Date", "Content-Length")]
        out.append((response.status, head, payload))
        return response, json.loads(payload) if payload else None

    _, created = exchange("POST", "/api/matches", {"game": "nim", "seats": [None, None], "seed": "setup"})
    match_id = created["match"]["id"]
    names[match_id] = "ID"
    names[created["admin_token"]] = "ADMIN"
    names[json.dumps(created["match"]["created"])] = "CREATED"
    tokens = {}
    for seat in (0, 1):
        _, claimed = exchange("POST", f"/api/matches/{match_id}/seats/{seat}", {"name": f"p{seat}"})
        tokens[seat] = claimed["token"]
        names[claimed["token"]] = f"TOKEN{seat}"
    first, state = exchange("GET", f"/api/matches/{match_id}/state", token=tokens[0])
    again, _ = exchange(
        "GET",
        f"/api/matches/{match_id}/state",
        token=tokens[0],
        headers={"If-None-Match": first.getheader("ETag")},
    )
    assert again.status == 304
    exchange("GET", f"/api/matches/{match_id}/legal-moves", token=tokens[state["active_seats"][0]])
    conn.close()

    def named(text):
        for secret, name in names.items():
            text = text.replace(secret, name)
        return text

    return match_id, [
        (status, [(k, named(v)) for k, v in head], named(payload.decode())) for status, head, payload in out
    ]


def test_creating_claiming_and_reading_state_read_by_the_worker_are_answered_as_by_gevent(served):
    wire_id, wire_exchanges = _setup_exchanges(served.port, {})
    gevent_id, gevent_exchanges = _setup_exchanges(served.port, {"X-Via": "gevent"})
    assert [e[0] for e in wire_exchanges] == [201, 201, 201, 200, 304, 200]
    for a, b in zip(wire_exchanges, gevent_exchanges, strict=True):
        assert a == b
    assert _read_by_worker(served, wire_id, "") == 5  # 2 claims, 2 states, legal moves (and the creation)
    assert _read_by_worker(served, gevent_id, "") == 0
