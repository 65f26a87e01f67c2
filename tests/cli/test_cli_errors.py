"""Wrong settings and arguments end a command with one line that says what to do, never a
traceback, and before anything starts (a server that says "serving" and never answers, or
workers that each print a traceback, is worse than a refusal)."""

import pytest
from click.testing import CliRunner

from gameroom.cli import main

CASES = [
    (["games"], {"GAMEROOM_PORT": "abc"}, "GAMEROOM_PORT='abc' is not a whole number"),
    (["games"], {"GAMEROOM_REDIS_WAIT_REPLICAS": "x"}, None),
    (["--log-level", "bogus", "games"], {}, "'bogus' is not one of"),
    (["serve", "--workers", "0"], {}, "0 is not in the range x>=1"),
    (["serve", "--port", "70000"], {}, "70000 is not in the range 1<=x<=65535"),
    (["serve", "--port", "0"], {}, "0 is not in the range 1<=x<=65535"),
    (["serve", "--port", "8299"], {"GAMEROOM_REDIS_URL": "foo://x"}, "GAMEROOM_REDIS_URL is not a Redis URL"),
    (
        ["serve", "--port", "8299"],
        {"GAMEROOM_REDIS_URL": "redis+cluster://h:²"},
        "GAMEROOM_REDIS_URL is not a Redis URL",
    ),
    (["replay", "abc"], {"GAMEROOM_REDIS_URL": "redis://127.0.0.1:1/0"}, "Cannot reach Redis"),
    (
        ["tournament", "--game", "zzz", "--seats", "random,random", "-n", "2"],
        {},
        "No game 'zzz' is installed",
    ),
    (
        ["tournament", "--game", "nim", "--seats", "random,random", "-n", "2", "--options", '{"piles": "x"}'],
        {},
        "Not a valid list",
    ),
]


@pytest.mark.parametrize(
    ("args", "env", "says"), CASES, ids=lambda c: " ".join(c) if isinstance(c, list) else None
)
def test_a_wrong_setting_or_argument_is_one_error_line_not_a_traceback(args, env, says, tmp_path):
    env = {"GAMEROOM_DATA_DIR": str(tmp_path / "var"), **env}
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and "Error:" in result.output
    if says is not None:
        assert says in result.output, result.output
    assert not (tmp_path / "var").exists()  # refused before anything started
