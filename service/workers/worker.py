"""An RQ worker tuned for AI turns: plugins loaded once, abandoned jobs found quickly.

A plain ``rq.Worker`` forks a work horse per job that imports the job module
and discovers every game plugin again (about half a second). :class:`AIWorker`
does both once, before it forks, so each horse inherits them. It also runs
RQ's registry maintenance every :data:`MAINTENANCE_INTERVAL` seconds instead
of every ten minutes, and beats every :data:`JOB_MONITORING_INTERVAL`
seconds while busy: that maintenance is what retries a job whose worker died
(killed, or its host lost) once the job's heartbeat has expired (RQ adds 60 s
to the beat), so a lost AI turn is retried within about two minutes. When a
job's last attempt ends with its work horse killed, its
``work_horse_killed_handler`` plays the seat's fallback move (RQ runs no
``on_failure`` callback then; see :mod:`service.workers.jobs`).

Run it with ``python -m service.workers.worker [--url URL] [--queue NAME] [--burst]``
(the same options as ``gameroom worker``).
"""
from __future__ import annotations

import argparse

import redis
from rq import Worker
from rq.serializers import JSONSerializer

from ..config import Config
from . import jobs

MAINTENANCE_INTERVAL = 30
#: Seconds between the heartbeats of a busy worker; a dead worker's job is found this + 60 s later.
JOB_MONITORING_INTERVAL = 10


class AIWorker(Worker):
    def __init__(self, queues, *args, registry=None, **kwargs):
        kwargs.setdefault("serializer", JSONSerializer)
        kwargs.setdefault("maintenance_interval", MAINTENANCE_INTERVAL)
        kwargs.setdefault("job_monitoring_interval", JOB_MONITORING_INTERVAL)
        kwargs.setdefault("work_horse_killed_handler", jobs.on_work_horse_killed)
        super().__init__(queues, *args, **kwargs)
        if registry is not None:
            jobs.use_registry(registry)
        jobs.current_registry()  # discover plugins now, in the parent, not in every horse

    @property
    def dequeue_timeout(self) -> int:
        """An idle worker wakes every maintenance interval (RQ's default: every 405 s), so that its
        maintenance takes over RQ's scheduler (which fires clock timeouts) soon after the lock of a
        dead host's scheduler expired."""
        return max(1, min(super().dequeue_timeout, MAINTENANCE_INTERVAL))


def run(url: str, queue: str, burst: bool = False, log_level: str = "INFO") -> bool:
    worker = AIWorker([queue], connection=redis.Redis.from_url(url))
    return worker.work(burst=burst, logging_level=log_level, with_scheduler=True)


def main(argv=None) -> None:
    config = Config.from_env()
    parser = argparse.ArgumentParser(description="Run an RQ worker that plays AI seats.")
    parser.add_argument("--url", default=config.redis_url, help="Redis URL of the queue")
    parser.add_argument("--queue", default=config.queue, help="queue name")
    parser.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("set GAMEROOM_REDIS_URL or --url")
    run(args.url, args.queue, args.burst, config.log_level.upper())


if __name__ == "__main__":
    main()
