"""On a real ``gameroom serve`` (shipped settings): a request whose header block cannot be framed
safely (request-smuggling shapes, RFC 9112 §6) is refused with a 400 problem+json
(``bad-http-framing``), the connection closed, and nothing appended; the same move well framed
(also chunked) is taken, and so is a header the standard library's parser misreads (a MIME
structure Content-Type). Unit cases of the rule: ``gameroom.http.framing.problem``. Malformed request
lines and their logs: test_protocol_errors_served.py."""

import io
import json
import socket
from http import client

import pytest

from gameroom.http import framing
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
    # the standard library's parser ended the line at the CR: the length after it was taken
    "a length after a bare CR": ([f"X-Note: a\rContent-Length: {N}"], BODY, "HTTP/1.1"),
    "a length after a bare CR, lean headers only": ([f"Accept: a\rContent-Length: {N}"], BODY, "HTTP/1.1"),
    "a length of a digit that is not ASCII": (["Content-Length: \u00b2"], BODY, "HTTP/1.1"),
    "a length of 5000 digits": (["Content-Length: " + "9" * 5000], BODY, "HTTP/1.1"),
    "a space before the colon": ([f"Content-Length : {N}"], BODY, "HTTP/1.1"),
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
    "framing_headers, body",
    [
        ([f"Content-Length: {N}"], BODY),
        (["Transfer-Encoding: chunked"], CHUNKED),
        # blanks around a value are not part of it (RFC 9110 §5.5), on either path: the worker's
        # own, and gevent's (which takes any request with a header the former does not know)
        ([f"Content-Length: {N} \t"], BODY),
        ([f"Content-Length: {N} ", "X-Trace: 1"], BODY),
    ],
)
def test_the_same_move_well_framed_is_taken(served, framing_headers, body):
    match_id, token = _match(served.port)
    before = _version(served.port, match_id)
    status, _head, payload, _closed = _request(served.port, _move(match_id, token, framing_headers, body))
    assert status == 201, payload
    assert json.loads(payload)["version"] == before + 1 == _version(served.port, match_id)


def test_a_request_smuggled_after_a_bare_cr_is_not_answered(served):
    """A proxy that keeps the CR in ``X-A``'s value sends a move with no body, then a second request
    (``{}GET /api/healthz``); the server must not read ``{}`` as the move's body and answer the
    second request as its own."""
    match_id, token = _match(served.port)
    smuggled = b"GET /api/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    raw = _move(match_id, token, ["X-A: y\rContent-Length: 2"], b"{}" + smuggled)
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(raw)
        sock.settimeout(5)
        received = b""
        while chunk := sock.recv(65536):  # to the end: the server closes the connection
            received += chunk
    assert received.startswith(b"HTTP/1.1 400 "), received
    assert b'"code":"bad-http-framing"' in received
    assert received.count(b"HTTP/1.1 ") == 1, "only the first request is answered"


@pytest.mark.parametrize("size_line", [b"Z", b"+2\r\n{}", b"2\r\n{}XY"])
def test_a_chunked_body_that_cannot_be_read_closes_the_connection(served, size_line):
    """The rest of a malformed chunked body must not be read as a request of its own."""
    smuggled = b"GET /api/games/nim HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    head = (
        b"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/json\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(head + size_line + smuggled)
        sock.settimeout(5)
        received = b""
        while chunk := sock.recv(65536):  # to the end: the server closes the connection
            received += chunk
    assert received.startswith(b"HTTP/1.1 400 "), received
    assert received.count(b"HTTP/1.1 ") == 1, "only the first request is answered"
    assert b"connection: close" in received.lower() and b"keep-alive: timeout" not in received.lower()


@pytest.mark.parametrize(
    "content_type", ["multipart/form-data; boundary=x", "message/rfc822", "multipart/mixed"]
)
def test_a_mime_structure_content_type_is_no_framing_error(served, content_type):
    """The standard library's parser reads such a Content-Type as a MIME structure and reports
    defects of its (empty) body; the request is answered as any other body type is."""
    health = f"GET /api/healthz HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\n\r\n"
    status, _head, payload, closed = _request(served.port, health.encode())
    assert (status, json.loads(payload)) == (200, {"status": "ok"})
    assert not closed, "the connection stays open"
    match_id, token = _match(served.port)
    before = _version(served.port, match_id)
    answers = []
    for kind in (content_type, "text/plain"):
        raw = _move(match_id, token, [f"Content-Length: {N}"], BODY).replace(
            b"Content-Type: application/json", f"Content-Type: {kind}".encode()
        )
        status, _head, payload, _closed = _request(served.port, raw)
        answers.append((status, json.loads(payload).get("code")))
    assert answers[0] == answers[1], "answered as a text/plain body is"
    assert answers[0][1] != "bad-http-framing"
    assert _version(served.port, match_id) == before + (answers[0][0] == 201) + (answers[1][0] == 201)


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


@pytest.mark.parametrize(
    "block, version, wrong",
    [
        (b"Host: x\r\nContent-Length: 12\r\n", "HTTP/1.1", None),
        (b"Host: x\r\nContent-Length:\t12 \t\r\n", "HTTP/1.1", None),
        (b"Host: x\r\nTransfer-Encoding: Chunked\r\n", "HTTP/1.1", None),
        (b"Host: x\r\n", "HTTP/1.0", None),
        (b"Host: x\nContent-Length: 3\n", "HTTP/1.1", None),  # bare LF line ends (RFC 9112 §2.2)
        (b"Content-Type: multipart/form-data; boundary=x\r\n", "HTTP/1.1", None),
        (b"Content-Type: message/rfc822\r\n", "HTTP/1.1", None),
        (b"Content-Length: 1\r\ncontent-length: 1\r\n", "HTTP/1.1", "at most one Content-Length"),
        (b"Content-Length: \xb2\r\n", "HTTP/1.1", "decimal number"),
        (b"Content-Length: -1\r\n", "HTTP/1.1", "decimal number"),
        (b"Content-Length: 1234567890123456789\r\n", "HTTP/1.1", "decimal number"),
        (b"Transfer-Encoding: identity\r\n", "HTTP/1.1", "single 'chunked'"),
        (b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", "HTTP/1.1", "not both"),
        (b"Transfer-Encoding: chunked\r\n", "HTTP/1.0", "needs HTTP/1.1"),
        (b"Host: x\r\n\tfolded\r\n", "HTTP/1.1", "folded"),
        (b"Host: a\rb\r\n", "HTTP/1.1", "bare CR"),
        (b"X-A: y\rContent-Length: 2\r\n", "HTTP/1.1", "bare CR"),
        (b"Host: a\r\r\n", "HTTP/1.1", "bare CR"),
        (b"Host: a\x00\r\n", "HTTP/1.1", "NUL"),
        (b"no colon\r\n", "HTTP/1.1", "malformed"),
        (b"Host : x\r\n", "HTTP/1.1", "malformed"),
        (b": x\r\n", "HTTP/1.1", "malformed"),
    ],
)
def test_the_framing_rule(block, version, wrong):
    lines = framing.read_header_lines(io.BufferedReader(io.BytesIO(block + b"\r\n")))
    assert b"".join(lines) == block
    found = framing.problem(lines, version)
    assert (found is None) if wrong is None else (wrong in (found or ""))


def test_header_lines_over_the_limits_are_refused_with_431():
    too_many = b"".join(b"X-%d: 1\r\n" % i for i in range(framing.MAX_HEADERS + 1)) + b"\r\n"
    too_long = b"X-A: " + b"a" * framing.MAX_HEADER_LINE + b"\r\n\r\n"
    for block in (too_many, too_long):
        with pytest.raises(framing.Refused) as refused:
            framing.read_header_lines(io.BufferedReader(io.BytesIO(block)))
        assert (refused.value.status, refused.value.code) == (431, "header-fields-too-large")
    at_most = b"".join(b"X-%d: 1\r\n" % i for i in range(framing.MAX_HEADERS)) + b"\r\n"
    assert len(framing.read_header_lines(io.BufferedReader(io.BytesIO(at_most)))) == framing.MAX_HEADERS
