"""A test-only AI level, ``slow``, that thinks until killed the first time it is asked.

Register it in-process with ``build_registry(extra_plugins=[("slow-ai", slow_ai)])``;
a worker *process* finds it through an entry point, which a test provides with
:func:`install_entry_point` (a ``*.dist-info`` folder put on ``PYTHONPATH``,
exactly how an installed add-on package is found).

``GAMEROOM_TEST_SLOW_DIR`` names a folder: the first decision writes its pid
to ``started`` there and sleeps (so that a test can kill the worker
mid-job); later decisions find the file and play the first legal move at once.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..plugin_api import hookimpl

ENV = "GAMEROOM_TEST_SLOW_DIR"
SLEEP = 60.0


def slow_policy(game, view, seat, legal, rng, **_):
    folder = Path(os.environ[ENV])
    marker = folder / "started"
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        time.sleep(SLEEP)
    with open(folder / "decisions", "a") as log:
        log.write(f"{os.getpid()}\n")
    return legal[0]


slow_policy.time_budget = SLEEP


@hookimpl
def gameroom_ai_policies(game):
    return {"slow": slow_policy}


def install_entry_point(folder: Path) -> Path:
    """Write a distribution ``gameroom-test-slow-ai`` into ``folder`` (put it on ``PYTHONPATH``)."""
    info = Path(folder) / "gameroom_test_slow_ai-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gameroom-test-slow-ai\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[gameroom.games]\nslow-ai = {__name__}\n")
    return Path(folder)
