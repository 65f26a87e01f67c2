"""The AI workers' supervisor: a worker that keeps dying is restarted after a doubling wait."""

import sys

from gameroom.workers import supervisor as sup


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _reap(supervisor):
    for slot in supervisor.slots:
        if slot["proc"] is not None:
            slot["proc"].wait(30)


def test_a_worker_that_keeps_dying_is_restarted_with_a_doubling_wait_and_stopped_on_exit(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(sup.time, "monotonic", clock)
    supervisor = sup.Supervisor([sys.executable, "-c", "raise SystemExit(3)"], count=1)
    supervisor.step()
    first = supervisor.slots[0]["proc"]
    assert first is not None
    waits = []
    for _ in range(4):
        _reap(supervisor)
        clock.now += 1  # it lived a second: it died young
        supervisor.step()  # reaps it and schedules the next start
        slot = supervisor.slots[0]
        assert slot["proc"] is None
        waits.append(slot["due"] - clock.now)
        clock.now = slot["due"] - 0.01
        supervisor.step()
        assert slot["proc"] is None  # not before its time
        clock.now = slot["due"]
        supervisor.step()
        assert slot["proc"] is not None and slot["proc"] is not first
    assert waits == [2 * sup.MIN_BACKOFF, 4 * sup.MIN_BACKOFF, 8 * sup.MIN_BACKOFF, 16 * sup.MIN_BACKOFF]
    _reap(supervisor)
    clock.now += sup.HEALTHY_AFTER + 1  # this one lived long: the wait is back to the minimum
    supervisor.step()
    assert supervisor.slots[0]["due"] - clock.now == sup.MIN_BACKOFF


def test_stop_terminates_live_workers(monkeypatch):
    supervisor = sup.Supervisor([sys.executable, "-c", "import time; time.sleep(60)"], count=2)
    supervisor.step()
    procs = [s["proc"] for s in supervisor.slots]
    supervisor.stopping.set()
    supervisor.stop()
    assert all(p.returncode is not None for p in procs)
    supervisor.step()  # stopping: nothing is started again
    assert [s["proc"] for s in supervisor.slots] == [None, None]
