"""An RQ worker tuned for AI turns: plugins loaded once, abandoned jobs found quickly, outbox reconciled.

A plain ``rq.Worker`` forks a work horse per job that imports the job module
and discovers every game plugin again (about half a second). :class:`AIWorker`
does both once, before it forks, so each horse inherits them. When a job's
last attempt ends with its work horse killed, its
``work_horse_killed_handler`` plays the seat's fallback move (RQ runs no
``on_failure`` callback then; see :mod:`gameroom.workers.jobs`).

Over 400 lines because RQ's worker is extended in one place: the upkeep thread, the death
penalty that works off the main thread, the overdue-job sweep and the preparation before the
fork all hook into the same :class:`AIWorker` life cycle of RQ.

**Upkeep, busy or idle.** RQ runs its own maintenance only between two
dequeues, and an idle worker blocks in a dequeue for minutes, so a job whose
worker died waited about seven minutes. Each :class:`AIWorker` therefore
runs an upkeep thread (:class:`Upkeep`) that, at start and every
:data:`UPKEEP_INTERVAL` seconds whatever the worker is doing:

- retries the jobs abandoned by a dead worker (RQ's own cleanup of the
  started registry, under RQ's own per-queue maintenance lock): a busy
  worker beats every :data:`JOB_MONITORING_INTERVAL` seconds and a beat
  lasts :data:`HEARTBEAT_GRACE` seconds longer (RQ: 60), so a job of a dead
  worker is found within about 20 s and retried at once;
- queues again a job that was dequeued but never started (its worker or
  Redis died in between; :func:`recover_dequeued`), and the scheduled jobs
  (clock timeouts, retries) that RQ's scheduler left overdue (:func:`enqueue_overdue`);
- enqueues every pending AI turn that has no live job
  (:func:`gameroom.workers.reconciler.reconcile`), and schedules every
  running clock's timeout that has no live job
  (:func:`gameroom.workers.reconciler.reconcile_clocks`).

**Redis blips.** RQ's work loop quits on a Redis error outside its dequeue
(``TimeoutError``, or a ``ConnectionError`` while it records a job). :func:`run`
starts a fresh worker after such an exit, with backoff, instead of exiting:
a worker survives a Redis restart and the upkeep retries what the blip broke.

**Two Redis roles.** Jobs come from the queue's Redis (``--queue-url``,
``GAMEROOM_QUEUE_REDIS_URL``); events are read and written on the events
Redis (``--url``, ``GAMEROOM_REDIS_URL``), in the upkeep thread and in every
work horse. Without a queue URL both are the events Redis.

**Built once per process.** :func:`prepare` builds the worker's object graph
(:func:`gameroom.composition.compose`: plugins, Redis clients, the seed
secret, the schedulers of follow-up jobs) once, before RQ forks a work horse
per job, so every horse inherits it instead of building it again (see
``bench/bench_ai_roundtrips.py``). The upkeep thread builds its own, once:
a lock held by a thread when RQ forks would stay held in the horse.

Run it with ``python -m gameroom.workers.worker [--url URL] [--queue-url URL] [--queue NAME] [--burst]``
(the same options as ``gameroom worker``).

What the upkeep reconciles is :mod:`gameroom.workers.reconciler`.
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import os
import signal
import threading
import time

import redis
from redis.exceptions import RedisClusterException
from rq import Worker
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer
from rq.timeouts import BaseDeathPenalty, JobTimeoutException
from rq.utils import now as rq_now

from ..composition import Wiring, compose
from ..config import Config
from ..eventstore import keys
from ..eventstore.connect import refuse_cluster_queue
from ..eventstore.urls import without_password
from . import jobs
from .reconciler import reconcile, reconcile_clocks
from .scheduler import queue_for

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
MAINTENANCE_INTERVAL = 30
#: Seconds between the heartbeats of a busy worker.
JOB_MONITORING_INTERVAL = 5
#: Seconds a heartbeat outlives its interval: a dead worker's job expires this long after its last beat.
HEARTBEAT_GRACE = 10
#: Seconds between two upkeep passes (abandoned jobs, pending AI turns, running clocks).
UPKEEP_INTERVAL = 5
#: Seconds a scheduled retry may be overdue before the upkeep queues it (RQ's scheduler polls every second).
OVERDUE = 2
#: Seconds a job may sit dequeued but not started before it is queued again.
DEQUEUED_GRACE = 10
#: Longest wait between two starts of a worker whose Redis is away (seconds).
MAX_BACKOFF = 10


class CallbackTimeout(JobTimeoutException):
    """A failure callback run by :func:`recover_abandoned` outlived its timeout."""

    def __init__(self, *args):  # raised by class (asynchronously), so without a message of its own
        super().__init__(*(args or ("the failure callback exceeded its timeout",)))


class ThreadDeathPenalty(BaseDeathPenalty):
    """RQ's time limit on a callback, for a callback run in any thread.

    RQ's cleanup of the started registry runs a failure callback under the
    registry's death penalty, by default ``UnixSignalDeathPenalty``
    (``SIGALRM``), which can only be armed in the main thread: in the upkeep
    thread it raised before the callback ran, so an abandoned AI job's last
    attempt played no fallback move. This one interrupts the thread that
    entered it with :class:`CallbackTimeout` (``PyThreadState_SetAsyncExc``,
    from a timer). RQ's own ``TimerDeathPenalty`` does the same, but it
    rebinds ``__init__`` of the exception class it is given
    (``JobTimeoutException``, process-wide) to a message with its own timeout,
    which every work horse forked afterwards would then report.
    """

    def __init__(self, timeout, exception=JobTimeoutException, **kwargs):
        super().__init__(timeout, exception, **kwargs)
        self._thread = threading.get_ident()
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._done = False

    def setup_death_penalty(self):
        if self._timeout and self._timeout > 0:
            self._timer = threading.Timer(self._timeout, self._interrupt)
            self._timer.daemon = True
            self._timer.start()

    def cancel_death_penalty(self):
        if self._timer is None:
            return
        self._timer.cancel()
        with self._lock:
            self._done = True
            # A timer that fired as the body ended: take back the exception not yet raised.
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread), None)

    def _interrupt(self):
        with self._lock:
            if not self._done:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(self._thread), ctypes.py_object(CallbackTimeout)
                )


def recover_abandoned(queue) -> None:
    """Retry (or fail, calling its failure callback) every started job whose heartbeat expired.

    Takes RQ's per-queue maintenance lock, with a short expiry, so that it
    excludes RQ's own maintenance and a worker killed while holding it does
    not block the others for long. Runs in the upkeep thread, so the failure
    callbacks run under :class:`ThreadDeathPenalty`.
    """
    connection = queue.connection
    if not connection.set(queue.registry_cleaning_key, 1, nx=True, ex=max(2 * UPKEEP_INTERVAL, 10)):
        return
    try:
        StartedJobRegistry(
            queue.name,
            connection=connection,
            job_class=queue.job_class,
            serializer=queue.serializer,
            death_penalty_class=ThreadDeathPenalty,
        ).cleanup()
        recover_dequeued(queue)
        enqueue_overdue(queue)
    finally:
        connection.delete(queue.registry_cleaning_key)


def enqueue_overdue(queue) -> None:
    """Queue the scheduled jobs that RQ's scheduler should have queued :data:`OVERDUE` seconds ago:
    clock timeouts due at their deadline (:mod:`gameroom.workers.timeouts`) and retries of failed jobs.

    The scheduler is a process of one worker, holding a lock for a minute; a
    Redis outage or a killed worker takes it down, and until its lock expires no other
    scheduler starts, so jobs scheduled meanwhile would wait. What is overdue is
    queued here as the scheduler would (a job queued twice runs twice and
    appends at most once: see :mod:`gameroom.workers.jobs` and :mod:`gameroom.workers.timeouts`).
    """
    registry = queue.scheduled_job_registry
    job_ids = registry.get_jobs_to_schedule(int(time.time() - OVERDUE))
    if not job_ids:
        return
    with queue.connection.pipeline() as pipe:
        for job_id in job_ids:
            job = queue.fetch_job(job_id)
            if job is not None:
                queue._enqueue_job(job, pipeline=pipe)
            registry.remove(job_id, pipeline=pipe)
        pipe.execute()
    timeouts = sum(1 for job_id in job_ids if keys.is_timeout_job_id(job_id))
    log.warning(
        "queued %d scheduled jobs that RQ's scheduler left more than %ds overdue (clock timeouts: %d, "
        "retries: %d); RQ's scheduler is down, or its lock is still held by a worker that died: %s",
        len(job_ids),
        OVERDUE,
        timeouts,
        len(job_ids) - timeouts,
        ", ".join(job_ids),
    )


def recover_dequeued(queue) -> None:
    """Queue again the jobs a worker took off the queue but never started (it, or Redis, died in between).

    RQ moves a dequeued job to an intermediate list until the worker records
    it as started; one stuck there is otherwise failed by RQ's own cleanup
    (a minute after it was first seen, and only between two dequeues). Here
    it goes back to the queue :data:`DEQUEUED_GRACE` seconds after first seen.
    """
    intermediate = queue.intermediate_queue
    for job_id in intermediate.get_job_ids():
        if job_id in queue.started_job_registry:
            continue
        job = queue.fetch_job(job_id)
        if job is None:
            intermediate.remove(job_id)
            continue
        first_seen = intermediate.get_first_seen(job_id)
        if first_seen is None:
            intermediate.set_first_seen(job_id)
        elif (rq_now() - first_seen).total_seconds() > DEQUEUED_GRACE:
            log.warning("job %s was taken off the queue but never started; queueing it again", job_id)
            intermediate.remove(job_id)
            queue.enqueue_job(job)


class Upkeep(threading.Thread):
    """The worker's upkeep thread (see the module docstring); its own Redis connections.

    ``url`` is the events Redis (the pending AI turns), ``queue_url`` the
    queue's (RQ's registries; default: ``url``).
    """

    def __init__(
        self, url: str, queue_name: str, interval: float = UPKEEP_INTERVAL, *, queue_url: str | None = None
    ):
        super().__init__(name="gameroom-upkeep", daemon=True)
        self.url, self.queue_name, self.interval = url, queue_name, interval
        self.queue_url = queue_url or url
        self.stopped = threading.Event()

    def run(self) -> None:
        wiring = compose(_config(self.url, self.queue_name, self.queue_url), jobs.current_registry())
        queue = queue_for(wiring.clients.queue, self.queue_name)
        matches, scheduler, timeouts = wiring.matches, wiring.ai_scheduler, wiring.timeout_scheduler
        down = False
        while True:
            try:
                recover_abandoned(queue)
                reconcile(matches, scheduler)
                reconcile_clocks(matches, timeouts)
                if down:
                    log.warning("upkeep: Redis is back")
                down = False
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                if not down:
                    log.warning(
                        "upkeep: no answer from %s (%s); retrying every %ss",
                        down_roles(wiring),
                        exc,
                        self.interval,
                    )
                down = True
            except Exception:
                log.exception("upkeep pass failed")
            if self.stopped.wait(self.interval):
                return


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

    def get_heartbeat_ttl(self, job, working_time: float = 0.0) -> int:
        """As RQ's, with :data:`HEARTBEAT_GRACE` instead of 60 s, so a dead worker's job is found soon."""
        if job.timeout and job.timeout > 0:
            return (
                int(max(1, min(job.timeout - working_time, self.job_monitoring_interval))) + HEARTBEAT_GRACE
            )
        return self.job_monitoring_interval + HEARTBEAT_GRACE


def _children_die_with_this_process() -> None:
    """Every process this one forks from now on (work horses, RQ's scheduler) gets SIGTERM when it dies.

    RQ's scheduler process never checks its parent: a worker killed by
    SIGKILL (the OOM killer, a supervisor's last resort) would leave it
    running for ever. ``subprocess`` children are not concerned (no Python
    runs in them between fork and exec).
    """

    def arm():  # pragma: no cover - runs in the forked child
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        except OSError:
            pass

    os.register_at_fork(after_in_child=arm)


def _config(url: str, queue: str, queue_url: str | None) -> Config:
    """The environment's configuration, with the worker's Redis URLs and queue; AI scheduling on."""
    return Config.from_env(redis_url=url, queue_redis_url=queue_url or "", queue=queue, ai_mode="rq")


def prepare(url: str, queue: str, queue_url: str | None = None) -> Wiring:
    """Build this worker process's object graph once and give it to the jobs of its work horses.

    The seed secret is read now if Redis answers (else by the first job that needs it).
    """
    wiring = compose(_config(url, queue, queue_url), jobs.current_registry())
    jobs.use_wiring(wiring)
    _read_seed_secret(wiring)
    return wiring


def down_roles(wiring: Wiring) -> str:
    """Which of the worker's two Redis roles do not answer a PING now, with their URLs (no
    password), for a log line: an error of RQ's loop or of the upkeep may come from either."""
    events, queue = wiring.clients.events, wiring.clients.queue
    if queue is None or queue is events:
        roles = [("events and queue", events, wiring.url)]
    else:
        roles = [("events", events, wiring.url), ("queue", queue, wiring.config.queue_redis_url)]
    down = []
    for role, client, url in roles:
        try:
            client.ping()
        except (redis.RedisError, RedisClusterException):
            down.append(f"the {role} Redis at {without_password(url)}")
    return " and ".join(down) or "Redis (it answers again)"


def _read_seed_secret(wiring: Wiring, quiet: bool = False) -> None:
    """Read what every job would otherwise ask Redis for again: the seed secret (on the events
    Redis), and the queue Redis's version (RQ's enqueue asks it once per client, and caches it on
    the client). Each is asked on its own, so that a warning names the Redis that did not answer.
    ``quiet``: raise instead (the caller's retry logs one line per attempt)."""
    shared = wiring.clients.queue is wiring.clients.events
    try:
        wiring.matches.seeding  # noqa: B018 - reads (or makes) the stored secret, once per process
    except (redis.ConnectionError, redis.TimeoutError, RedisClusterException) as exc:
        if quiet:
            if isinstance(exc, RedisClusterException):
                raise redis.ConnectionError(str(exc)) from exc
            raise
        log.warning(
            "worker: no answer from the %s Redis at %s yet; the seed secret is read later (%s)",
            "events and queue" if shared else "events",
            without_password(wiring.url),
            exc,
        )
        if shared:
            return
    try:
        for scheduler in wiring.schedulers:
            scheduler.queue.get_redis_server_version()
    except (redis.ConnectionError, redis.TimeoutError) as exc:
        if quiet:
            raise
        log.warning(
            "worker: no answer from the queue Redis at %s yet (%s)",
            without_password(wiring.config.queue_redis_url or wiring.url),
            exc,
        )


def run(
    url: str, queue: str, burst: bool = False, log_level: str = "INFO", queue_url: str | None = None
) -> bool:
    """Work ``queue`` of the Redis at ``queue_url`` until asked to stop (or, with ``burst``, until it
    is empty), reading and writing events on the Redis at ``url``.

    ``queue_url`` defaults to ``url`` (one Redis for both roles). A worker that quits on a Redis error is replaced by a fresh one, after a
    wait that doubles up to :data:`MAX_BACKOFF` seconds while Redis stays away. No worker starts while
    the events Redis does not answer (down, or a cluster not created yet): it would take jobs it
    cannot run. Each attempt is logged in one line, without a traceback.
    """
    refuse_cluster_queue(queue_url, url)
    _children_die_with_this_process()
    queue_url = queue_url or url
    wiring = prepare(url, queue, queue_url)  # inherited by every work horse
    upkeep = None
    if not burst:
        upkeep = Upkeep(url, queue, queue_url=queue_url)
        upkeep.start()
    backoff = 0.5
    while True:
        worker = None
        started = time.monotonic()
        unavailable = None
        try:
            wiring.matches.store.ping()  # the events Redis, which every job needs
            _read_seed_secret(wiring, quiet=True)  # after an outage at start, before the horses need it
            worker = AIWorker([queue], connection=redis.Redis.from_url(queue_url))
            worked = worker.work(burst=burst, logging_level=log_level, with_scheduler=True)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            unavailable = f"no answer from {down_roles(wiring)}: {exc}"
            worked = False
        asked = worker is not None and (worker._stop_requested or worker._shutdown_requested_date is not None)
        if not (burst or asked):
            if time.monotonic() - started > 60:
                backoff = 0.5  # it worked for a while: this is a new outage
            if unavailable is not None:
                log.error("worker: Redis unavailable (%s); starting again in %.1fs", unavailable, backoff)
            else:
                log.warning("worker: starting again in %.1fs", backoff)
            asked = _sleep_unless_stopped(backoff)
            backoff = min(2 * backoff, MAX_BACKOFF)  # while Redis stays away: 0.5, 1, 2 … s
        elif unavailable is not None:
            log.error("worker: Redis unavailable (%s)", unavailable)
        if burst or asked:
            if upkeep is not None:
                upkeep.stopped.set()
            return worked


def _sleep_unless_stopped(seconds: float) -> bool:
    """Sleep, or return early (True) on SIGTERM or SIGINT (no RQ worker is there to handle them)."""
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return stop.wait(seconds)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv=None) -> None:
    config = Config.from_env()
    parser = argparse.ArgumentParser(description="Run an RQ worker that plays AI seats.")
    parser.add_argument(
        "--url", default=config.redis_url, help="Redis URL of the events (GAMEROOM_REDIS_URL)"
    )
    parser.add_argument(
        "--queue-url",
        default=config.queue_redis_url,
        help="Redis URL of the queue (GAMEROOM_QUEUE_REDIS_URL; default: the events Redis)",
    )
    parser.add_argument("--queue", default=config.queue, help="queue name")
    parser.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("set GAMEROOM_REDIS_URL or --url")
    run(args.url, args.queue, args.burst, config.log_level.upper(), args.queue_url or None)


if __name__ == "__main__":
    main()
