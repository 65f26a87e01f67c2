"""An RQ job for tests: what a work horse's jobs run on (see tests/workers/test_wiring.py)."""

from __future__ import annotations

import os


def wiring_probe() -> dict:
    """The horse's pid, and the identity of the :class:`~gameroom.application.Matches` its job gets.

    A forked horse keeps its parent's objects at their addresses: the same ``id`` as the
    parent's means the job runs on the object the worker built before it forked.
    """
    from rq import get_current_job

    from ..core.rng import Seeding
    from ..workers import jobs

    matches = jobs.job_matches(get_current_job())
    return {
        "pid": os.getpid(),
        "matches": id(matches),
        "seed_secret_read": isinstance(matches._seeding, Seeding),
    }
