"""gunicorn servers as subprocesses on free loopback ports, and the CPU they and Redis spend."""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent  # bench/: on gunicorn's --pythonpath for the baseline
ROOT = BENCH.parent
HOST = "127.0.0.1"


def _die_with_parent():  # runs in the child before exec
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    os.setpgrp()  # Ctrl-C goes to us; we stop the servers in order


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def uses_threads(worker_class: str) -> bool:
    """Whether gunicorn's ``--threads`` means anything to ``worker_class`` (only gthread's does)."""
    return worker_class == "gthread" or worker_class.endswith(".ThreadWorker")


class Gunicorn:
    """One gunicorn master (and its workers) in its own process group, stopped on exit."""

    def __init__(
        self, name: str, app: str, env: dict, args: argparse.Namespace, logdir: Path, extra: list[str] = ()
    ):
        self.name, self.app, self.env, self.args, self.logdir, self.extra = (
            name,
            app,
            env,
            args,
            logdir,
            list(extra),
        )
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.log_path = logdir / f"{name}.log"

    def command(self) -> list[str]:
        """The gunicorn command line for the current ``port``, with the run's worker settings."""
        return [
            str(Path(sys.executable).parent / "gunicorn"),
            "-w",
            str(self.args.workers),
            "-k",
            self.args.worker_class,
            *(["--threads", str(self.args.threads)] if uses_threads(self.args.worker_class) else []),
            "-b",
            f"{HOST}:{self.port}",
            "--log-level",
            "warning",
            *self.extra,
            self.app,
        ]

    def start(self, probe: str, timeout: float = 60.0) -> Gunicorn:
        """Start on a free port and wait until ``GET probe`` answers below 500; three attempts."""
        for _attempt in range(3):  # the free port may be taken between probe and bind
            self.port = free_port()
            cmd = self.command()
            with open(self.log_path, "ab") as log:  # the child keeps its own copy of the descriptor
                # preexec_fn: no client thread runs yet when the servers start.
                self.proc = subprocess.Popen(
                    cmd,
                    cwd=ROOT,
                    env={**os.environ, **self.env},
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    preexec_fn=_die_with_parent,
                )  # noqa: PLW1509
            if self._wait_until_up(probe, time.monotonic() + timeout):
                return self
            self.stop()
        tail = self.log_path.read_text(errors="replace")[-3000:] if self.log_path.exists() else ""
        raise RuntimeError(f"gunicorn {self.name} did not start ({' '.join(cmd)}):\n{tail}")

    def _wait_until_up(self, probe: str, deadline: float) -> bool:
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
                conn.request("GET", probe)
                status = conn.getresponse().status
                conn.close()
                if status < 500:
                    return True
            except OSError:
                pass
            time.sleep(0.1)
        return False

    def stop(self, timeout: float = 15.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # master and workers: graceful shutdown
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


# -- CPU accounting ----------------------------------------------------------------------


def tree_cpu_seconds(root_pid: int) -> float:
    """user+system CPU seconds of ``root_pid`` and its live descendants, from /proc (0.0 off Linux)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    parent, cpu = {}, {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parent[int(name)] = int(fields[1])
        cpu[int(name)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [root_pid]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo.extend(child for child, ppid in parent.items() if ppid == pid)
    return total


def redis_cpu_seconds(client) -> float:
    """user+system CPU seconds of redis-server so far (``INFO cpu``)."""
    info = client.info("cpu")
    return float(info.get("used_cpu_user", 0)) + float(info.get("used_cpu_sys", 0))


def redis_reads(client) -> int:
    """Reads redis-server has made from its clients' sockets so far (``INFO stats``): a
    command written together with others is read with them."""
    return int(client.info("stats").get("total_reads_processed", 0))


def measured(server: Gunicorn, rclient, phase) -> dict:
    """Run ``phase()`` and add the CPU the gunicorn tree and redis-server spent meanwhile, and
    the reads redis-server made."""
    s0, r0, q0 = tree_cpu_seconds(server.proc.pid), redis_cpu_seconds(rclient), redis_reads(rclient)
    out = phase()
    s1, r1, q1 = tree_cpu_seconds(server.proc.pid), redis_cpu_seconds(rclient), redis_reads(rclient)
    n = sum(v["count"] for v in out["requests"].values()) or 1
    out.update(
        server_cpu_s=s1 - s0,
        redis_cpu_s=r1 - r0,
        server_cpu_us_per_request=(s1 - s0) / n * 1e6,
        redis_cpu_us_per_request=(r1 - r0) / n * 1e6,
        redis_reads_per_request=(q1 - q0 - 2) / n,  # less the two INFO calls made here
    )
    return out
