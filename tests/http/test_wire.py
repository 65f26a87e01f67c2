"""Which requests the worker reads itself (gameroom.http.wire), and that it leaves the rest unread.

Unit level: ``read_request`` on a buffered reader, as the handler calls it after
reading the request line. A request it declines must leave every byte in the
buffer, so that gevent's own handler reads it as if nothing had looked.
"""

import io
import socket
import threading

import pytest

from gameroom.http import wire

BODY = b'{"move": {"type": "take", "pile": 0, "count": 1}}'
LINE = "POST /api/matches/m1-_x/moves HTTP/1.1\r\n"
HEADERS = [
    b"Host: 127.0.0.1:8000",
    b"Content-Type: application/json",
    b"Content-Length: %d" % len(BODY),
    b"Authorization: Bearer tok",
    b"Connection: keep-alive",
]


def _reader(line: str, headers, body: bytes, after: bytes = b""):
    """A buffered reader positioned after ``line``, as the handler leaves it."""
    raw = line.encode("latin-1") + b"\r\n".join(headers) + b"\r\n\r\n" + body + after
    reader = io.BufferedReader(io.BytesIO(raw), buffer_size=8192)
    assert reader.readline() == line.encode("latin-1")
    return reader


def test_an_ordinary_move_request_is_read_whole_and_the_next_request_stays_in_the_buffer():
    following = b"GET /api/healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    reader = _reader(LINE, [*HEADERS, b"Idempotency-Key: k1"], BODY, following)
    environ = wire.read_request(LINE, reader)
    assert environ["REQUEST_METHOD"] == "POST"
    assert environ["PATH_INFO"] == "/api/matches/m1-_x/moves"
    assert environ["QUERY_STRING"] == "" and environ["RAW_URI"] == "/api/matches/m1-_x/moves"
    assert environ["CONTENT_TYPE"] == "application/json"
    assert environ["CONTENT_LENGTH"] == str(len(BODY))
    assert environ["HTTP_AUTHORIZATION"] == "Bearer tok"
    assert environ["HTTP_IDEMPOTENCY_KEY"] == "k1"
    assert environ["wsgi.input"].read() == BODY
    assert reader.read() == following


def test_the_legal_moves_query_is_passed_on():
    line = "POST /api/matches/abc/moves?include=legal_moves HTTP/1.1\r\n"
    environ = wire.read_request(line, _reader(line, HEADERS, BODY))
    assert environ["PATH_INFO"] == "/api/matches/abc/moves"
    assert environ["QUERY_STRING"] == "include=legal_moves"


@pytest.mark.parametrize(
    ("line", "method", "path"),
    [
        ("POST /api/matches HTTP/1.1\r\n", "POST", "/api/matches"),
        ("POST /api/matches/abc/seats/1 HTTP/1.1\r\n", "POST", "/api/matches/abc/seats/1"),
    ],
)
def test_creating_a_match_and_claiming_a_seat_are_read_too(line, method, path):
    environ = wire.read_request(line, _reader(line, HEADERS, BODY))
    assert (environ["REQUEST_METHOD"], environ["PATH_INFO"]) == (method, path)
    assert environ["wsgi.input"].read() == BODY


@pytest.mark.parametrize("what", ["state", "legal-moves"])
def test_a_state_or_legal_moves_get_without_a_body_is_read(what):
    line = f"GET /api/matches/abc/{what} HTTP/1.1\r\n"
    headers = [b"Host: x", b"Authorization: Bearer tok", b'If-None-Match: "v3"']
    following = b"GET /api/healthz HTTP/1.1\r\n\r\n"
    reader = _reader(line, headers, b"", following)
    environ = wire.read_request(line, reader)
    assert (environ["REQUEST_METHOD"], environ["PATH_INFO"]) == ("GET", f"/api/matches/abc/{what}")
    assert environ["HTTP_IF_NONE_MATCH"] == '"v3"' and environ["QUERY_STRING"] == ""
    assert environ["wsgi.input"].read() == b""
    assert reader.read() == following


def _swap(name: bytes, line: bytes | None):
    """HEADERS with the header ``name`` replaced by ``line`` (None: dropped)."""
    out = [h for h in HEADERS if not h.lower().startswith(name + b":")]
    return out if line is None else [*out, line]


DECLINED = {
    "another method": ("PUT /api/matches/abc/moves HTTP/1.1\r\n", HEADERS, BODY),
    "another path": ("POST /api/matches/abc/undo HTTP/1.1\r\n", HEADERS, BODY),
    "a live stream": ("GET /api/matches/abc/stream HTTP/1.1\r\n", _swap(b"content-length", None), b""),
    "a state with a query": (
        "GET /api/matches/abc/state?version=2 HTTP/1.1\r\n",
        _swap(b"content-length", None),
        b"",
    ),
    "a GET with a body": ("GET /api/matches/abc/state HTTP/1.1\r\n", HEADERS, BODY),
    "an import": ("POST /api/matches/import HTTP/1.1\r\n", HEADERS, BODY),
    "percent-encoded id": ("POST /api/matches/a%62c/moves HTTP/1.1\r\n", HEADERS, BODY),
    "id too long": (f"POST /api/matches/{'a' * 65}/moves HTTP/1.1\r\n", HEADERS, BODY),
    "another query": ("POST /api/matches/abc/moves?include=all HTTP/1.1\r\n", HEADERS, BODY),
    "HTTP/1.0": ("POST /api/matches/abc/moves HTTP/1.0\r\n", HEADERS, BODY),
    "an Origin (CORS)": (LINE, [*HEADERS, b"Origin: http://elsewhere.example"], BODY),
    "an unknown header": (LINE, [*HEADERS, b"X-Anything: 1"], BODY),
    "Transfer-Encoding": (LINE, [*HEADERS, b"Transfer-Encoding: chunked"], BODY),
    "Expect": (LINE, [*HEADERS, b"Expect: 100-continue"], BODY),
    "a repeated header": (LINE, [*HEADERS, b"Authorization: Bearer other"], BODY),
    "a repeated length": (LINE, [*HEADERS, b"content-length: 3"], BODY),
    "Connection: close": (LINE, _swap(b"connection", b"Connection: close"), BODY),
    "no Content-Length": (LINE, _swap(b"content-length", None), BODY),
    "a signed Content-Length": (LINE, _swap(b"content-length", b"Content-Length: +%d" % len(BODY)), BODY),
    "a non-ASCII digit length": (LINE, _swap(b"content-length", b"Content-Length: \xb2"), BODY),
    "a length of 5000 digits": (LINE, _swap(b"content-length", b"Content-Length: " + b"9" * 5000), BODY),
    "a space before the colon": (LINE, _swap(b"host", b"Host : x"), BODY),
    "a folded header line": (LINE, [*HEADERS, b" continued"], BODY),
    "a line without a colon": (LINE, [*HEADERS, b"nonsense"], BODY),
    "a bare CR in a header": (LINE, [*HEADERS, b"Idempotency-Key: a\rb"], BODY),
    "a NUL in a header": (LINE, [*HEADERS, b"Idempotency-Key: a\x00b"], BODY),
    "a bare LF in a header": (LINE, [*HEADERS, b"Idempotency-Key: a\nContent-Length: 0"], BODY),
    "a body over the waited size still on its way": (
        LINE,
        _swap(b"content-length", b"Content-Length: %d" % (wire.BODY_WAITED + 1)),
        BODY,
    ),
}


@pytest.mark.parametrize("case", DECLINED)
def test_anything_else_is_left_unread_for_gevents_handler(case):
    line, headers, body = DECLINED[case]
    reader = _reader(line, headers, body)
    before = reader.peek(1)
    assert wire.read_request(line, reader) is None
    assert reader.read() == before


def test_a_body_sent_after_its_headers_is_waited_for():
    """Python's http.client sends a body in a write of its own: the worker waits for it."""
    following = b"GET /api/healthz HTTP/1.1\r\n\r\n"
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(LINE.encode() + b"\r\n".join(HEADERS) + b"\r\n\r\n" + BODY[:5])
        rest = threading.Timer(0.2, theirs.sendall, [BODY[5:] + following])
        rest.start()
        reader = ours.makefile("rb")
        assert reader.readline() == LINE.encode()
        environ = wire.read_request(LINE, reader)
        rest.join()
        assert environ["wsgi.input"].read() == BODY
        assert reader.read(len(following)) == following


def test_a_peer_that_leaves_before_its_body_came_is_not_answered():
    reader = _reader(LINE, HEADERS, BODY[:-5])  # and then the end of the connection
    assert wire.read_request(LINE, reader) is wire.CLOSED


def test_headers_that_have_not_all_arrived_are_left_unread():
    raw = LINE.encode() + b"\r\n".join(HEADERS)  # no blank line yet
    reader = io.BufferedReader(io.BytesIO(raw))
    reader.readline()
    assert wire.read_request(LINE, reader) is None
    assert reader.read() == b"\r\n".join(HEADERS)


def test_the_response_gets_a_date_and_a_length_as_gevents_handler_gives_them():
    raw, close = wire.response_bytes("201 CREATED", [("Content-Type", "application/json")], [b"{", b"}"])
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"HTTP/1.1 201 CREATED"
    assert lines[1] == b"Content-Type: application/json"
    assert lines[2].startswith(b"Date: ") and lines[2].endswith(b" GMT")
    assert lines[3] == b"Content-Length: 2"
    assert body == b"{}" and not close


def test_the_apps_own_length_and_close_are_kept():
    headers = [("Content-Length", "2"), ("Connection", "close")]
    raw, close = wire.response_bytes("400 BAD REQUEST", headers, [b"{}"])
    assert raw.count(b"Content-Length") == 1 and close


def test_a_header_with_a_line_break_is_refused_not_written():
    with pytest.raises(ValueError):
        wire.response_bytes("200 OK", [("X-Evil", "a\r\nSet-Cookie: x=1")], [b""])
