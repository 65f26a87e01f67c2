"""Keep N ``gameroom worker`` processes alive: restart a dead one with backoff, stop them all on exit.

``gameroom serve`` runs this as a child process (not as a thread of its own:
gunicorn's arbiter reaps every child of its process, which would hide the
workers' exits from a supervisor living there). The chain dies as a whole:

- the supervisor asks Linux to SIGTERM it when ``serve`` dies, even by
  SIGKILL (``PR_SET_PDEATHSIG``), and each worker the same of the supervisor;
- on SIGTERM or SIGINT the supervisor stops restarting, sends SIGTERM to its
  workers (RQ's warm shutdown: the current job finishes), waits up to
  :data:`STOP_TIMEOUT` seconds, then SIGKILLs what is left, and exits.

A worker that exits by itself is started again after a wait that doubles from
:data:`MIN_BACKOFF` to :data:`MAX_BACKOFF` seconds while it keeps dying young,
and is back to the minimum once a worker lived :data:`HEALTHY_AFTER` seconds.
Every start and every exit is logged.

Run it with ``python -m gameroom.workers.supervisor --count N [worker options]``.
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time

log = logging.getLogger("gameroom.supervisor")

MIN_BACKOFF, MAX_BACKOFF = 0.5, 30.0
HEALTHY_AFTER = 30.0
STOP_TIMEOUT = 20.0
_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGTERM):
    """A ``preexec_fn``: the child gets ``sig`` when the process that started it dies (even by SIGKILL).

    If the parent is already gone when the child gets here (the signal would
    then never come), the child sends it to itself.
    """
    parent = os.getpid()

    def preexec():  # pragma: no cover - runs in the child before exec
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, sig)
        except OSError:
            pass
        if os.getppid() != parent:
            os.kill(os.getpid(), sig)

    return preexec


class Supervisor:
    def __init__(self, command: list[str], count: int, env: dict | None = None):
        self.command, self.count, self.env = command, count, env
        self.stopping = threading.Event()
        self.slots: list[dict] = [{"proc": None, "backoff": MIN_BACKOFF, "due": 0.0} for _ in range(count)]

    def _start(self, slot: dict) -> None:
        # Its own process group: Ctrl-C in a terminal reaches the supervisor, which stops it once.
        proc = subprocess.Popen(
            self.command, env=self.env, preexec_fn=die_with_parent(signal.SIGTERM), process_group=0
        )
        slot.update(proc=proc, started=time.monotonic())
        log.info("started AI worker pid %d", proc.pid)

    def step(self) -> None:
        """Reap exited workers and start the ones whose backoff is over."""
        now = time.monotonic()
        for slot in self.slots:
            proc = slot["proc"]
            if proc is not None and proc.poll() is not None and self.stopping.is_set():
                slot["proc"] = None
                continue
            if proc is not None and proc.poll() is not None:
                lived = now - slot["started"]
                slot["backoff"] = (
                    MIN_BACKOFF if lived >= HEALTHY_AFTER else min(2 * slot["backoff"], MAX_BACKOFF)
                )
                slot.update(proc=None, due=now + slot["backoff"])
                log.error(
                    "AI worker pid %d exited with %s after %.1fs; starting another in %.1fs",
                    proc.pid,
                    proc.returncode,
                    lived,
                    slot["backoff"],
                )
            if slot["proc"] is None and now >= slot["due"] and not self.stopping.is_set():
                self._start(slot)

    def run(self) -> None:
        while not self.stopping.is_set():
            self.step()
            self.stopping.wait(0.2)
        self.stop()

    def stop(self) -> None:
        procs = [s["proc"] for s in self.slots if s["proc"] is not None and s["proc"].poll() is None]
        for proc in procs:
            proc.terminate()
        deadline = time.monotonic() + STOP_TIMEOUT
        for proc in procs:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("AI worker pid %d did not stop in %ss; killing it", proc.pid, STOP_TIMEOUT)
                proc.kill()
                proc.wait()
        log.info("AI workers stopped")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description="Keep N gameroom AI workers running (used by `gameroom serve`)."
    )
    parser.add_argument("--count", type=int, default=1, help="worker processes to keep alive")
    args, worker_args = parser.parse_known_args(argv)
    logging.basicConfig(
        level=os.environ.get("GAMEROOM_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    supervisor = Supervisor([sys.executable, "-m", "gameroom.cli", "worker", *worker_args], args.count)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: supervisor.stopping.set())
    supervisor.run()


if __name__ == "__main__":
    main()
