"""Wrong settings and arguments end a command with one line that says what to do, never a
traceback, and before anything starts (a server that says "serving" and never answers, or
workers that each print a traceback, is worse than a refusal). A setting or an argument that
cannot be used exits 2, as click ends a bad option; a Redis that does not answer exits 1."""

import pytest
from click.testing import CliRunner

from gameroom.cli import main
from gameroom.testing.served import free_port

#: Stands for a port nothing listens on, for the serve cases (refused before it binds; a fixed
#: port could be taken by another server on the machine, which serve refuses first, with another
#: exit code). Chosen when the test runs, so that the test ids are the same in every pytest-xdist
#: process (which must collect the same tests).
PORT = "<free port>"


def _with_port(args: list[str]) -> list[str]:
    return [str(free_port()) if a == PORT else a for a in args]


TOURNAMENT = ["tournament", "--game", "nim", "--seats", "random,random", "-n", "2"]

CASES = [
    (["games"], {"GAMEROOM_PORT": "abc"}, "GAMEROOM_PORT='abc' is not a whole number", 2),
    (["games"], {"GAMEROOM_REDIS_WAIT_REPLICAS": "x"}, None, 2),
    (["--log-level", "bogus", "games"], {}, "'bogus' is not one of", 2),
    (["serve", "--workers", "0"], {}, "0 is not in the range x>=1", 2),
    (["serve", "--port", "70000"], {}, "70000 is not in the range 1<=x<=65535", 2),
    (["serve", "--port", "0"], {}, "0 is not in the range 1<=x<=65535", 2),
    (["serve"], {"GAMEROOM_PORT": "70000"}, "GAMEROOM_PORT='70000' is out of range: use from 1 to 65535", 2),
    (
        ["serve", "--port", PORT],
        {"GAMEROOM_REDIS_URL": "foo://x"},
        "GAMEROOM_REDIS_URL is not a Redis URL",
        2,
    ),
    (
        ["serve", "--port", PORT],
        {"GAMEROOM_REDIS_URL": "redis+cluster://h:²"},
        "GAMEROOM_REDIS_URL is not a Redis URL",
        2,
    ),
    (
        ["serve", "--port", PORT],
        {"GAMEROOM_REDIS_URL": "redis+cluster://127.0.0.1:1"},
        "RQ's queue needs a plain Redis",
        2,
    ),
    (["worker", "--url", "redis+cluster://127.0.0.1:1"], {}, "RQ's queue needs a plain Redis", 2),
    # A numeric setting outside what its use allows, for serve and worker alike.
    (["serve"], {"GAMEROOM_SSE_KEEPALIVE": "0"}, "GAMEROOM_SSE_KEEPALIVE='0' is out of range", 2),
    (  # passed, then every worker died at boot in gevent's pool (OverflowError), in a loop
        ["serve"],
        {"GAMEROOM_SSE_MAX_STREAMS": "99999999999999999999"},
        "GAMEROOM_SSE_MAX_STREAMS='99999999999999999999' is out of range: use from 0 to 1000000",
        2,
    ),
    (
        ["serve"],
        {"GAMEROOM_SSE_MAX_STREAMS": " 10"},
        "GAMEROOM_SSE_MAX_STREAMS=' 10' is not a whole number",
        2,
    ),
    (
        ["serve"],
        {"GAMEROOM_HTTP_KEEPALIVE": "1_000"},
        "GAMEROOM_HTTP_KEEPALIVE='1_000' is not a whole number",
        2,
    ),
    (["serve"], {"GAMEROOM_SSE_MAX_AGE": "3_00"}, "GAMEROOM_SSE_MAX_AGE='3_00' is not a number", 2),
    (
        ["serve"],
        {"GAMEROOM_MAX_BODY": "-1"},
        "GAMEROOM_MAX_BODY='-1' is out of range: use from 1024 to 1073741824",
        2,
    ),
    (["worker"], {"GAMEROOM_REDIS_TIMEOUT": "nan"}, "GAMEROOM_REDIS_TIMEOUT='nan' is out of range", 2),
    (["worker"], {"GAMEROOM_APPEND_RETRIES": "0"}, "GAMEROOM_APPEND_RETRIES='0' is out of range", 2),
    # replay and worker check their Redis URLs as serve does.
    (["replay", "abc"], {"GAMEROOM_REDIS_URL": "foo://x"}, "GAMEROOM_REDIS_URL is not a Redis URL", 2),
    (
        ["replay", "abc"],
        {"GAMEROOM_REDIS_URL": "redis+cluster://"},
        "GAMEROOM_REDIS_URL is not a Redis URL",
        2,
    ),
    (["worker", "--url", "foo://x"], {}, "--url is not a Redis URL", 2),
    (["worker"], {"GAMEROOM_REDIS_URL": "foo://x"}, "GAMEROOM_REDIS_URL is not a Redis URL", 2),
    (
        ["worker"],
        {"GAMEROOM_REDIS_URL": "redis+cluster://", "GAMEROOM_QUEUE_REDIS_URL": "redis://127.0.0.1:1/0"},
        "GAMEROOM_REDIS_URL is not a Redis URL",
        2,
    ),
    (
        ["worker", "--url", "redis://127.0.0.1:1/0", "--queue-url", "bar://x"],
        {},
        "--queue-url is not a Redis URL",
        2,
    ),
    (["replay", "abc"], {"GAMEROOM_REDIS_URL": "redis://127.0.0.1:1/0"}, "Cannot reach Redis", 1),
    (
        ["replay", "abc"],
        {"GAMEROOM_REDIS_URL": "redis+cluster://127.0.0.1:1"},
        "Cannot reach the Redis Cluster",
        1,
    ),
    (
        ["tournament", "--game", "zzz", "--seats", "random,random", "-n", "2"],
        {},
        "No game 'zzz' is installed",
        2,
    ),
    ([*TOURNAMENT, "--options", '{"piles": "x"}'], {}, "Not a valid list", 2),
]


@pytest.mark.parametrize(
    ("args", "env", "says", "code"), CASES, ids=lambda c: " ".join(c) if isinstance(c, list) else None
)
def test_a_wrong_setting_or_argument_is_one_error_line_not_a_traceback(args, env, says, code, tmp_path):
    env = {"GAMEROOM_DATA_DIR": str(tmp_path / "var"), **env}
    result = CliRunner().invoke(main, _with_port(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and result.output.count("Error:") == 1, result.output
    if says is not None:
        assert says in result.output, result.output
    assert result.exit_code == code, result.output
    assert not (tmp_path / "var").exists()  # refused before anything started


def _refused(args, env=None):
    result = CliRunner().invoke(main, _with_port(args), env=env or {})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and result.output.count("Error:") == 1, result.output
    return result


@pytest.mark.parametrize("command", [["serve", "--port", PORT], ["replay", "abc"]])
def test_a_data_folder_that_is_a_file_is_refused_saying_so(command, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    result = _refused(command, {"GAMEROOM_DATA_DIR": str(afile)})
    assert result.exit_code == 2
    assert f"cannot use {afile} as the data folder: it is not a folder" in result.output
    assert afile.read_text() == "not a folder"


def test_a_data_folder_that_cannot_be_created_is_refused_saying_why(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    result = _refused(["serve", "--port", PORT], {"GAMEROOM_DATA_DIR": str(afile / "var")})
    assert result.exit_code == 2
    assert f"cannot create the data folder {afile / 'var'}: Not a directory" in result.output
