"""On a real ``gameroom serve`` (shipped settings): a request whose header block cannot be framed
safely (request-smuggling shapes, RFC 9112 §6) is refused with a 400 problem+json
(``bad-http-framing``), the connection closed, and nothing appended; the same move well framed
(also chunked) is taken. Unit cases of the rule: ``gameroom.framing.problem``."""

import io
import json
import socket
from http import client

import pytest

from gameroom import framing
from gameroom.testing.live_server import LiveServer

TAKE = {"type": "take", "pile": 0, "count": 1}


@pytest.fixture(scope="module")
def served(redis_server, tmp_path_factory):
    env = {"GAMEROOM_AI_MODE": "off"}
    with LiveServer(redis_server.url, tmp_path_factory.mktemp("framing"), env=env) as live:
        yield live


def _request(port: int, raw: bytes) -> tuple[int, dict, bytes, bool]:
    """Send ``raw`` on a fresh connection: (status, headers, body, closed after the answer)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        reply = client.HTTPResponse(sock)
        reply.begin()
        body = reply.read()
        headers = {k.lower(): v for k, v in reply.getheaders()}
        sock.settimeout(2)
        try:
            closed = sock.recv(1) == b""
        except TimeoutError:
            closed = False
        return reply.status, headers, body, closed


def _match(port: int) -> tuple[str, str]:
    """A new Nim match: its id and the token of the seat to move."""
    conn = client.HTTPConnection("127.0.0.1", port, timeout=10)
    body = {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}], "seed": "framing"}
    conn.request("POST", "/api/matches", json.dumps(body), {"Content-Type": "application/json"})
    created = json.loads(conn.getresponse().read())
    conn.close()
    mover = created["match"]["active_seats"][0]
    return created["match"]["id"], created["tokens"][str(mover)]


def _version(port: int, match_id: str) -> int:
    conn = client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", f"/api/matches/{match_id}")
    version = json.loads(conn.getresponse().read())["version"]
    conn.close()
    return version


def _move(match_id: str, token: str, headers: list[str], body: bytes, version: str = "HTTP/1.1") -> bytes:
    head = [
        f"POST /api/matches/{match_id}/moves {version}",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        f"Authorization: Bearer {token}",
        *headers,
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


BODY = json.dumps({"move": TAKE}).encode()
N = str(len(BODY))
CHUNKED = f"{len(BODY):x}\r\n".encode() + BODY + b"\r\n0\r\n\r\n"

REFUSED = {
    "two different lengths": ([f"Content-Length: {N}", "Content-Length: 0"], BODY, "HTTP/1.1"),
    "the same length twice": ([f"Content-Length: {N}", f"Content-Length: {N}"], BODY, "HTTP/1.1"),
    "a signed length": ([f"Content-Length: +{N}"], BODY, "HTTP/1.1"),
    "a length with an underscore": ([f"Content-Length: {N[0]}_{N[1:]}"], BODY, "HTTP/1.1"),
    "a length list": ([f"Content-Length: {N}, {N}"], BODY, "HTTP/1.1"),
    "chunked beside a length": (["Transfer-Encoding: chunked", f"Content-Length: {N}"], CHUNKED, "HTTP/1.1"),
    "gzip then chunked": (["Transfer-Encoding: gzip, chunked"], CHUNKED, "HTTP/1.1"),
    "chunked twice": (["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], CHUNKED, "HTTP/1.1"),
    "chunked in HTTP/1.0": (["Transfer-Encoding: chunked"], CHUNKED, "HTTP/1.0"),
    "a bare CR in a value": ([f"Content-Length: {N}", "X-Note: a\rContent-Length: 0"], BODY, "HTTP/1.1"),
    "a folded line": (["X-Note: a", f" Content-Length: {N}"], BODY, "HTTP/1.1"),
    "a line that is no header": (["no colon here", f"Content-Length: {N}"], BODY, "HTTP/1.1"),
    "a NUL in a value": ([f"Content-Length: {N}", "X-Note: a\x00b"], BODY, "HTTP/1.1"),
    "a length of a digit that is not ASCII": (["Content-Length: \u00b2"], BODY, "HTTP/1.1"),
    "a length of 5000 digits": (["Content-Length: " + "9" * 5000], BODY, "HTTP/1.1"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_header_block_that_cannot_be_framed_safely_is_refused_and_changes_nothing(served, case):
    match_id, token = _match(served.port)
    before = _version(served.port, match_id)
    headers, body, version = REFUSED[case]
    status, head, payload, closed = _request(served.port, _move(match_id, token, headers, body, version))
    assert status == 400, payload
    assert head["content-type"] == "application/problem+json"
    problem = json.loads(payload)
    assert (problem["code"], problem["status"]) == ("bad-http-framing", 400)
    assert problem["detail"]
    assert closed, "the connection is closed after the refusal"
    assert _version(served.port, match_id) == before


@pytest.mark.parametrize(
    "framing_headers, body", [([f"Content-Length: {N}"], BODY), (["Transfer-Encoding: chunked"], CHUNKED)]
)
def test_the_same_move_well_framed_is_taken(served, framing_headers, body):
    match_id, token = _match(served.port)
    before = _version(served.port, match_id)
    status, _head, payload, _closed = _request(served.port, _move(match_id, token, framing_headers, body))
    assert status == 201, payload
    assert json.loads(payload)["version"] == before + 1 == _version(served.port, match_id)


@pytest.mark.parametrize(
    "value, detail",
    [
        ("9" * 5000, "from 0 to"),  # int() refuses more than 4300 digits
        ("9" * 20, "from 0 to"),
        ("\u00b2", "a version number"),  # a digit to str.isdigit, not to int()
        ("\u00b9", "a version number"),
    ],
)
def test_a_last_event_id_that_is_no_version_is_refused_with_400(served, value, detail):
    match_id, _token = _match(served.port)
    raw = f"GET /api/matches/{match_id}/stream HTTP/1.1\r\nHost: x\r\nLast-Event-ID: {value}\r\n\r\n"
    status, head, payload, closed = _request(served.port, raw.encode("latin-1"))
    assert status == 400, payload
    assert head["content-type"] == "application/problem+json"
    problem = json.loads(payload)
    assert problem["code"] == "bad-last-event-id" and detail in problem["detail"]
    assert not closed, "an ordinary refusal: the connection stays open"


def _parsed(block: bytes):
    return client.parse_headers(io.BytesIO(block + b"\r\n"))


@pytest.mark.parametrize(
    "block, version, wrong",
    [
        (b"Host: x\r\nContent-Length: 12\r\n", "HTTP/1.1", None),
        (b"Host: x\r\nTransfer-Encoding: Chunked\r\n", "HTTP/1.1", None),
        (b"Host: x\r\n", "HTTP/1.0", None),
        (b"Content-Length: 1\r\ncontent-length: 1\r\n", "HTTP/1.1", "at most one Content-Length"),
        (b"Content-Length: \xb2\r\n", "HTTP/1.1", "decimal number"),
        (b"Content-Length: -1\r\n", "HTTP/1.1", "decimal number"),
        (b"Content-Length: 1234567890123456789\r\n", "HTTP/1.1", "decimal number"),
        (b"Transfer-Encoding: identity\r\n", "HTTP/1.1", "single 'chunked'"),
        (b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", "HTTP/1.1", "not both"),
        (b"Transfer-Encoding: chunked\r\n", "HTTP/1.0", "needs HTTP/1.1"),
        (b"Host: x\r\n\tfolded\r\n", "HTTP/1.1", "folded line"),
        (b"Host: a\rb\r\n", "HTTP/1.1", "malformed"),
    ],
)
def test_the_framing_rule(block, version, wrong):
    found = framing.problem(_parsed(block), version)
    assert (found is None) if wrong is None else (wrong in (found or ""))
