"""The serving settings: one source for `gameroom serve` and deploy/gunicorn.conf.py."""

import runpy
from pathlib import Path

from gameroom.config import Config
from gameroom.serving import gunicorn_settings

DEPLOY_CONF = Path(__file__).resolve().parents[1] / "deploy" / "gunicorn.conf.py"


def test_streams_are_served_by_gevent_workers_with_room_for_the_stream_cap_and_short_requests():
    config = Config()
    settings = gunicorn_settings(config, bind="127.0.0.1:0", workers=1)
    assert settings["worker_class"] == "gameroom.http.worker.GeventWorker"
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


def test_the_shipped_gunicorn_command_boots_quietly(redis_server, tmp_path):
    """`gunicorn -c deploy/gunicorn.conf.py gameroom.wsgi:app` (the Containerfile's, the systemd
    unit's, compose's and k8s's command) answers, and its boot log holds no warning: not gevent's
    late ssl patch (``gameroom serve`` silenced it, this config did not), nor a control socket
    in $HOME (shared by every gunicorn on the host; absent for a container's user)."""
    import os
    import subprocess
    import sys
    import time
    import urllib.request

    from gameroom.testing.live_server import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
    env.update(
        GAMEROOM_REDIS_URL=redis_server.url,
        GAMEROOM_BIND=f"127.0.0.1:{port}",
        GAMEROOM_WEB_WORKERS="1",
        HOME=str(tmp_path),
    )
    gunicorn = Path(sys.executable).with_name("gunicorn")
    log = tmp_path / "gunicorn.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(gunicorn), "-c", str(DEPLOY_CONF), "gameroom.wsgi:app"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=DEPLOY_CONF.parents[1],
        )
    try:
        deadline, status = time.monotonic() + 60, None
        while time.monotonic() < deadline and status is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/healthz", timeout=5) as r:
                    status = r.status
            except OSError:
                time.sleep(0.2)
        assert status == 200, log.read_text()
    finally:
        proc.terminate()
        proc.wait(30)
    text = log.read_text()
    assert "Warning" not in text and "WARNING" not in text, text
    assert not (tmp_path / ".gunicorn").exists()


def test_the_stream_cap_is_kept_where_the_open_file_limit_holds_it_and_lowered_where_not():
    from gameroom.serving import SHORT_REQUEST_HEADROOM, connection_budget, open_files_warning

    config = Config()  # 4000 streams, 64 Redis connections
    assert connection_budget(config, 65536) == (4000, SHORT_REQUEST_HEADROOM)
    assert open_files_warning(config, 65536) is None
    streams, short = connection_budget(config, 300)  # `ulimit -n 300`
    assert 0 < short < streams and streams + short + config.redis_max_connections < 300
    warning = open_files_warning(config, 300)
    assert warning is not None and f"at most {streams} streams" in warning and "ulimit -n" in warning
    no_cap = Config(sse_max_streams=0)  # no cap of its own: as many as the descriptors hold
    assert connection_budget(no_cap, 300) == (streams, short) and open_files_warning(no_cap, 300) is None
