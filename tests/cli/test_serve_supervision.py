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
