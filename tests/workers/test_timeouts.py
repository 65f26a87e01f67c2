"""Server-enforced clocks on real ``gameroom worker`` processes (RQ's scheduler fires the timeout jobs).

The matches are Nim with both seats human: whoever moves first stays silent.
With ``piles: [1]`` a single move ends the match, so "played by the AI exactly
once" is visible in the whole log.
"""

import functools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rq.registry import ScheduledJobRegistry
from rq.scheduler import RQScheduler
from rq.serializers import JSONSerializer

from gameroom.core import lifecycle
from gameroom.errors import GameroomError
from gameroom.eventstore import keys
from gameroom.testing.polling import wait_until
from gameroom.workers.clock_scheduler import TimeoutScheduler

from .conftest import QUEUE

GAMEROOM = Path(sys.executable).with_name("gameroom")


#: The timeouts' tests wait up to 40 s unless they say otherwise.
_wait = functools.partial(wait_until, timeout=40.0, what="condition")


@pytest.fixture
def clocked(ai_matches):
    """``ai_matches``, which schedules timeouts on the test queue too (as the composition root wires it)."""
    assert any(isinstance(hook, TimeoutScheduler) for hook in ai_matches.after_append)
    return ai_matches


@pytest.fixture
def workers(tmp_path, redis_server):
    """Starter of real ``gameroom worker`` processes (each in its own session, with RQ's scheduler)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
    env.update(GAMEROOM_REDIS_URL=redis_server.url, GAMEROOM_QUEUE=QUEUE, GAMEROOM_LOG_LEVEL="INFO")
    started = []

    def start():
        log = open(tmp_path / f"worker{len(started)}.log", "wb")
        proc = subprocess.Popen(
            [str(GAMEROOM), "worker"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        started.append(proc)
        return proc

    start.logs = lambda: "\n".join(p.read_text() for p in sorted(tmp_path.glob("worker*.log")))
    yield start
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _create(matches, policy, piles=(1,), per_move=2):
    settings = {"clock": {"per_move": per_move, "bank": None, "increment": 0}, "timeout": policy}
    loaded, tokens = matches.create(
        "nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": list(piles)}, settings=settings
    )
    return loaded.record.id, matches.game(loaded.record).active_seats(loaded.folded.state)[0]


def _log(matches, match_id):
    return matches.store.read(match_id)


def _finished(matches, match_id):
    loaded = matches.load(match_id)
    return lifecycle.outcome(matches.game(loaded.record), loaded.folded) is not None


def test_a_seat_silent_for_2_s_is_played_by_the_ai_exactly_once(clocked, workers, settled):
    match_id, silent = _create(clocked, {"action": "ai-turn", "level": "greedy"})
    workers(), workers()  # two workers race for every job
    _wait(lambda: _finished(clocked, match_id), what="the AI to play the silent seat")
    _wait(settled, what="the queue to settle")  # anything else due has run by now
    log = _log(clocked, match_id)
    assert [(e["kind"], e.get("action"), e.get("seat"), e.get("actor")) for e in log] == [
        ("setup", None, None, None),
        ("lifecycle", "timeout", silent, None),
        ("move", None, silent, "ai:greedy"),
    ]
    assert log[1]["time"] >= log[0]["time"] + 2.0  # not before the seat's time ran out
    assert clocked.load(match_id).folded.lifecycle["timeouts"] == 1


def test_a_seat_silent_for_2_s_forfeits_exactly_once_and_the_other_wins(clocked, workers, settled):
    match_id, silent = _create(clocked, {"action": "forfeit", "level": "random"}, piles=(3, 3))
    workers(), workers()
    _wait(lambda: _finished(clocked, match_id), what="the forfeit")
    _wait(settled, what="the queue to settle")  # anything else due has run by now
    log = _log(clocked, match_id)
    assert [(e["kind"], e.get("action"), e.get("seat")) for e in log] == [
        ("setup", None, None),
        ("lifecycle", "timeout", silent),
    ]
    loaded = clocked.load(match_id)
    assert lifecycle.outcome(clocked.game(loaded.record), loaded.folded)["winners"] == [1 - silent]
    assert clocked.records.progress(match_id)[0] == "finished"


def test_a_move_in_time_cancels_the_timeout(clocked, workers, redis_client, settled):
    match_id, first = _create(clocked, {"action": "forfeit", "level": "random"}, piles=(3, 3))
    workers()
    clocked.submit(match_id, first, {"type": "take", "pile": 0, "count": 1})  # well within 2 s
    scheduled = ScheduledJobRegistry(QUEUE, connection=redis_client, serializer=JSONSerializer)
    assert keys.timeout_job_id(match_id, 1, first) not in scheduled.get_job_ids()
    # the other seat now stays silent: its timeout (due after the first seat's would have been) applies
    _wait(lambda: _finished(clocked, match_id), what="the second seat's forfeit")
    _wait(settled, what="the queue to settle")  # anything else due has run by now
    log = _log(clocked, match_id)
    assert [(e["kind"], e.get("action"), e.get("seat")) for e in log] == [
        ("setup", None, None),
        ("move", None, first),
        ("lifecycle", "timeout", 1 - first),
    ]


def test_a_move_sent_after_the_deadline_never_lands_and_exactly_one_timeout_applies(
    clocked, workers, settled
):
    """Real workers on the shipped intervals race the late move: whichever notices the expired clock
    first applies the timeout, the move is refused, and the AI plays the turn."""
    match_id, silent = _create(clocked, {"action": "ai-turn", "level": "greedy"})
    workers()
    due = lifecycle.deadline(clocked.load(match_id).folded.lifecycle, silent)
    _wait(lambda: time.time() >= due, what="the deadline")
    with pytest.raises(GameroomError) as refused:
        clocked.submit(match_id, silent, {"type": "take", "pile": 0, "count": 1})
    # out-of-time: the move applied the timeout; seat-played-by-ai: the timeout job had just done it
    assert refused.value.code in ("out-of-time", "seat-played-by-ai")
    _wait(lambda: _finished(clocked, match_id), what="the AI to play the late seat's turn")
    _wait(settled, what="the queue to settle")  # anything else due has run by now
    log = _log(clocked, match_id)
    assert [(e["kind"], e.get("action"), e.get("seat"), e.get("actor")) for e in log] == [
        ("setup", None, None, None),
        ("lifecycle", "timeout", silent, None),
        ("move", None, silent, "ai:greedy"),
    ]
    assert log[1]["time"] >= due


@pytest.mark.slow
def test_a_worker_killed_before_the_deadline_still_leads_to_exactly_one_timeout(
    clocked, workers, redis_client, settled
):
    doomed = workers()
    lock = RQScheduler.get_locking_key(QUEUE)
    _wait(lambda: redis_client.exists(lock), what="the worker's scheduler to take the lock")
    match_id, silent = _create(clocked, {"action": "ai-turn", "level": "random"}, per_move=3)
    # the host dies: worker, work horse and scheduler process go at once, before the deadline
    os.killpg(doomed.pid, signal.SIGKILL)
    doomed.wait(10)
    assert clocked.store.version(match_id) == 1
    # RQ's scheduler lock of the dead host expires 61 s after its last beat; let that time pass
    redis_client.delete(lock)
    workers()
    _wait(lambda: _finished(clocked, match_id), what="the timeout after the worker died")
    _wait(settled, what="the queue to settle")  # anything else due has run by now
    log = _log(clocked, match_id)
    assert [(e["kind"], e.get("action"), e.get("seat")) for e in log] == [
        ("setup", None, None),
        ("lifecycle", "timeout", silent),
        ("move", None, silent),
    ]


def test_an_idle_worker_wakes_every_maintenance_interval(redis_client):
    from gameroom.workers.worker import MAINTENANCE_INTERVAL, AIWorker

    worker = AIWorker([QUEUE], connection=redis_client)
    assert worker.dequeue_timeout == MAINTENANCE_INTERVAL < 405  # RQ's own: worker_ttl - 15
    assert worker.connection_timeout > worker.dequeue_timeout  # the socket outlives a blocking dequeue


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_surviving_worker_takes_over_the_schedule_of_a_dead_one_and_fires_once(
    clocked, workers, redis_client, settled
):
    """No emulation: the dead host's scheduler lock expires by itself (RQ: 61 s) and the idle
    survivor's maintenance (every 30 s) takes over; the overdue timeout then applies once."""
    doomed = workers()
    lock = RQScheduler.get_locking_key(QUEUE)
    _wait(lambda: redis_client.exists(lock), what="the first worker's scheduler to take the lock")
    survivor = workers()
    match_id, silent = _create(clocked, {"action": "forfeit", "level": "random"}, piles=(3, 3))
    os.killpg(doomed.pid, signal.SIGKILL)
    doomed.wait(10)
    _wait(lambda: _finished(clocked, match_id), timeout=200, what="the survivor to fire the timeout")
    assert survivor.poll() is None
    _wait(settled, what="the queue to settle")  # anything else due has run by now
    log = _log(clocked, match_id)
    assert [(e["kind"], e.get("action"), e.get("seat")) for e in log] == [
        ("setup", None, None),
        ("lifecycle", "timeout", silent),
    ]
    assert log[1]["time"] >= log[0]["time"] + 2.0
