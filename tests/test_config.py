"""Every setting in ``Config`` is read by the server: none is documented and then ignored."""

import re
from dataclasses import fields
from pathlib import Path

import gameroom
from gameroom.config import Config

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
