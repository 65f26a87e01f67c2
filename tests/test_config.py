"""Every setting in ``Config`` is read by the server: none is documented and then ignored."""

import math
import os
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

import gameroom
from gameroom.config import RANGES, Config, ConfigError

SOURCE = Path(gameroom.__file__).parent


def test_every_setting_is_read_somewhere_outside_the_config_module():
    code = "\n".join(p.read_text() for p in SOURCE.rglob("*.py") if p.name != "config.py")
    unread = [
        f.name
        for f in fields(Config)
        if not re.search(rf"(config|cfg|settings)\.{f.name}\b|[\"']{f.name}[\"']", code)
    ]
    assert unread == []


def test_a_setting_comes_from_its_environment_variable():
    config = Config.from_env({"GAMEROOM_PORT": "8123", "GAMEROOM_SSE_KEEPALIVE": "7.5"})
    assert (config.port, config.sse_keepalive) == (8123, 7.5)


ROOT = Path(__file__).resolve().parents[1]
DOCUMENTED = [ROOT / "README.md", *sorted(p for p in (ROOT / "deploy").iterdir() if p.is_file())]


def _read_directly() -> set[str]:
    """GAMEROOM_* names read from the environment by name outside ``Config`` (deploy/gunicorn.conf.py's
    bind and workers, the browser tests' Chromium)."""
    code = "\n".join(
        p.read_text()
        for p in [*SOURCE.rglob("*.py"), *(ROOT / "deploy").glob("*.py")]
        if p.name != "config.py"
    )
    return set(re.findall(r"environ(?:\.get\(|\[)[\"'](GAMEROOM_[A-Z0-9_]+)[\"']", code))


def test_every_setting_named_in_the_deploy_docs_and_readme_exists():
    settings = {f"GAMEROOM_{f.name.upper()}" for f in fields(Config)}
    direct = _read_directly()
    named = {
        (path.name, name)
        for path in DOCUMENTED
        for name in re.findall(r"GAMEROOM_[A-Z0-9_]*[A-Z0-9]", path.read_text(errors="replace"))
    }
    assert ("README.md", "GAMEROOM_REDIS_URL") in named  # the scan finds names at all
    assert ("redis.md", "GAMEROOM_QUEUE_REDIS_URL") in named
    unknown = sorted((file, name) for file, name in named if name not in settings | direct)
    assert unknown == []


def test_the_queue_redis_defaults_to_the_events_redis():
    assert Config.from_env({"GAMEROOM_REDIS_URL": "redis://events:6379/0"}).queue_redis_url == ""
    config = Config.from_env({"GAMEROOM_QUEUE_REDIS_URL": "redis://queue:6379/0"})
    assert config.queue_redis_url == "redis://queue:6379/0"


def test_every_numeric_setting_has_a_range():
    numeric = {f.name for f in fields(Config) if f.type in ("int", "float")}
    assert numeric and numeric == set(RANGES)
    defaults = Config()
    for name, (low, high, _unit) in RANGES.items():  # the shipped defaults are in range
        assert low <= getattr(defaults, name) <= (high if high is not None else math.inf), name


@pytest.mark.parametrize(
    ("name", "raw", "says"),
    [
        ("GAMEROOM_SSE_KEEPALIVE", "0", "use from 0.1 to 3600 (seconds)"),  # a busy loop of keep-alive frames
        ("GAMEROOM_MAX_BODY", "-1", "use from 1024 to 1073741824 (bytes)"),  # every POST refused with 413
        ("GAMEROOM_PORT", "0", "use from 1 to 65535 (a TCP port)"),
        ("GAMEROOM_HTTP_KEEPALIVE", "0", "use from 1 to 86400 (seconds)"),  # 0: idle connections never closed
        ("GAMEROOM_REDIS_WAIT_TIMEOUT_MS", "0", "use from 1 to 3600000 (milliseconds; 0 would wait forever)"),
        ("GAMEROOM_APPEND_RETRIES", "0", "use from 1 to 1000 (attempts)"),  # no append would ever be tried
        ("GAMEROOM_SSE_MAX_STREAMS", "-1", "use from 0 to 1000000 (streams; 0: no cap)"),
        ("GAMEROOM_REDIS_TIMEOUT", "inf", "use from 0.01 to 3600 (seconds)"),
        ("GAMEROOM_SSE_MAX_AGE", "nan", "use from 1 to 86400 (seconds)"),
        (
            "GAMEROOM_TRUSTED_PROXIES",
            "-1",
            "use from 0 to 10 (proxies in front of the API; 0: X-Forwarded-For is ignored)",
        ),
    ],
)
def test_a_numeric_setting_out_of_its_range_is_refused_naming_the_variable_and_the_range(name, raw, says):
    with pytest.raises(ConfigError) as refused:
        Config.from_env({name: raw})
    assert str(refused.value) == f"{name}={raw!r} is out of range: {says}."


def test_every_numeric_setting_has_a_highest_value():
    """A number far beyond any install's needs is refused at start, not where it is used."""
    assert [name for name, (_low, high, _unit) in RANGES.items() if high is None] == []
    with pytest.raises(ConfigError, match="is out of range: use from 0 to 1000000 "):
        Config.from_env({"GAMEROOM_SSE_MAX_STREAMS": "99999999999999999999"})


@pytest.mark.parametrize("raw", [" 10", "10 ", "1_000", "+10", "１０", "1e3", "10.0", "0x10", ""])
def test_a_whole_number_setting_is_ascii_digits_only(raw):
    with pytest.raises(
        ConfigError, match=re.escape(f"GAMEROOM_SSE_MAX_STREAMS={raw!r} is not a whole number.")
    ):
        Config.from_env({"GAMEROOM_SSE_MAX_STREAMS": raw})


@pytest.mark.parametrize("raw", [" 1.5", "1_5", "+1.5", "１.5", ""])
def test_a_number_setting_is_written_plainly(raw):
    with pytest.raises(ConfigError, match=re.escape(f"GAMEROOM_SSE_MAX_AGE={raw!r} is not a number.")):
        Config.from_env({"GAMEROOM_SSE_MAX_AGE": raw})


def test_plain_numbers_are_read():
    config = Config.from_env(
        {"GAMEROOM_SSE_MAX_STREAMS": "010", "GAMEROOM_SSE_MAX_AGE": "2.5", "GAMEROOM_SSE_KEEPALIVE": "1e1"}
    )
    assert (config.sse_max_streams, config.sse_max_age, config.sse_keepalive) == (10, 2.5, 10.0)


def test_the_bounds_of_a_range_are_allowed():
    config = Config.from_env(
        {"GAMEROOM_SSE_KEEPALIVE": "0.1", "GAMEROOM_SSE_MAX_STREAMS": "0", "GAMEROOM_PORT": "65535"}
    )
    assert (config.sse_keepalive, config.sse_max_streams, config.port) == (0.1, 0, 65535)


@pytest.mark.parametrize(
    ("env", "says"),
    [
        (
            {"GAMEROOM_SSE_KEEPALIVE": "0"},
            "Error: GAMEROOM_SSE_KEEPALIVE='0' is out of range: use from 0.1 to 3600",
        ),
        ({"GAMEROOM_PORT": "abc"}, "Error: GAMEROOM_PORT='abc' is not a whole number."),
        ({"GAMEROOM_WEB_WORKERS": "x"}, "Error: GAMEROOM_WEB_WORKERS='x' is not a number of processes"),
        ({"GAMEROOM_WEB_WORKERS": " 2"}, "Error: GAMEROOM_WEB_WORKERS=' 2' is not a number of processes"),
        (
            {"GAMEROOM_SSE_MAX_STREAMS": "99999999999999999999"},
            "Error: GAMEROOM_SSE_MAX_STREAMS='99999999999999999999' is out of range",
        ),
        ({"GAMEROOM_REDIS_URL": "ftp://x"}, "Error: GAMEROOM_REDIS_URL is not a Redis URL"),
        (
            {"GAMEROOM_REDIS_URL": "redis+cluster://127.0.0.1:7301"},
            "Error: RQ's queue needs a plain Redis, not a cluster",
        ),
        ({"GAMEROOM_LOG_LEVEL": "LOUD"}, "Error: GAMEROOM_LOG_LEVEL='LOUD' is not one of"),
    ],
)
def test_gunicorn_with_the_deploy_config_refuses_a_bad_setting_with_one_line(env, says, tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            str(ROOT / "deploy" / "gunicorn.conf.py"),
            "gameroom.wsgi:app",
        ],
        env={**os.environ, "GAMEROOM_DATA_DIR": str(tmp_path / "var"), "GAMEROOM_BIND": "127.0.0.1:1", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(says) and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "var").exists()


@pytest.mark.parametrize(
    ("name", "raw"),
    [("GAMEROOM_AI_MODE", "RQ"), ("GAMEROOM_AI_MODE", "on"), ("GAMEROOM_REDIS_APPENDFSYNC", "sometimes")],
)
def test_a_setting_of_a_few_words_takes_only_those(name, raw):
    """A typo must not turn the AI off (anything but "rq" did) or fail later, in the embedded Redis."""
    with pytest.raises(ConfigError, match=f"{name}='{raw}' is not one of"):
        Config.from_env({name: raw})


def test_the_words_a_setting_takes_are_accepted_and_log_levels_in_any_case():
    config = Config.from_env(
        {"GAMEROOM_AI_MODE": "off", "GAMEROOM_REDIS_APPENDFSYNC": "everysec", "GAMEROOM_LOG_LEVEL": "debug"}
    )
    assert (config.ai_mode, config.redis_appendfsync, config.log_level) == ("off", "everysec", "debug")
