"""Helpers shared by the benchmarks in bench/ (not a benchmark itself).

Everything here is about *measuring*: a throwaway Redis, percentiles, the
facts about the run that go into ``--json`` files. The project rule applies:
figures are reported as ratios against a baseline measured in the same run,
because the machines are shared and noisy.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as ``python bench/x.py`` from anywhere
    sys.path.insert(0, str(ROOT))

# The linear-interpolation quantile, re-exported for the benchmarks (one definition in the project).
from gameroom.ai.report import percentile as percentile  # noqa: E402


@contextlib.contextmanager
def redis_for_bench(url: str | None, appendfsync: str = "always"):
    """Yield ``(url, client_factory)``: ``url`` if given, else a throwaway EmbeddedRedis.

    The embedded server is the app's own (AOF on, ``appendfsync`` as given:
    the app's default ``always`` unless told, unix socket) in a temporary
    folder that is removed afterwards.
    """
    import redis

    if url:
        yield url, (lambda: redis.Redis.from_url(url))
        return
    from gameroom.eventstore.embedded import EmbeddedRedis

    tmp = tempfile.mkdtemp(prefix="gameroom-bench-")
    try:
        with EmbeddedRedis(tmp, appendfsync=appendfsync) as server:
            yield server.url, server.client
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def median(values) -> float:
    return statistics.median(values) if values else float("nan")


def run_facts(client=None) -> dict:
    """What was measured where: date, machine, code revision, Redis version."""
    facts = {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "loadavg_at_start": _loadavg(),
        "git": _git_revision(),
    }
    if client is not None:
        try:
            facts["redis_version"] = client.info("server").get("redis_version")
        except Exception as exc:  # noqa: BLE001 - informative only
            facts["redis_version"] = f"unknown ({exc})"
    return facts


def _loadavg():
    try:
        return list(os.getloadavg())
    except OSError:
        return None


def _git_revision() -> str | None:
    try:
        return (
            subprocess.run(
                ["git", "describe", "--always", "--dirty"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        return None


def fmt(value: float, digits: int = 1) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:,.{digits}f}"


def write_json(path, figures: dict) -> None:
    """Write a benchmark's figures as JSON (``--json PATH``), creating the folder."""
    import json
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2, default=str) + "\n")
    print(f"figures written to {path}")
