"""A process whose open-file limit cannot hold the stream cap says so at start and holds fewer
streams: the streams beyond get 503 stream-capacity, and health checks and moves keep their room.
It used to accept streams until its descriptors ran out, then answer nothing, not even a health
check, and log a gevent traceback every second."""

import re

import pytest

from gameroom.testing.live_server import LiveServer, http

from .sse import RawStream, pump


@pytest.mark.slow
def test_streams_beyond_what_the_open_file_limit_holds_are_refused_with_503_and_health_answers(
    redis_server, tmp_path
):
    # the shipped settings (4000 streams per process) under `ulimit -n 300`
    with LiveServer(redis_server.url, tmp_path, open_files=300) as server:
        log = server.log()
        warned = re.search(
            r"^\S+ \S+ WARNING gameroom: the open-file limit \(300\) cannot hold GAMEROOM_SSE_MAX_STREAMS=4000 "
            r"live streams per process .*\((\d+) needed\): each worker holds at most (\d+) streams .*"
            r"raise `ulimit -n` .* or lower GAMEROOM_SSE_MAX_STREAMS$",
            log,
            re.M,
        )
        assert warned, log
        needed, cap = int(warned[1]), int(warned[2])
        assert needed > 4000 and 0 < cap < 300
        status, created = http(
            "POST",
            server.base + "/api/matches",
            {"game": "tic-tac-toe", "seats": [{"name": "X"}, {"name": "O"}]},
        )
        assert status == 201, created
        path = f"/api/matches/{created['match']['id']}/stream"
        streams = [RawStream(server.port, path) for _ in range(300)]  # more than the process has descriptors
        try:
            assert pump(streams, lambda: all(s.status is not None for s in streams), timeout=60), [
                s.data[:100] for s in streams if s.status is None
            ][:3]
            statuses = sorted(s.status for s in streams)
            assert statuses == [200] * cap + [503] * (300 - cap), statuses
            refused = next(s for s in streams if s.status == 503)
            assert pump([refused], lambda: refused.closed)
            assert b"Retry-After: 5" in refused.data and b"stream-capacity" in refused.body, refused.data
            assert http("GET", server.base + "/api/healthz", timeout=10)[0] == 200
        finally:
            for stream in streams:
                stream.close()
        assert "Traceback" not in server.log() and "Too many open files" not in server.log()
