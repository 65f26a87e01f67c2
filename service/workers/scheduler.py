"""Enqueue one RQ job per (match, version, seat) whenever an append leaves an AI seat active.

The job id is derived from those three, and ``unique=True`` makes RQ refuse a
second enqueue of the same id (``DuplicateJobError``, swallowed here), so
however many API processes or workers see the same version, one job runs.
Jobs carry ids only, serialized as JSON.

Every append re-runs this callback, so each active AI seat always has a job
at the match's current version: a job whose version is no longer current is
stale by construction (see :mod:`gameroom.workers.jobs`). In a simultaneous
phase each active AI seat gets its own job, and after one of them moves the
others get new ones at the new version.

Timeouts are sized to the level's budget (:func:`job_timeout`); a job that
fails, times out, or whose worker dies is retried (:data:`RETRY_MAX` times,
after :data:`RETRY_INTERVALS`), and the job id doubles as the idempotency key
of the submit, so a retry appends at most once. After the last failed
attempt the job's ``on_failure`` callback plays a fallback move, so a broken
AI never leaves a match hanging (see :mod:`gameroom.workers.jobs`).
"""

from __future__ import annotations

import logging
import math

import redis
from rq import Callback, Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.serializers import JSONSerializer

from ..ai.levels import time_budget
from ..application import has_drafts
from ..core import lifecycle
from ..core.matches import ACTIVE, status_of
from ..eventstore import keys

log = logging.getLogger(__name__)

JOB_FUNCTION = "gameroom.workers.jobs.play_ai_turn"
#: Runs after every failed attempt; after the last one it plays the seat's fallback move.
FAILURE_CALLBACK = "gameroom.workers.jobs.on_ai_job_failure"
#: Seconds for loading the match, fork and submit, on top of the policy's own budget.
LOAD_ALLOWANCE = 30
#: Retries after a failure, a timeout or a dead worker, with the waits between them (seconds).
RETRY_MAX, RETRY_INTERVALS = 3, [1, 2, 5]
#: A finished job's hash is kept this long, so a late duplicate enqueue is still refused.
RESULT_TTL = 600
FAILURE_TTL = 86400


def queue_for(connection: redis.Redis, name: str) -> Queue:
    return Queue(name, connection=connection, serializer=JSONSerializer)


#: Decisions one job's timeout allows for where the game seals steps: the job plays the seat's
#: sealed steps through to its confirm (see ``jobs.py``); a retry goes on from the draft.
SEALED_DECISIONS = 4


def job_timeout(game, level: str, policy=None) -> int:
    """RQ ``job_timeout`` for one AI job: twice the level's time budget per decision it makes (one,
    or :data:`SEALED_DECISIONS` where the game seals steps) plus the load allowance."""
    decisions = SEALED_DECISIONS if has_drafts(game) else 1
    return LOAD_ALLOWANCE + math.ceil(2 * decisions * time_budget(game, level, policy))


class AIScheduler:
    """An ``after_append`` callback of :class:`gameroom.application.Matches`.

    ``retry_intervals`` (seconds between attempts; default
    :data:`RETRY_INTERVALS`) lets tests retry at once.
    """

    def __init__(self, connection: redis.Redis, queue_name: str, retry_intervals: list[int] | None = None):
        self.queue = queue_for(connection, queue_name)
        self.retry_intervals = RETRY_INTERVALS if retry_intervals is None else list(retry_intervals)

    def __call__(self, matches, loaded, entry) -> list[str]:
        """Enqueue a job for each active AI seat of ``loaded``; returns the ids enqueued now."""
        record, folded = loaded.record, loaded.folded
        ai = lifecycle.ai_seats(record, folded)  # with the seats an AI took over
        if not ai or record.read_only:
            return []
        game = matches.game(record)
        if status_of(record, game, folded.state, folded) != ACTIVE:
            return []
        policies = matches.registry.ai_policies(game)
        enqueued = []
        for seat in game.active_seats(folded.state):
            level = ai.get(seat)
            if level is None:
                continue
            job_id = keys.ai_job_id(record.id, folded.version, seat)
            policy = policies.get(level)
            try:
                self.queue.enqueue(
                    JOB_FUNCTION,
                    record.id,
                    folded.version,
                    seat,
                    job_id=job_id,
                    unique=True,
                    job_timeout=job_timeout(game, level, policy),
                    retry=Retry(max=RETRY_MAX, interval=self.retry_intervals),
                    on_failure=Callback(FAILURE_CALLBACK, timeout=LOAD_ALLOWANCE),
                    meta={"level": level},
                    result_ttl=RESULT_TTL,
                    failure_ttl=FAILURE_TTL,
                    description=f"{level} move for seat {seat} of {record.game} match {record.id} "
                    f"at v{folded.version}",
                )
            except DuplicateJobError:
                log.debug("%s already enqueued", job_id)
                continue
            log.info("enqueued %s", job_id)
            enqueued.append(job_id)
        return enqueued
