"""Keep the embedded redis-server of ``gameroom serve`` running, or end the server clearly.

The redis-server is not a child of ``serve`` itself but of this small
process (``python -m gameroom.eventstore.keeper DATA_DIR``), which ``serve``
starts and stops (:class:`Kept`). ``serve`` becomes gunicorn's arbiter, which
reaps every child of its process: the exit of a redis-server living there
would be reaped by gunicorn, unseen and with its status lost (so it was
neither logged nor restarted, and at shutdown "stopped" was logged for a
process long dead). The AI workers have their supervisor for the same reason
(:mod:`gameroom.workers.supervisor`).

The keeper starts the server (waiting up to :data:`PREVIOUS_WAIT` seconds for
the Redis of a server that just died in the same folder to go), tells
``serve`` on its stdout (one JSON line: ``{"url": ...}`` or ``{"error": ...}``),
then watches it. A redis-server that exits is logged as an error with its exit
status and started again on the same folder, AOF and socket (every
acknowledged append is fsynced, so nothing acknowledged is lost), after a wait
that doubles from :data:`MIN_BACKOFF` to :data:`MAX_BACKOFF` seconds while it
keeps dying young; it is logged when it answers again. Meanwhile the API
answers 503 ``redis-unavailable`` and recovers by itself once the socket
answers.

It gives up, logs why and exits 1 when the server cannot be kept: it died
:data:`MAX_QUICK_DEATHS` times in a row within :data:`HEALTHY_AFTER` seconds
of its start (or could not be started that often), or its data folder or
append-only file is gone (starting afresh would serve an empty Redis as if
the matches had never been). ``serve`` sees its stdout close, stops and
exits non-zero, so that a process manager restarts everything.

On SIGTERM it stops the server (a clean shutdown: the AOF is fsynced) and
exits 0; it gets SIGTERM too when ``serve`` dies, even by SIGKILL.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from .embedded import EmbeddedRedis, EmbeddedRedisError, exit_status

log = logging.getLogger("gameroom.eventstore.keeper")  # not __main__: it runs with -m

MIN_BACKOFF, MAX_BACKOFF = 0.5, 10.0
#: A redis-server that lived this long was healthy: its next death starts the count again.
HEALTHY_AFTER = 30.0
#: Deaths in a row, each within HEALTHY_AFTER of its start, after which the keeper gives up.
MAX_QUICK_DEATHS = 5
#: Seconds the first start waits for the Redis of a server that just died in the same folder.
PREVIOUS_WAIT = 15.0


class GaveUp(Exception):
    """The embedded Redis cannot be kept running; the message says why."""


def _aof_exists(data_dir: Path) -> bool:
    return (data_dir / "appendonlydir").exists() or (data_dir / "appendonly.aof").exists()


class Keeper:
    """Start :attr:`server`, and start it again whenever it exits, until :meth:`run` is stopped."""

    def __init__(self, server: EmbeddedRedis):
        self.server = server
        self.stopping = threading.Event()
        self.backoff = MIN_BACKOFF
        self.quick_deaths = 0
        self.had_aof = False
        self.started = 0.0

    def start_first(self) -> None:
        """The first start; :class:`EmbeddedRedisError` if it fails (another server's Redis still
        running in the folder after :data:`PREVIOUS_WAIT` seconds, a binary that exits at once)."""
        deadline = time.monotonic() + PREVIOUS_WAIT
        while True:
            try:
                self.server.start()
                break
            except EmbeddedRedisError as exc:
                if "already running" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)  # the Redis of a server that just died is shutting down
        self.started = time.monotonic()
        self.had_aof = _aof_exists(self.server.data_dir)

    def run(self) -> None:
        """Watch the server until stopped; :class:`GaveUp` when it cannot be kept running."""
        while not self.stopping.wait(0.1):
            proc = self.server.process
            if proc is not None and proc.poll() is not None:
                self._restart(proc)

    def _restart(self, dead: subprocess.Popen) -> None:
        down_since = time.monotonic()
        lived = down_since - self.started
        self._count_death(lived)
        log.error(
            "embedded redis-server (pid %d) exited with %s after %.1fs; starting it again on %s in %.1fs",
            dead.pid,
            exit_status(dead.returncode),
            lived,
            self.server.data_dir,
            self.backoff,
        )
        self._forget(dead)
        self._check_quick_deaths()
        while not self.stopping.wait(self.backoff):
            self._check_data()
            try:
                self.server.start()
            except EmbeddedRedisError as exc:
                self._forget(self.server.process)
                self._count_death(0.0)
                log.error(
                    "embedded redis-server could not be started again: %s; next try in %.1fs",
                    str(exc).strip(),
                    self.backoff,
                )
                self._check_quick_deaths()
                continue
            self.started = time.monotonic()
            log.info(
                "embedded redis-server is back (pid %d) after %.1fs down; the API serves again",
                self.server.process.pid if self.server.process else 0,
                self.started - down_since,
            )
            return

    def _count_death(self, lived: float) -> None:
        if lived >= HEALTHY_AFTER:
            self.quick_deaths, self.backoff = 1, MIN_BACKOFF
            return
        self.quick_deaths += 1
        if self.quick_deaths > 1:
            self.backoff = min(2 * self.backoff, MAX_BACKOFF)

    def _check_quick_deaths(self) -> None:
        if self.quick_deaths >= MAX_QUICK_DEATHS:
            raise GaveUp(
                f"the embedded redis-server died {self.quick_deaths} times in a row, each within "
                f"{HEALTHY_AFTER:g}s of its start; see {self.server.data_dir / 'redis.log'}"
            )

    def _check_data(self) -> None:
        """Refuse to start an empty Redis where the matches were: a fresh one would serve as if
        they had never existed."""
        data_dir = self.server.data_dir
        if not data_dir.is_dir():
            raise GaveUp(f"the data folder {data_dir} is gone; the embedded Redis cannot be started again")
        if self.had_aof and not _aof_exists(data_dir):
            raise GaveUp(
                f"the append-only file in {data_dir} is gone; the embedded Redis is not started again empty"
            )

    def _forget(self, proc: subprocess.Popen | None) -> None:
        """Drop a dead server's process, and its pid file, which would otherwise name a pid the
        system may give to another process (then refused as "already running")."""
        if proc is None:
            return
        if proc.stderr:
            proc.stderr.close()
        if self.server.process is proc:
            self.server.process = None
        try:
            if self.server.pidfile.read_text().strip() == str(proc.pid):
                self.server.pidfile.unlink()
        except OSError:
            pass


def _tell(message: dict) -> bool:
    """One line to ``serve`` on stdout (the keeper's channel to it; its log goes to stderr); false
    if ``serve`` is no longer there to read it."""
    try:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()
    except OSError:  # BrokenPipeError: serve died while Redis was starting
        return False
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Keep the embedded redis-server of `gameroom serve` running."
    )
    parser.add_argument("data_dir")
    parser.add_argument("--appendfsync", default="always")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # serve stops it last, once its HTTP workers are gone
    try:
        keeper = Keeper(EmbeddedRedis(args.data_dir, appendfsync=args.appendfsync))
    except EmbeddedRedisError as exc:
        _tell({"error": f"GAMEROOM_REDIS_APPENDFSYNC: {exc}"})
        return 1
    signal.signal(signal.SIGTERM, lambda *_: keeper.stopping.set())
    try:
        keeper.start_first()
    except EmbeddedRedisError as exc:
        _tell({"error": str(exc)})
        return 1
    code = 0
    try:
        if _tell({"url": keeper.server.url}):
            keeper.run()
    except GaveUp as exc:
        log.error("%s; stopping the server", exc)
        code = 1
    finally:
        keeper.server.__exit__(None, None, None)  # stops it if it runs, removes a socket folder
    return code


class Kept:
    """``serve``'s side: the keeper process, its Redis URL, and a thread that notices it is gone."""

    def __init__(self, data_dir: str, appendfsync: str, log_level: str):
        from ..workers.supervisor import die_with_parent

        self.stopping = False
        self.gave_up = False
        self._owner_pid = os.getpid()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gameroom.eventstore.keeper",
                os.path.abspath(data_dir),
                "--appendfsync",
                appendfsync,
                "--log-level",
                log_level,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=die_with_parent(signal.SIGTERM),
            process_group=0,  # Ctrl-C in a terminal does not reach it: serve stops it after its workers
        )
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        try:
            message = json.loads(line)
        except ValueError:
            message = {"error": f"the embedded Redis's keeper exited ({exit_status(self.proc.wait())})"}
        if "url" not in message:
            self.proc.wait()
            raise EmbeddedRedisError(message.get("error", "the embedded Redis did not start"))
        self.url: str = message["url"]

    def watch(self, on_gone) -> None:
        """Call ``on_gone()`` (in a thread) if the keeper ends before :meth:`stop`: it gave up."""

        def wait_for_eof():
            assert self.proc.stdout is not None
            self.proc.stdout.read()  # it writes nothing more: this returns when it exits
            if not self.stopping:
                self.gave_up = True
                on_gone()

        threading.Thread(target=wait_for_eof, name="embedded-redis-keeper", daemon=True).start()

    def stop(self, timeout: float = 30) -> None:
        """SIGTERM: the keeper stops its redis-server cleanly and exits.

        Only the process that started the keeper stops it: a forked child (a
        gunicorn worker unwinding on exit) must not take Redis down.
        """
        if os.getpid() != self._owner_pid:
            return
        self.stopping = True
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()


if __name__ == "__main__":
    sys.exit(main())
