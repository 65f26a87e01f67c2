"""Redis blipped for 3 s under AI load: the worker process survives and every AI match finishes.

A real redis-server of the test's own (SIGKILLed, restarted on its files 3 s
later), one real ``gameroom worker`` process on the shipped defaults, and
all-AI matches in play while Redis goes away.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gameroom.composition import matches_on
from gameroom.eventstore.embedded import EmbeddedRedis
from gameroom.registry import build_registry
from gameroom.testing.polling import wait_until
from gameroom.workers.scheduler import AIScheduler

GAMEROOM = Path(sys.executable).with_name("gameroom")
QUEUE = "gameroom-ai-blip"
#: Long enough to be in play during the blip: 40 single-stone moves each.
OPTIONS = {"piles": [20, 20], "max_take": 1}
MATCHES = 4


@pytest.mark.slow
def test_a_3s_redis_blip_under_ai_load_leaves_the_worker_alive_and_every_match_finishes(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis").start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
    env.update(GAMEROOM_REDIS_URL=server.url, GAMEROOM_QUEUE=QUEUE)
    log = open(tmp_path / "worker.log", "wb")
    worker = subprocess.Popen(
        [str(GAMEROOM), "worker"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        client = server.client()
        matches = matches_on(client, build_registry())
        matches.after_append.append(AIScheduler(client, QUEUE))
        ids = []
        for i in range(MATCHES):
            loaded, _ = matches.create(
                "nim",
                [{"name": f"A{i}", "ai": "random"}, {"name": f"B{i}", "ai": "greedy"}],
                OPTIONS,
                seed=f"blip-{i}",
            )
            ids.append(loaded.record.id)
        wait_until(lambda: all(matches.store.version(m) >= 3 for m in ids), 60, "every match to be in play")

        server.kill()  # the blip: SIGKILL, then back on the same files 3 s later
        time.sleep(3)
        assert worker.poll() is None, "the worker died with Redis"
        server.start()
        client = server.client()
        matches = matches_on(client, build_registry())

        def finished():
            for m in ids:
                loaded = matches.load(m)
                if matches.game(loaded.record).outcome(loaded.folded.state) is None:
                    return False
            return True

        wait_until(finished, 150, "every AI match to finish")
        assert worker.poll() is None, "the worker quit"
        for m in ids:
            entries = matches.store.read(m)
            assert [e["version"] for e in entries] == list(range(1, len(entries) + 1))
            moves = [e for e in entries if e["kind"] == "move"]
            assert len(moves) == 40  # every stone taken once: no turn played twice, none lost
    finally:
        worker.terminate()
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        log.close()
        server.stop()
    text = (tmp_path / "worker.log").read_text()
    assert "Redis" in text  # it noticed the blip (and lived on)
