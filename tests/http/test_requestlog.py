"""Logs say what happened without an access log: server errors and slow requests (default settings)."""

import logging
import time

from gameroom.config import Config
from gameroom.http.requestlog import RequestLog
from gameroom.serving import gunicorn_settings


def _app(status, pause=0.0):
    def app(environ, start_response):
        time.sleep(pause)
        start_response(status, [("Content-Type", "text/plain")])
        return [b"x"]

    return app


def _call(app, path="/api/matches/m/moves", query="token=secret"):
    started = []
    body = app(
        {"REQUEST_METHOD": "POST", "PATH_INFO": path, "QUERY_STRING": query},
        lambda status, headers, exc_info=None: started.append(status),
    )
    return started, b"".join(body)


def test_server_errors_and_slow_requests_are_logged_with_the_default_threshold(caplog):
    slow_ms = Config().slow_request_ms
    caplog.set_level(logging.INFO, logger="gameroom.requests")
    assert _call(RequestLog(_app("201 CREATED"), slow_ms)) == (["201 CREATED"], b"x")
    assert caplog.records == []  # an ordinary request: no line
    _call(RequestLog(_app("500 INTERNAL SERVER ERROR"), slow_ms))
    _call(RequestLog(_app("503 SERVICE UNAVAILABLE"), slow_ms))  # a refusal, logged where decided
    _call(RequestLog(_app("200 OK", pause=slow_ms / 1000 + 0.05), slow_ms))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith("POST /api/matches/m/moves answered 500 in ")
    assert lines[1].startswith("POST /api/matches/m/moves answered 200 in ") and lines[1].endswith("(slow)")
    assert not any("secret" in line or "token=" in line for line in lines)


def test_the_access_log_is_off_by_default_and_can_be_turned_on():
    assert gunicorn_settings(Config(), bind="127.0.0.1:0", workers=1)["accesslog"] is None
    on = Config.from_env({"GAMEROOM_ACCESS_LOG": "1"})
    assert gunicorn_settings(on, bind="127.0.0.1:0", workers=1)["accesslog"] == "-"
