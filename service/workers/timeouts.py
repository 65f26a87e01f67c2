"""The clock timeout job: what RQ runs when a seat's clock runs out (:func:`enforce_timeout`).

Scheduled by :class:`gameroom.workers.clock_scheduler.TimeoutScheduler` (see there how and
why); the timeout itself is applied by :func:`gameroom.application.clocks.timeout_due`. Its
path, ``gameroom.workers.timeouts.enforce_timeout``, is stored with every scheduled job.
"""

from __future__ import annotations

import logging
import time

from rq import get_current_job

from ..application.clocks import timeout_due
from .clock_scheduler import EARLY_WAIT, TimeoutScheduler
from .jobs import job_matches

log = logging.getLogger(__name__)


def enforce_timeout(match_id: str, version: int, seat: int) -> dict:
    """RQ job: apply the timeout policy to ``seat`` if ``match_id`` is still at ``version`` and its time ran out."""
    job = get_current_job()
    matches = job_matches(job)
    result = timeout_due(matches, match_id, version, seat, time.time())
    if result["status"] == "early":
        wait = result["deadline"] - time.time()
        if wait <= EARLY_WAIT:
            time.sleep(max(0.0, wait))
            result = timeout_due(matches, match_id, version, seat, time.time())
        if result["status"] == "early":
            again = TimeoutScheduler(job.connection, job.origin)
            again.schedule(
                match_id, version, seat, result["deadline"], suffix=f"-at-{result['deadline']:.3f}"
            )
    log.info("timeout job %s: %s", job.id, result["status"])
    return result
