"""On a real ``gameroom serve`` (shipped settings): a request that cannot be read as HTTP/1.x (a
malformed request line, one too long, too many or too long header lines) is answered with a
problem+json, the connection closed, and logged in one timestamped line that names the method and
path but never the query string (a live stream's ``?token=``), with no traceback. gevent's own
handler answered these with a bare 400 or 414 and wrote the whole request line, token and all, to
stderr (for too many headers, a traceback too). The framing rules themselves:
test_framing_served.py."""

import json
import re
import socket
from http import client

import pytest

from gameroom.http import framing
from gameroom.testing.live_server import LiveServer

#: A log line of the refusal: timestamp, level, logger, then the method and path only.
REFUSED_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO gameroom\.serving: refused '(?P<line>[^']*)' from 127\.0\.0\.1: .+$"
)


@pytest.fixture(scope="module")
def served(redis_server, tmp_path_factory):
    with LiveServer(
        redis_server.url, tmp_path_factory.mktemp("protocol"), env={"GAMEROOM_AI_MODE": "off"}
    ) as live:
        yield live


@pytest.fixture(scope="module")
def with_access_log(redis_server, tmp_path_factory):
    """The same with gunicorn's access log on."""
    env = {"GAMEROOM_AI_MODE": "off", "GAMEROOM_ACCESS_LOG": "1"}
    with LiveServer(redis_server.url, tmp_path_factory.mktemp("protocol-access"), env=env) as live:
        yield live


def _stream_of_new_match(port: int) -> tuple[str, str]:
    """A new Nim match's live-stream path and a seat token."""
    conn = client.HTTPConnection("127.0.0.1", port, timeout=10)
    body = {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}]}
    conn.request("POST", "/api/matches", json.dumps(body), {"Content-Type": "application/json"})
    created = json.loads(conn.getresponse().read())
    conn.close()
    return f"/api/matches/{created['match']['id']}/stream", next(iter(created["tokens"].values()))


def _exchange(port: int, raw: bytes, before: bytes = b"") -> tuple[list[bytes], bool]:
    """Send ``before`` (a well-formed request, answered first) and ``raw`` on one connection: the
    responses until the server closed it (or went quiet for 3 s), and whether it closed it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(before + raw)
        sock.settimeout(3)
        received, closed = b"", False
        try:
            while chunk := sock.recv(65536):
                received += chunk
            closed = True
        except ConnectionResetError:  # closed with bytes of ours still unread: it is closed too
            closed = True
        except TimeoutError:
            pass
    responses = []
    while received:  # each with its Content-Length
        end = received.index(b"\r\n\r\n") + 4
        length = int(re.search(rb"(?i)\r\ncontent-length: *([0-9]+)", received[:end])[1])
        responses.append(received[: end + length])
        received = received[end + length :]
    return responses, closed


def _problem(response: bytes) -> tuple[str, dict, dict]:
    head, _, body = response.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    assert len(body) == int(headers["content-length"])
    return status, headers, json.loads(body)


def _cases(path: str, token: str) -> dict:
    """(the request, its status line, its code): each with the token in its query string."""
    target = f"{path}?token={token}"
    host = "Host: 127.0.0.1\r\n"
    return {
        "HTTP/2.0": (f"GET {target} HTTP/2.0\r\n{host}\r\n", "400 Bad Request", "bad-http-framing"),
        "a tab in the path": (
            f"GET {path[:-3]}\t{path[-3:]}?token={token} HTTP/1.1\r\n{host}\r\n",
            "400 Bad Request",
            "bad-http-framing",
        ),
        "FOO/1.1": (f"GET {target} FOO/1.1\r\n{host}\r\n", "400 Bad Request", "bad-http-framing"),
        "HTTP/1 (gevent: a traceback)": (
            f"GET {target} HTTP/1\r\n{host}\r\n",
            "400 Bad Request",
            "bad-http-framing",
        ),
        "no version, not GET": (f"POST {target}\r\n{host}\r\n", "400 Bad Request", "bad-http-framing"),
        "101 headers": (
            f"GET {target} HTTP/1.1\r\n" + "".join(f"X-H{i}: 1\r\n" for i in range(101)) + "\r\n",
            "431 Request Header Fields Too Large",
            "header-fields-too-large",
        ),
        "a 70 KB header": (
            f"GET {target} HTTP/1.1\r\n{host}X-Big: {'a' * 70_000}\r\n\r\n",
            "431 Request Header Fields Too Large",
            "header-fields-too-large",
        ),
        "a request line over 8 KB": (
            f"GET {target}&pad={'a' * 9000} HTTP/1.1\r\n{host}\r\n",
            "414 Request-URI Too Long",
            "uri-too-long",
        ),
        "a HEAD with a body": (
            f"HEAD {target} HTTP/1.1\r\n{host}Content-Length: 3\r\n\r\nabc",
            "400 Bad Request",
            "bad-http-framing",
        ),
    }


CASES = list(_cases("/p", "t"))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("after_a_good_request", [False, True], ids=["fresh", "keep-alive"])
def test_a_request_that_is_no_http_is_answered_with_a_problem_and_logged_in_one_line(
    served, case, after_a_good_request
):
    path, token = _stream_of_new_match(served.port)
    raw, status_line, code = _cases(path, token)[case]
    before = b"GET /api/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" if after_a_good_request else b""
    logged = len(served.log())
    responses, closed = _exchange(served.port, raw.encode("latin-1"), before)
    assert len(responses) == 1 + after_a_good_request, responses
    status, headers, problem = _problem(responses[-1])
    assert status == f"HTTP/1.1 {status_line}"
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert (problem["code"], problem["status"]) == (code, int(status_line.split()[0]))
    assert problem["detail"] and token not in problem["detail"]
    assert closed, "the connection is closed after the refusal"
    log = served.log()[logged:]
    assert token not in log and "?token" not in log
    assert "Traceback" not in log
    refusals = [line for line in log.splitlines() if "refused" in line]
    assert len(refusals) == 1, log
    found = REFUSED_LINE.match(refusals[0])
    assert found, refusals[0]
    method = raw.split(" ", 1)[0]
    assert found["line"].startswith(f"{method} {path[:-3]}")  # the path, up to the tab at most
    assert len(found["line"]) <= 101


def test_the_server_still_answers_after_them(served):
    conn = client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    conn.request("GET", "/api/healthz")
    assert conn.getresponse().status == 200


@pytest.mark.parametrize("case", ["HTTP/2.0", "101 headers", "a request line over 8 KB"])
def test_with_the_access_log_on_a_refusal_is_logged_without_its_query_or_a_traceback(with_access_log, case):
    path, token = _stream_of_new_match(with_access_log.port)
    raw, status_line, code = _cases(path, token)[case]
    logged = len(with_access_log.log())
    for before in (b"", b"GET /api/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"):
        responses, closed = _exchange(with_access_log.port, raw.encode("latin-1"), before)
        assert _problem(responses[-1])[0] == f"HTTP/1.1 {status_line}" and closed
    log = with_access_log.log()[logged:]
    assert token not in log and "Traceback" not in log
    status = status_line.split()[0]
    access = [line for line in log.splitlines() if f'"GET {path}" {status} ' in line]
    assert len(access) == 2, log  # gunicorn's own line for each, with the path and no query


@pytest.mark.parametrize(
    "line, wrong",
    [
        ("GET /api/healthz HTTP/1.1\r\n", None),
        ("POST /api/matches HTTP/1.0\r\n", None),
        ("GET /api/healthz\r\n", None),  # HTTP/0.9's form, which gevent's handler takes
        ("GET / HTTP/2.0\r\n", "HTTP version"),
        ("GET / HTTP/1\r\n", "HTTP version"),  # gevent: an IndexError and its traceback
        ("GET / HTTP/\u00b9.1\r\n", "HTTP version"),  # a digit to str.isdigit, not to int()
        ("GET / FOO/1.1\r\n", "HTTP version"),
        ("POST /api/matches\r\n", "request line"),
        ("GET /a b HTTP/1.1\r\n", "request line"),
        ("\r\n", "request line"),
    ],
)
def test_the_request_line_rule(line, wrong):
    found = framing.request_line_problem(line)
    assert (found is None) if wrong is None else (wrong in (found or ""))


@pytest.mark.parametrize(
    "line, shown",
    [
        ("GET /api/matches/m/stream?token=abc HTTP/2.0\r\n", "GET /api/matches/m/stream"),
        ("GET /api/matches/m/str\team?token=abc HTTP/1.1\r\n", "GET /api/matches/m/str"),
        ("GET?token=abc /x HTTP/1.1\r\n", "GET"),
        ("POST /" + "a" * 200 + " HTTP/1.1\r\n", "POST /" + "a" * 94 + "…"),
        # no request line: a header line (a token after the colon) or a body where one was due
        ("Authorization:Bearer SEAT-TOKEN\r\n", "-"),
        ('{"move": {"type": "take"}}\r\n', "-"),
        ("GET SEAT-TOKEN HTTP/1.1\r\n", "GET"),
        ("\r\n", "-"),
    ],
)
def test_a_logged_request_line_is_its_method_and_path_without_the_query(line, shown):
    assert framing.redacted(line) == shown


def _status_lines(responses: list[bytes]) -> list[str]:
    return [r.split(b"\r\n", 1)[0].decode() for r in responses]


@pytest.mark.parametrize("server", ["served", "with_access_log"])
def test_empty_lines_before_a_request_line_are_ignored(server, request):
    """RFC 9112 §2.2: a server SHOULD ignore at least one empty line before a request line (some
    clients send a CRLF after a POST body). Both on a fresh connection and after a body."""
    port = request.getfixturevalue(server).port
    healthz = b"GET /api/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    responses, _closed = _exchange(port, b"\r\n" + healthz)
    assert _status_lines(responses) == ["HTTP/1.1 200 OK"]
    body = json.dumps({"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}]}).encode()
    create = (
        b"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    responses, closed = _exchange(port, create + b"\r\n\r\n" + healthz)
    assert _status_lines(responses) == ["HTTP/1.1 201 CREATED", "HTTP/1.1 200 OK"]
    assert not closed


@pytest.mark.parametrize("server", ["served", "with_access_log"])
def test_more_empty_lines_than_a_client_would_send_are_refused(server, request):
    port = request.getfixturevalue(server).port
    raw = b"\r\n" * 5 + b"GET /api/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    responses, closed = _exchange(port, raw)
    assert len(responses) == 1 and closed
    status, _headers, problem = _problem(responses[0])
    assert (status, problem["code"]) == ("HTTP/1.1 400 Bad Request", "bad-http-framing")


def test_a_header_line_read_where_a_request_line_was_due_is_refused_without_logging_it(served):
    """A client (or a broken proxy) that sends one empty line too many after a header block makes
    the next header line the next request line: its token must not reach the log."""
    logged = len(served.log())
    raw = b"GET /api/healthz HTTP/1.1\r\nHost: x\r\n\r\nAuthorization:Bearer SEAT-TOKEN-abc123\r\n\r\n"
    responses, closed = _exchange(served.port, raw)
    assert _status_lines(responses) == ["HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request"] and closed
    log = served.log()[logged:]
    assert "SEAT-TOKEN" not in log and "refused '-' from 127.0.0.1" in log, log
