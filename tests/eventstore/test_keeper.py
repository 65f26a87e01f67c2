"""The embedded Redis's keeper (gameroom.eventstore.keeper), in this process on a real redis-server:
restarts with a growing wait, and gives up on one that keeps dying young.

``gameroom serve`` with it as a child process: tests/cli/test_serve_supervision.py.
"""

import logging
import os
import signal
import threading

import pytest

from gameroom.eventstore import keeper as keeping
from gameroom.eventstore.embedded import EmbeddedRedis
from gameroom.testing.polling import wait_until


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setattr(keeping, "MIN_BACKOFF", 0.05)
    keeper = keeping.Keeper(EmbeddedRedis(tmp_path / "data"))
    keeper.start_first()
    yield keeper
    keeper.stopping.set()
    keeper.server.__exit__(None, None, None)


def _run(keeper) -> dict:
    outcome: dict = {}

    def run():
        try:
            keeper.run()
        except keeping.GaveUp as exc:
            outcome["gave_up"] = str(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    outcome["thread"] = thread
    return outcome


def _kill(keeper) -> int:
    dead = keeper.server.process.pid
    os.kill(dead, signal.SIGKILL)
    return dead


def _backs(caplog) -> int:
    return len([r for r in caplog.records if "is back" in r.getMessage()])


def test_a_killed_server_comes_back_on_its_data_and_one_that_keeps_dying_is_given_up(kept, caplog):
    caplog.set_level(logging.INFO, logger="gameroom")
    client = kept.server.client()
    client.xadd("s", {"n": 1})
    outcome = _run(kept)
    for round in range(1, keeping.MAX_QUICK_DEATHS):
        _kill(kept)
        wait_until(lambda round=round: _backs(caplog) == round, 30, "the keeper to log it back")
        assert client.xlen("s") == 1  # the same AOF: the acknowledged entry is there
    client.close()
    _kill(kept)
    outcome["thread"].join(30)
    assert "died 5 times in a row" in outcome.get("gave_up", ""), outcome
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    waits = [float(m.rsplit(" in ", 1)[1].rstrip("s")) for m in errors if "exited with signal SIGKILL" in m]
    assert len(waits) == keeping.MAX_QUICK_DEATHS
    assert waits == sorted(waits) and waits[-1] > waits[0]  # a growing wait while it keeps dying
    assert _backs(caplog) == keeping.MAX_QUICK_DEATHS - 1


def test_stopping_a_server_that_already_died_does_not_claim_to_have_stopped_it(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="gameroom")
    server = EmbeddedRedis(tmp_path / "data").start()
    pid = server.process.pid
    os.kill(pid, signal.SIGKILL)
    server.process.wait()
    server.stop()
    messages = [r.getMessage() for r in caplog.records]
    assert f"embedded redis-server (pid {pid}) had already exited (signal SIGKILL)" in messages
    assert f"embedded redis-server stopped (pid {pid})" not in messages
