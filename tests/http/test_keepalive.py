"""HTTP keep-alive on a real ``gameroom serve``: the idle timeout is advertised and kept.

The race of issue 14: a server that closes an idle connection without telling
clients when, while a client sends its next request on it (ECONNRESET on a
move). Every response now says ``Keep-Alive: timeout=N`` and the server closes
an idle connection after exactly that, so a client that closes before N (as
Node, undici and curl do with the header) never writes to a closing socket.
"""

import http.client
import socket
import time

import pytest

from gameroom.config import Config
from gameroom.testing.live_server import LiveServer


def _get(conn, path="/api/healthz"):
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return response


@pytest.fixture(scope="module")
def default_server(redis_server, tmp_path_factory):
    with LiveServer(redis_server.url, tmp_path_factory.mktemp("keepalive-default")) as live:
        yield live


def test_every_response_advertises_the_default_idle_timeout_and_the_connection_is_reused(default_server):
    conn = http.client.HTTPConnection("127.0.0.1", default_server.port, timeout=10)
    try:
        first = _get(conn)
        assert first.status == 200
        assert first.getheader("Keep-Alive") == f"timeout={Config().http_keepalive}"
        assert first.getheader("Connection") != "close"
        sock = conn.sock
        time.sleep(2)  # idle well below the advertised timeout: the same connection serves the next request
        problem = _get(conn, "/api/matches/no-such-match/state")
        assert conn.sock is sock, "the connection was not reused"
        assert problem.status == 404 and problem.getheader("Keep-Alive") == first.getheader("Keep-Alive")
    finally:
        conn.close()
    assert "Traceback" not in default_server.log()


@pytest.fixture(scope="module")
def short_server(redis_server, tmp_path_factory):
    env = {"GAMEROOM_HTTP_KEEPALIVE": "2"}
    with LiveServer(redis_server.url, tmp_path_factory.mktemp("keepalive-short"), env=env) as live:
        yield live


def test_the_server_closes_an_idle_connection_after_the_advertised_timeout_not_before(short_server):
    conn = http.client.HTTPConnection("127.0.0.1", short_server.port, timeout=10)
    try:
        assert _get(conn).getheader("Keep-Alive") == "timeout=2"
        sock = conn.sock
        # A client honouring the header reuses the connection up to 1 s before the timeout.
        for _ in range(3):
            time.sleep(1.0)
            assert _get(conn).status == 200
            assert conn.sock is sock
        # Idle past the timeout: the server has closed its end (EOF), no request is lost in a race.
        sock.settimeout(15)  # EOF, not a timeout: the server closed it
        assert sock.recv(1) == b""
    finally:
        conn.close()
    # a fresh connection still works
    again = http.client.HTTPConnection("127.0.0.1", short_server.port, timeout=10)
    try:
        assert _get(again).status == 200
    finally:
        again.close()
    with socket.create_connection(("127.0.0.1", short_server.port), timeout=15) as idle:
        assert idle.recv(1) == b""  # a connection that never sends a request is closed too


def _answer_then_close(port: int, raw: bytes, then: bytes = b"") -> tuple[bytes, bool]:
    """Send ``raw`` and go quiet: (everything the server sent, whether it closed the connection)."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        sock.sendall(raw)
        got = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                return got, False
            if not chunk:
                return got, True
            got += chunk


MOVE_HEAD = (
    b"POST /api/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"
)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"GET /api/healthz HTTP/1.1\r\n", id="request line only"),
        pytest.param(b"GET /api/healthz HTTP/1.1\r\nHost: x\r\nAccept: ", id="headers half sent"),
        pytest.param(MOVE_HEAD + b"\r\n" + b'{"game": ', id="body half sent, the worker's own path"),
    ],
)
def test_a_request_that_stops_half_way_is_answered_408_and_its_connection_closed(short_server, raw):
    """Slowloris: a request line, then nothing (or half the headers, or half a small body) held a
    connection and its greenlet for ever; the keep-alive timeout bounds only the wait for a request
    line. The whole request must now arrive within that timeout too."""
    got, closed = _answer_then_close(short_server.port, raw)
    assert closed and got.startswith(b"HTTP/1.1 408 "), got
    assert b'"code":"request-timeout"' in got.replace(b" ", b""), got


def test_a_body_that_stops_half_way_on_gevents_path_is_refused_and_closed_without_a_traceback(
    short_server,
):
    """The same body behind a header the worker's own path does not take (gevent's handler and
    the app read it): a 400 problem+json, then the connection closed; and a client that leaves
    mid-body is no traceback in the log (it was, untimestamped)."""
    head = MOVE_HEAD + b"X-Trace: 1\r\n\r\n"
    got, closed = _answer_then_close(short_server.port, head + b'{"game": ')
    assert closed and got.startswith(b"HTTP/1.1 400 "), got
    assert b"application/problem+json" in got, got
    with socket.create_connection(("127.0.0.1", short_server.port), timeout=15) as sock:
        sock.sendall(head + b'{"game": ')
    conn = http.client.HTTPConnection("127.0.0.1", short_server.port, timeout=10)
    try:
        assert _get(conn).status == 200  # the server is fine
    finally:
        conn.close()
    time.sleep(0.5)
    assert "Traceback" not in short_server.log(), short_server.log()[-3000:]


@pytest.mark.parametrize(
    "request_head",
    [
        b"GET /api/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n",
        b"GET /api/healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n",
        b"GET /api/healthz HTTP/1.1\r\nHost: x\r\nConnection: Close, TE\r\nTE: trailers\r\n",
        b"GET /api/healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nConnection: close\r\n",
        b"GET /api/healthz HTTP/1.0\r\nHost: x\r\n",
    ],
    ids=["close", "a list with close", "close first, any case", "two Connection headers", "HTTP/1.0"],
)
def test_a_request_asking_for_close_is_the_last_one_read_and_its_answer_says_so(default_server, request_head):
    """RFC 9112 §9.6: after ``close`` anywhere in Connection, no further request is processed
    (the one pipelined behind it here could be a move), and the response says ``Connection:
    close`` instead of advertising an idle timeout."""
    behind = b"GET /api/healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    got, closed = _answer_then_close(default_server.port, request_head + b"\r\n" + behind)
    assert closed and got.count(b"HTTP/1.") == 1, got
    head = got.split(b"\r\n\r\n", 1)[0].lower()
    assert b"\r\nconnection: close" in head and b"keep-alive" not in head, head
