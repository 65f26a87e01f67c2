"""Enqueue one RQ job per (match, version, seat) whenever an AI seat is active.

The job id is derived from those three, and ``unique=True`` makes RQ refuse a
second enqueue of the same id, so however many API processes see the same
version, one job runs. Jobs carry ids only, serialized as JSON.
"""
from __future__ import annotations

import logging

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.serializers import JSONSerializer

from ..core.matches import ACTIVE, status_of
from ..eventstore import keys

log = logging.getLogger(__name__)

#: Seconds a job may run, per level (search levels cap themselves well below this).
TIMEOUTS = {"random": 30, "greedy": 60, "mcts": 60}
DEFAULT_TIMEOUT = 120


def queue_for(connection: redis.Redis, name: str) -> Queue:
    return Queue(name, connection=connection, serializer=JSONSerializer)


class AIScheduler:
    """An ``after_append`` callback of :class:`service.application.Matches`."""

    def __init__(self, connection: redis.Redis, queue_name: str):
        self.queue = queue_for(connection, queue_name)

    def __call__(self, matches, loaded, entry) -> list[str]:
        record, folded = loaded.record, loaded.folded
        game = matches.game(record)
        if status_of(record, game, folded.state) != ACTIVE:
            return []
        ai = record.ai_seats()
        enqueued = []
        for seat in game.active_seats(folded.state):
            level = ai.get(seat)
            if level is None:
                continue
            job_id = keys.ai_job_id(record.id, folded.version, seat)
            try:
                self.queue.enqueue(
                    "service.workers.jobs.play_ai_turn", record.id, folded.version, seat,
                    job_id=job_id, unique=True, job_timeout=TIMEOUTS.get(level, DEFAULT_TIMEOUT),
                    retry=Retry(max=3, interval=[1, 2, 5]), result_ttl=600, failure_ttl=86400,
                    description=f"{level} move for seat {seat} of {record.game} match {record.id} at v{folded.version}",
                )
            except DuplicateJobError:
                continue
            log.info("enqueued %s", job_id)
            enqueued.append(job_id)
        return enqueued
