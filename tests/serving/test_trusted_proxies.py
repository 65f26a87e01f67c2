"""The client address behind a reverse proxy (``GAMEROOM_TRUSTED_PROXIES``), on a real server: the
per-client stream cap counts the client the proxy saw, never one a client names itself.

Every request here comes from the same socket address (127.0.0.1), as every request through
nginx does; ``X-Forwarded-For`` is what nginx's ``$proxy_add_x_forwarded_for`` would send.
"""

import time

import pytest

from gameroom.testing.live_server import LiveServer, http

from .sse import RawStream, pump


def _match(server) -> str:
    status, created = http(
        "POST", server.base + "/api/matches", {"game": "tic-tac-toe", "seats": [{"name": "X"}, {"name": "O"}]}
    )
    assert status == 201, created
    return created["match"]["id"]


def _stream(server, match_id: str, forwarded: str | None = None) -> RawStream:
    """A stream opened with ``forwarded`` as its X-Forwarded-For, once its status has come (and,
    for a refusal, its whole response)."""
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
    stream = RawStream(server.port, f"/api/matches/{match_id}/stream", headers)
    done = lambda: stream.status == 200 or (stream.status is not None and stream.closed)  # noqa: E731
    assert pump([stream], done, timeout=10), stream.data
    return stream


def _logged(server, text: str) -> bool:
    """Whether the server's log has ``text`` (waiting a little for its write)."""
    deadline = time.monotonic() + 10
    while text not in server.log():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.slow
def test_with_no_trusted_proxy_x_forwarded_for_does_not_change_the_address_the_cap_counts(
    redis_server, tmp_path
):
    """The default: a client cannot dodge its cap by naming another address."""
    env = {"GAMEROOM_SSE_MAX_STREAMS_PER_CLIENT": "1"}
    with LiveServer(redis_server.url, tmp_path, env=env) as server:
        match_id = _match(server)
        held = _stream(server, match_id, "203.0.113.1")
        refused = _stream(server, match_id, "203.0.113.2")
        try:
            assert held.status == 200
            assert refused.status == 429, refused.data
            assert b"too-many-streams" in refused.data
            # Counted, and logged, as the socket's address; the line points at the setting.
            assert _logged(server, "client 127.0.0.1 has 1 live streams open")
            assert "GAMEROOM_TRUSTED_PROXIES" in server.log()
            assert "203.0.113" not in server.log()
        finally:
            held.close()
            refused.close()


@pytest.mark.slow
def test_behind_one_trusted_proxy_each_forwarded_client_has_its_own_cap_and_only_the_last_hop_counts(
    redis_server, tmp_path
):
    env = {
        "GAMEROOM_SSE_MAX_STREAMS_PER_CLIENT": "1",
        "GAMEROOM_TRUSTED_PROXIES": "1",
        "GAMEROOM_ACCESS_LOG": "1",
    }
    with LiveServer(redis_server.url, tmp_path, env=env) as server:
        match_id = _match(server)
        streams = []
        try:
            first = _stream(server, match_id, "203.0.113.1")
            second = _stream(server, match_id, "203.0.113.2")  # same socket address, another client
            streams += [first, second]
            assert (first.status, second.status) == (200, 200), (first.data, second.data)
            assert pump(streams, lambda: all(s.ids() == [1] for s in streams))
            again = _stream(server, match_id, "203.0.113.1")
            streams.append(again)
            assert again.status == 429, again.data
            # A client that sends its own X-Forwarded-For gets the proxy's hop appended: only that
            # last address, the one the proxy saw, is trusted; the name it chose is not.
            spoofed = _stream(server, match_id, "198.51.100.7, 203.0.113.2")
            streams.append(spoofed)
            assert spoofed.status == 429, spoofed.data
            # Without the header (a probe reaching the API directly): the socket's own address.
            direct = _stream(server, match_id)
            streams.append(direct)
            assert direct.status == 200, direct.data
            assert _logged(server, "client 203.0.113.1 has 1 live streams open")
            # gunicorn's access log reads the same environ: it names the forwarded client too.
            assert _logged(server, '203.0.113.2 "GET /api/matches/')
            assert "198.51.100.7" not in server.log()
        finally:
            for stream in streams:
                stream.close()
