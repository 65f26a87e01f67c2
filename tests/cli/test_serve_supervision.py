"""`gameroom serve` under faults: its AI workers supervised, no orphans, refusals that exit non-zero.

Real processes throughout: ``gameroom serve`` with its embedded redis-server,
its supervisor and its RQ workers, on the shipped defaults.
"""

import functools
import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from gameroom.testing.polling import wait_until
from gameroom.testing.served import GAMEROOM, Served, free_port, http_json

from .test_serve_process import _alive


def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _live(pid: int) -> bool:
    if not _alive(pid):
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


#: A process's life is polled every 0.1 s here.
_wait_slowly = functools.partial(wait_until, interval=0.1)


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def _workers(serve_pid: int) -> list[int]:
    """The live AI workers: children of the supervisor (not what they fork, which has the same command line)."""
    return sorted(
        p
        for p in _children(serve_pid)
        if "gameroom.cli worker" in _cmdline(p)
        and "gameroom.workers.supervisor" in _cmdline(_parent(p))
        and _live(p)
    )


def _run_serve(cwd, *args, timeout=60):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
    return subprocess.run(
        [str(GAMEROOM), "serve", "--workers", "1", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_a_dead_ai_worker_is_restarted_and_all_die_with_a_sigkilled_serve(tmp_path):
    server = Served(tmp_path, workers=1).start()
    try:
        worker = _wait_slowly(lambda: _workers(server.proc.pid), 30, "the AI worker")[0]
        scheduler = _wait_slowly(lambda: _children(worker), 30, "the worker's RQ scheduler process")
        os.kill(worker, signal.SIGKILL)  # e.g. the OOM killer
        replacement = _wait_slowly(
            lambda: [w for w in _workers(server.proc.pid) if w != worker], 30, "a new AI worker"
        )[0]
        assert not _live(worker) and _live(replacement)
        # What the killed worker had forked (RQ's scheduler never checks its parent) goes with it.
        _wait_slowly(
            lambda: not [p for p in scheduler if _live(p)], 20, "the killed worker's children to exit"
        )
        family = _children(server.proc.pid)
        redis_pid = int((tmp_path / "var" / "redis.pid").read_text())
        assert redis_pid in family and replacement in family
    finally:
        family = _children(server.proc.pid)
        server.proc.kill()  # SIGKILL: no cleanup code of serve runs
        server.proc.wait(10)
        server.stop()  # closes its log
    assert family, "serve had no child processes"
    _wait_slowly(
        lambda: not [p for p in family if _live(p)], 40, "every process of the killed server to exit"
    )
    # The next server on the same folder starts (the lock died with the old one) and has the data.
    again = Served(tmp_path, workers=1).start()
    assert again.stop() == 0


@pytest.mark.slow
def test_a_second_serve_on_the_same_data_folder_is_refused(tmp_path):
    first = Served(tmp_path, workers=1).start()
    try:
        second = _run_serve(tmp_path, "--port", str(free_port()))
        assert second.returncode != 0
        assert "Another gameroom server" in second.stderr and "data folder" in second.stderr, second.stderr
        assert f"pid {first.proc.pid}" in second.stderr
        assert "Traceback" not in second.stderr
        # The first one still serves, on its own Redis.
        assert http_json("GET", first.base + "/api/readyz")[0] == 200
    finally:
        assert first.stop() == 0


def test_serve_on_a_busy_port_exits_non_zero_and_starts_nothing(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run_serve(tmp_path, "--port", str(port))
    assert result.returncode != 0
    assert f"Cannot listen on 127.0.0.1:{port}" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "var" / "redis.pid").exists(), "it started Redis before checking the port"


#: A line of serve's log format, with its time: ``2026-01-01 12:00:00,123 LEVEL logger: message``.
_STAMP = r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "


def _move(base: str, match_id: str, tokens: dict) -> tuple[int, dict]:
    """One legal move of the seat whose turn it is."""
    _, match = http_json("GET", f"{base}/api/matches/{match_id}")
    token = tokens[str(match["active_seats"][0])]
    _, legal = http_json("GET", f"{base}/api/matches/{match_id}/legal-moves", token=token)
    return http_json("POST", f"{base}/api/matches/{match_id}/moves", {"move": legal["moves"][0]}, token=token)


def _answers(call):
    """``call()``'s result, or None while the server answers an error (503 while Redis is away)."""
    try:
        return call()
    except OSError:  # urllib's HTTPError and URLError are OSErrors
        return None


@pytest.mark.slow
def test_a_killed_embedded_redis_is_restarted_and_no_acknowledged_entry_is_lost(tmp_path):
    import re

    server = Served(tmp_path).start()  # the shipped defaults: 2 HTTP workers, 1 AI worker
    try:
        _, created = http_json(
            "POST", server.base + "/api/matches", {"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]}
        )
        match_id, tokens = created["match"]["id"], created["tokens"]
        for _ in range(3):
            assert _move(server.base, match_id, tokens)[0] == 201
        _, before = http_json("GET", f"{server.base}/api/matches/{match_id}/events?limit=500")
        assert before["version"] == 4
        dead = int((tmp_path / "var" / "redis.pid").read_text())
        assert dead in _children(server.proc.pid)
        os.kill(dead, signal.SIGKILL)  # e.g. the OOM killer

        # A move lands again, with no restart of serve, on the same data: the next version.
        status, moved = _wait_slowly(
            lambda: _answers(lambda: _move(server.base, match_id, tokens)), 60, "a move to land"
        )
        assert status == 201 and moved["state"]["version"] == 5
        status, again = _wait_slowly(
            lambda: _answers(
                lambda: http_json(
                    "POST", server.base + "/api/matches", {"game": "nim", "seats": [{"name": "C"}, None]}
                )
            ),
            30,
            "a match to be created",
        )
        assert status == 201
        _, after = http_json("GET", f"{server.base}/api/matches/{match_id}/events?limit=500")
        assert after["entries"][:4] == before["entries"] and after["version"] == 5
        assert http_json("GET", server.base + "/api/readyz")[0] == 200
        alive = int((tmp_path / "var" / "redis.pid").read_text())
        assert alive != dead and _live(alive) and alive in _children(server.proc.pid)
    finally:
        code = server.stop()
    log = server.log()
    assert code == 0, log
    lines = log.splitlines()
    assert [
        line
        for line in lines
        if re.match(
            _STAMP + rf"ERROR [\w.]+: embedded redis-server \(pid {dead}\) exited with signal SIGKILL", line
        )
    ], log
    assert [
        line
        for line in lines
        if re.match(_STAMP + rf"INFO [\w.]+: embedded redis-server is back \(pid {alive}\)", line)
    ], log
    # At shutdown the live one is stopped, and the dead one is not claimed to have been.
    assert f"embedded redis-server stopped (pid {alive})" in log, log
    assert f"embedded redis-server stopped (pid {dead})" not in log, log
    _wait_slowly(lambda: not _live(alive), 20, "the restarted redis-server to stop with serve")


@pytest.mark.slow
def test_serve_exits_non_zero_when_its_embedded_redis_cannot_be_started_again(tmp_path):
    server = Served(tmp_path, workers=1, ai_workers=0).start()
    try:
        http_json("POST", server.base + "/api/matches", {"game": "nim", "seats": [{"name": "A"}, None]})
        var = tmp_path / "var"
        family = _children(server.proc.pid)
        for name in ("appendonly.aof", "appendonlydir"):  # an operator's mistake, a disk gone
            path = var / name
            if path.is_dir():
                import shutil

                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
        os.kill(int((var / "redis.pid").read_text()), signal.SIGKILL)
        server.proc.wait(60)  # it stops by itself, rather than serve an empty Redis or 503s for ever
    finally:
        code = server.stop()
    log = server.log()
    assert code == 1, log
    assert "append-only file in" in log and "is gone" in log, log
    assert "Error: The embedded Redis could not be kept running" in log, log
    assert "Traceback" not in log, log
    _wait_slowly(lambda: not [p for p in family if _live(p)], 20, "every process of the server to exit")
