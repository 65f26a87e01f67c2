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
