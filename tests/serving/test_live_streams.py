"""Live streams on a real server with the shipped settings (gevent workers, the stream
hub, keep-alive every 15 s): they stay up, they scale, they end, they resume."""

import subprocess
import threading
import time

import pytest
import redis

from gameroom.config import Config
from gameroom.testing.live_server import LiveServer, http

from .sse import RawStream, mark, new_match, pump

#: Seat 0 wins on the top row: 5 moves.
WIN = [0, 3, 1, 4, 2]


@pytest.fixture(scope="module")
def server(redis_server, tmp_path_factory):
    with LiveServer(redis_server.url, tmp_path_factory.mktemp("live-streams")) as live:
        yield live


@pytest.mark.slow
def test_an_idle_stream_on_default_settings_survives_20_s_with_keep_alives_then_gets_a_move(server):
    match_id, tokens = new_match(server)
    stream = RawStream(server.port, f"/api/matches/{match_id}/stream")
    try:
        # Nothing happens for 20 s: the default keep-alive (15 s) must go out, the stream must stay open.
        pump([stream], lambda: stream.closed, timeout=20)
        assert not stream.closed, stream.data
        assert stream.status == 200 and stream.ids() == [1]
        assert stream.body.count(b": keep-alive\n\n") == 1, stream.body
        mark(server, match_id, tokens[0], 4)
        assert pump([stream], lambda: 2 in stream.ids(), timeout=10), stream.body
    finally:
        stream.close()
    assert "Traceback" not in server.log()


def _worker_threads(server) -> int:
    (worker,) = subprocess.run(
        ["pgrep", "-P", str(server.proc.pid)], capture_output=True, text=True
    ).stdout.split()
    with open(f"/proc/{worker}/status") as status:
        return int(next(line for line in status if line.startswith("Threads:")).split()[1])


@pytest.mark.slow
def test_200_streams_on_one_process_while_moves_and_health_checks_answer(server, redis_server):
    games = [new_match(server) for _ in range(20)]
    redis_clients = redis.Redis.from_url(redis_server.url)
    before = len(redis_clients.client_list())  # the test session's own, and the server's so far
    streams = [
        RawStream(server.port, f"/api/matches/{match_id}/stream") for match_id, _ in games for _ in range(10)
    ]
    try:
        assert pump(streams, lambda: all(s.ids() == [1] for s in streams)), [
            s.data[:200] for s in streams if s.ids() != [1]
        ][:3]
        # An open stream holds no thread, and no Redis connection: the process's
        # connections are its pool (at most 64 by default) and the hub's one reader.
        assert _worker_threads(server) < 20
        opened = len(redis_clients.client_list()) - before
        assert opened <= Config().redis_max_connections + 1 < len(streams), opened

        health = []

        def play():
            for i, cell in enumerate(WIN):
                for match_id, tokens in games:
                    mark(server, match_id, tokens[i % 2], cell)
                health.append(http("GET", server.base + "/api/healthz", timeout=10)[0])

        mover = threading.Thread(target=play)
        mover.start()
        done = pump(streams, lambda: all(b"event: end" in s.body for s in streams), timeout=60)
        mover.join(60)
        assert health == [200] * len(WIN)
        assert done, [s.body[-300:] for s in streams if b"event: end" not in s.body][:3]
        assert all(s.ids() == [1, 2, 3, 4, 5, 6] for s in streams)
        # The finished match's stream ends: the server closes every response.
        assert pump(streams, lambda: all(s.closed for s in streams), timeout=10)
    finally:
        for s in streams:
            s.close()


@pytest.mark.slow
def test_last_event_id_resumes_across_a_server_restart(redis_server, tmp_path):
    first = LiveServer(redis_server.url, tmp_path).start()
    try:
        match_id, tokens = new_match(first)
        mark(first, match_id, tokens[0], 0)
        stream = RawStream(first.port, f"/api/matches/{match_id}/stream")
        assert pump([stream], lambda: stream.ids() == [1, 2])
    finally:
        assert first.stop() == 0
    # The stream is cut by the restart; the client comes back with the last id it saw.
    assert pump([stream], lambda: stream.closed, timeout=15)
    stream.close()
    again = LiveServer(redis_server.url, tmp_path, port=first.port).start()
    try:
        resumed = RawStream(again.port, f"/api/matches/{match_id}/stream", {"Last-Event-ID": "2"})
        mark(again, match_id, tokens[1], 4)
        assert pump([resumed], lambda: 3 in resumed.ids(), timeout=10), resumed.data
        assert resumed.ids() == [3]
        resumed.close()
    finally:
        assert again.stop() == 0


@pytest.mark.slow
def test_streams_whose_clients_went_away_free_their_slots_at_once_not_at_the_next_keep_alive(
    redis_server, tmp_path
):
    """A client at its stream cap that drops its streams and reconnects (a page reload, a network
    blip) is served again at once: the slot of a closed connection is not held until a keep-alive
    write fails (15 to 30 s later, with the default keep-alive)."""
    env = {"GAMEROOM_SSE_MAX_STREAMS_PER_CLIENT": "3"}
    with LiveServer(redis_server.url, tmp_path, env=env) as server:
        match_id, _ = new_match(server)
        path = f"/api/matches/{match_id}/stream"
        held = [RawStream(server.port, path) for _ in range(3)]
        assert pump(held, lambda: all(s.ids() == [1] for s in held))
        refused = RawStream(server.port, path)
        assert pump([refused], lambda: refused.closed, timeout=10) and refused.status == 429
        refused.close()
        for stream in held:  # an orderly close (FIN): the server's next write would still succeed
            stream.close()
        # Well inside the first keep-alive (15 s): only a server that noticed the close serves these.
        again = []
        deadline = time.monotonic() + 10
        while len(again) < 3 and time.monotonic() < deadline:
            stream = RawStream(server.port, path)
            assert pump([stream], lambda s=stream: s.status is not None, timeout=10)
            if stream.status == 200:
                again.append(stream)
            else:
                assert stream.status == 429, stream.data
                stream.close()
                time.sleep(0.2)
        try:
            assert len(again) == 3
            assert pump(again, lambda: all(s.ids() == [1] for s in again))
        finally:
            for stream in again:
                stream.close()
        assert "Traceback" not in server.log()
