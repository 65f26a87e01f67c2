"""The serving settings: one source for `gameroom serve` and deploy/gunicorn.conf.py."""

import runpy
from pathlib import Path

from gameroom.config import Config
from gameroom.serving import gunicorn_settings

DEPLOY_CONF = Path(__file__).resolve().parents[1] / "deploy" / "gunicorn.conf.py"


def test_streams_are_served_by_gevent_workers_with_room_for_the_stream_cap_and_short_requests():
    config = Config()
    settings = gunicorn_settings(config, bind="127.0.0.1:0", workers=1)
    assert settings["worker_class"] == "gameroom.serving.GeventWorker"
    assert settings["worker_connections"] > config.sse_max_streams
    assert settings["keepalive"] == config.http_keepalive
    assert "%(U)s" in settings["access_log_format"] and "%(r)s" not in settings["access_log_format"]
    assert "%(q)s" not in settings["access_log_format"]  # ?token= never reaches a log


def test_deploy_config_is_the_same_as_gameroom_serve(monkeypatch):
    monkeypatch.setenv("GAMEROOM_BIND", "127.0.0.1:9999")
    monkeypatch.setenv("GAMEROOM_WEB_WORKERS", "3")
    monkeypatch.setenv("GAMEROOM_SSE_MAX_STREAMS", "123")
    deployed = runpy.run_path(str(DEPLOY_CONF))
    expected = gunicorn_settings(Config.from_env(), bind="127.0.0.1:9999", workers=3)
    for name, value in expected.items():
        assert deployed[name] == value, name
    assert deployed["worker_connections"] == 123 + 1000
