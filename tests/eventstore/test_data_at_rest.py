"""The embedded Redis's data folder (AOF with every seed and full state) is the owner's only.

Real redis-servers, started the way ``gameroom serve`` starts its own.
"""

import os
import stat

import pytest

from gameroom.eventstore.embedded import EmbeddedRedis, EmbeddedRedisError


def _modes(root):
    """``{relative path: permission bits}`` of the folder and everything in it."""
    found = {".": stat.S_IMODE(os.stat(root).st_mode)}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = stat.S_IMODE(os.lstat(path).st_mode)
    return found


def _write_a_secret(server):
    client = server.client()
    client.hset("gameroom:{m}:meta", "record", '{"seed": "do-not-show"}')
    client.close()


def test_data_folder_aof_log_and_pidfile_are_unreadable_by_group_and_others(tmp_path):
    old = os.umask(0o022)  # a permissive umask in the parent must not leak into the data files
    try:
        server = EmbeddedRedis(tmp_path / "data")
        with server:
            _write_a_secret(server)
            modes = _modes(server.data_dir)
    finally:
        os.umask(old)
    assert modes["."] == 0o700
    assert any("appendonly" in p for p in modes), modes  # the AOF was written
    assert "redis.log" in modes and "redis.pid" in modes
    wide = {p: oct(m) for p, m in modes.items() if m & 0o077 and not p.endswith(".sock")}
    assert wide == {}, wide


def test_data_folder_left_readable_by_an_older_version_is_made_owner_only_and_keeps_its_data(tmp_path):
    data = tmp_path / "data"
    with EmbeddedRedis(data) as server:
        _write_a_secret(server)
    for folder, _dirs, files in os.walk(data):  # as an older gameroom (umask 022) left it
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    with EmbeddedRedis(data) as server:
        client = server.client()
        assert client.hget("gameroom:{m}:meta", "record") == b'{"seed": "do-not-show"}'
        client.close()
        modes = _modes(server.data_dir)
    assert modes["."] == 0o700
    wide = {p: oct(m) for p, m in modes.items() if m & 0o077 and not p.endswith(".sock")}
    assert wide == {}, wide


def test_shared_sticky_folder_is_refused_as_data_folder_and_left_unchanged(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # like /tmp: making it private would break everyone else
    with pytest.raises(EmbeddedRedisError, match="shared folder"):
        EmbeddedRedis(shared).start()
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o1777
    assert list(shared.iterdir()) == []
