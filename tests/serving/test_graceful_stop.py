"""A worker told to stop gracefully (SIGTERM to the server; SIGHUP, a reload, stops the old
workers the same way) ends its live streams and idle connections at once, each stream's response
complete, instead of holding them until its master SIGKILLs it after ``graceful_timeout``."""

import os
import re
import signal

import pytest

from gameroom.testing.live_server import LiveServer

from .sse import RawStream, mark, new_match, pump

#: What a worker held until its master killed it would have left in the log.
KILLED = ("Worker graceful timeout", "SIGKILL", "was sent", "Traceback")


@pytest.mark.slow
def test_sigterm_ends_every_stream_with_a_complete_response_and_closes_idle_connections(
    redis_server, tmp_path
):
    server = LiveServer(redis_server.url, tmp_path).start()  # the shipped settings
    try:
        match_id, _ = new_match(server)
        path = f"/api/matches/{match_id}/stream"
        raw = RawStream(server.port, path)  # HTTP/1.0: the body ends where the connection does
        chunked = RawStream(server.port, path, version="1.1")
        idle = RawStream(server.port, "/api/healthz", version="1.1")  # answered, then kept open
        assert pump([raw, chunked, idle], lambda: raw.ids() == chunked.ids() == [1] and b'"ok"' in idle.body)
        assert not idle.closed
        os.kill(server.proc.pid, signal.SIGTERM)
        assert pump([raw, chunked, idle], lambda: raw.closed and chunked.closed and idle.closed, timeout=30)
        assert server.proc.wait(30) == 0
    finally:
        server.stop()
    assert raw.body.endswith(b"\n\n"), raw.body  # after a whole frame
    assert chunked.body.endswith(b"\r\n0\r\n\r\n"), chunked.body  # the terminating chunk: a complete response
    log = server.log()
    assert not [word for word in KILLED if word in log], log
    assert re.search(
        r"^\S+ \S+ INFO gameroom\.serving: stopping: ended 2 live stream\(s\) and closed 1 idle", log, re.M
    ), log


@pytest.mark.slow
def test_a_reload_ends_the_old_workers_streams_and_they_resume_on_the_new_one_without_a_gap(
    redis_server, tmp_path
):
    with LiveServer(redis_server.url, tmp_path) as server:
        match_id, tokens = new_match(server)
        path = f"/api/matches/{match_id}/stream"
        stream = RawStream(server.port, path, version="1.1")
        mark(server, match_id, tokens[0], 0)
        assert pump([stream], lambda: stream.ids() == [1, 2])
        os.kill(server.proc.pid, signal.SIGHUP)
        assert pump([stream], lambda: stream.closed, timeout=30), stream.body
        assert stream.body.endswith(b"\r\n0\r\n\r\n"), stream.body
        stream.close()
        mark(server, match_id, tokens[1], 4)  # served by the new worker
        resumed = RawStream(server.port, path, {"Last-Event-ID": "2"}, version="1.1")
        mark(server, match_id, tokens[0], 1)
        assert pump([resumed], lambda: resumed.ids() == [3, 4], timeout=10), resumed.body
        resumed.close()
        log = server.log()
        assert not [word for word in KILLED if word in log], log
        assert "stopping: ended 1 live stream(s)" in log, log
