"""Server-enforced clocks: one scheduled RQ job per running clock, fired when its time runs out.

This module schedules the jobs; the job itself is :func:`gameroom.workers.timeouts.enforce_timeout`.

:class:`TimeoutScheduler` is an ``after_append`` callback like
:class:`gameroom.workers.scheduler.AIScheduler`. After every entry of a match
with a clock it schedules, with RQ's scheduler (``enqueue_at``; ``gameroom
worker`` and ``gameroom serve`` run workers ``with_scheduler``), one job per
seat whose clock runs and that a person plays, at that seat's deadline. The
job id is derived from (match, version, seat) and enqueued ``unique``, so
however many processes see one version, one job exists; the jobs of the
previous version are taken off the schedule (a move in time cancels them).

:func:`enforce_timeout` (what RQ runs) is idempotent like an AI job: it
applies the match's timeout policy (:func:`gameroom.application.clocks.timeout_due`)
only if the match is still at the version the job was scheduled for, by an
append at that very version. A move that arrived in time, a second run of
the job, a retry after its worker died: each finds the match moved on and
does nothing. The policy's AI takeover is a lifecycle entry that makes the
seat an AI seat, so the ordinary AI-turn path (``AIScheduler``) plays it.

This callback is the fast path, not the only one: the append that starts a
clock records its deadline in the same atomic step, and the workers' upkeep
schedules any timeout whose job was lost (a crash after the append, a Redis
error in the enqueue): :mod:`gameroom.workers.reconciler`.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import redis
from rq import Retry
from rq.exceptions import DuplicateJobError
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from ..core import lifecycle
from ..core.matches import ACTIVE, status_of
from ..eventstore import keys
from .scheduler import FAILURE_TTL, RESULT_TTL, queue_for

log = logging.getLogger(
    "gameroom.workers.timeouts"
)  # its name from before the split: log lines are unchanged

#: What RQ runs (the path is stored with every scheduled job: it stays where it was).
TIMEOUT_FUNCTION = "gameroom.workers.timeouts.enforce_timeout"
#: Seconds RQ gives one timeout job (it loads the match and appends one entry).
JOB_TIMEOUT = 60
RETRY_MAX, RETRY_INTERVALS = 3, [1, 2, 5]
#: A job that fires before its deadline (another host's clock runs ahead) waits at most this long, then is rescheduled.
EARLY_WAIT = 5.0


def job_id(match_id: str, version: int, seat: int) -> str:
    return keys.timeout_job_id(match_id, version, seat)


class TimeoutScheduler:
    """Schedule the timeout of every running clock a person holds (see the module docstring)."""

    def __init__(self, connection: redis.Redis, queue_name: str):
        self.queue = queue_for(connection, queue_name)
        self.registry = ScheduledJobRegistry(queue=self.queue)

    def __call__(self, matches, loaded, entry) -> list[str]:
        record, folded = loaded.record, loaded.folded
        overlay = folded.lifecycle
        if overlay is None or not overlay["clock"] or record.read_only:
            return []
        self._cancel(record.id, folded.version - 1, record.num_seats)
        game = matches.game(record)
        if status_of(record, game, folded.state, folded) != ACTIVE:
            return []
        scheduled = []
        # An AI seat, or one an AI plays now, has no timeout: the AI job is what moves the match.
        for seat, due in lifecycle.timed_seats(record, folded).items():
            scheduled += self.schedule(record.id, folded.version, seat, due)
        return scheduled

    def schedule(
        self, match_id: str, version: int, seat: int, due: float, suffix: str = "", *, now: bool = False
    ) -> list[str]:
        """Schedule the timeout of ``seat`` at ``version`` for ``due`` (with ``now``: queue it at once,
        not through RQ's scheduler, which may be down); returns its id, or nothing if it exists already."""
        jid = job_id(match_id, version, seat) + suffix
        options = dict(
            job_id=jid,
            unique=True,
            job_timeout=JOB_TIMEOUT,
            retry=Retry(max=RETRY_MAX, interval=RETRY_INTERVALS),
            result_ttl=RESULT_TTL,
            failure_ttl=FAILURE_TTL,
            description=f"timeout of seat {seat} in match {match_id} at v{version}",
        )
        try:
            if now:
                self.queue.enqueue(TIMEOUT_FUNCTION, match_id, version, seat, **options)
            else:
                when = datetime.fromtimestamp(due, tz=UTC)
                self.queue.enqueue_at(when, TIMEOUT_FUNCTION, match_id, version, seat, **options)
        except DuplicateJobError:
            return []
        log.info("scheduled %s at %.3f", jid, due)
        return [jid]

    def _cancel(self, match_id: str, version: int, num_seats: int) -> None:
        """Take the previous version's timeouts off the schedule (they would find the match moved on anyway)."""
        if version < 1:
            return
        ids = [job_id(match_id, version, seat) for seat in range(num_seats)]
        pipe = self.queue.connection.pipeline(transaction=False)
        for jid in ids:
            pipe.zrem(self.registry.key, jid)
        removed = [jid for jid, gone in zip(ids, pipe.execute()) if gone]
        if (
            removed
        ):  # only jobs still waiting on the schedule; one already enqueued runs and finds itself stale
            self.queue.connection.delete(*(Job.key_for(jid) for jid in removed))
