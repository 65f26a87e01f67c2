"""Clock deadlines from the log, not from a callback: the outbox of running clocks and its reconciler.

A timeout job is scheduled by :class:`~gameroom.workers.timeouts.TimeoutScheduler`
after the append that started a clock, in a round trip of its own; a crash
between the two (or a Redis error in the enqueue, which the after-append
callback logs and swallows, or an idempotent retry answered from its key)
would leave the clock expired for ever with nobody to apply the timeout.
So, as for AI turns (:mod:`gameroom.workers.reconciler`, whose reasoning
this follows step by step), the deadlines are recorded *with the append
that set them*, and the workers schedule from that record:

- **The marker** ``keys.clock_due(match)`` (``<version>:<seat>=<deadline>,...``:
  the running clocks a person holds, :func:`gameroom.core.lifecycle.timed_seats`)
  lives in the match's hash slot and is set or cleared by the append script
  in the same atomic step as the entry (also by the creation of a match whose
  clocks start at once). It is the truth, and it is Cluster-safe.
- **The index** ``keys.clock_pending()`` is one sorted set of match ids, scored
  by the time of the last mark, written *before* every append that leaves a
  clock running (an intent; in the same pipeline on a single Redis, a round
  trip earlier on Cluster, where it is in another slot). It is therefore a
  superset of the matches with a marker.
- **The reconciler** (:func:`reconcile_clocks`, run by every ``gameroom
  worker``'s upkeep at start and every few seconds, beside the AI turns'):
  for each marker older than :data:`FRESH` seconds with a deadline less than
  :data:`LOOKAHEAD` seconds away (or past), it makes sure the timeout job of
  that (match, version, seat) exists, and schedules it through the same
  ``TimeoutScheduler.schedule`` otherwise (at once when the deadline has
  passed). It needs no load of the match: the marker says everything. A job
  that ended (failed for good, or finished without moving the match) more
  than :data:`RERUN_AFTER` seconds ago while its deadline is still the
  marker's is run again.
- A member without a marker (the clocks stopped, the match ended, or the
  intent's append never came) is dropped once its mark is older than
  :data:`GRACE`, unless a writer marked it again meanwhile, or its clocks
  never started although every seat is taken: the claim of the last seat
  (which marks a clocked match first) died before its ``start`` entry, and
  the reconciler appends that entry instead.

**Idempotent.** The job ids are deterministic and enqueued ``unique``, so
however many workers reconcile at once, one job exists per (match, version,
seat); and the job (:func:`gameroom.workers.timeouts.enforce_timeout`)
appends only at that version and only once the time has run out, so a job
run twice, or late, or for a seat that moved in time, appends at most one
timeout, and none for a move in time.

**How late.** A timeout whose job was lost is scheduled before its deadline
when the loss happened more than :data:`LOOKAHEAD` seconds before it; else it
runs within one upkeep interval plus :data:`FRESH` of the later of the
deadline and the restart of a worker. Every member of the index is read
each pass (a pipelined ``GET`` per match, :data:`BATCH` per round trip), as
for AI turns; only the seats near their deadline cost a look at their job.
"""

from __future__ import annotations

import logging
import time

import redis
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from ..errors import NotFound
from ..eventstore import keys
from . import reconciler

log = logging.getLogger(__name__)

#: A clock marked less than this long ago (seconds) is left to the writer's own schedule.
FRESH = reconciler.FRESH
#: A member of the index with no marker is dropped once older than this (seconds).
GRACE = reconciler.GRACE
#: Deadlines this close (seconds) get their job checked: a lost one is scheduled before it is due.
LOOKAHEAD = 10
#: A job that ended while its deadline is still the marker's is run again this long after (seconds).
RERUN_AFTER = reconciler.FAILED_RETRY_AFTER
#: Members (and jobs) read per round trip.
BATCH = reconciler.BATCH

#: RQ has the job: it waits for its time, its turn in the queue, or runs.
_LIVE = {JobStatus.SCHEDULED, JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED}


def reconcile_clocks(matches, timeouts, *, now: float | None = None) -> list[str]:
    """Schedule every timeout due within :data:`LOOKAHEAD` that has no live job; returns the ids scheduled.

    ``matches`` is a :class:`gameroom.application.Matches` on the events'
    store, ``timeouts`` the :class:`~gameroom.workers.timeouts.TimeoutScheduler`
    whose queue the jobs go to (its connection is the queue's Redis).
    """
    now = time.time() if now is None else now
    due = []  # (match, version, seat, deadline)
    for pending in matches.store.clocks.pending(BATCH):
        if pending.marker is None:
            if now - pending.marked_at >= GRACE:
                try:
                    _start_or_drop(matches, pending)
                except Exception:  # one broken match must not stop the others
                    log.exception("reconciling the clocks of match %s failed", pending.match_id)
            continue
        if now - pending.marked_at < FRESH:
            continue  # just appended: the writer's own schedule is on its way
        version, clocks = pending.marker
        due += [(pending.match_id, version, seat, at) for seat, at in clocks.items() if at - now <= LOOKAHEAD]
    scheduled = []
    for start in range(0, len(due), BATCH):
        chunk = due[start : start + BATCH]
        ids = [keys.timeout_job_id(match_id, version, seat) for match_id, version, seat, _at in chunk]
        for (match_id, version, seat, at), job in zip(chunk, _fetch(ids, timeouts.queue.connection)):
            try:
                if job is not _UNREADABLE and _needs_run(job, at, now):
                    scheduled += timeouts.schedule(match_id, version, seat, at, now=at <= now)
            except Exception:  # one broken match must not stop the others
                log.exception("reconciling the clock of seat %d in match %s failed", seat, match_id)
    if scheduled:
        log.warning(
            "clock reconciler scheduled %d timeout(s) that had no job: %s",
            len(scheduled),
            ", ".join(scheduled),
        )
    return scheduled


def _start_or_drop(matches, pending) -> None:
    """Drop a member whose clocks do not run, unless they never started: every seat is taken
    but the claim that filled the last one died before its ``start`` entry (its intent is
    this member). Then start them now; the start's append marks the match again."""
    try:
        loaded = matches.load(pending.match_id)
    except NotFound:
        matches.store.clocks.drop(pending.match_id, pending.marked_at)
        return
    overlay = loaded.folded.lifecycle
    if loaded.record.full and overlay is not None and not overlay["started"] and not loaded.record.read_only:
        log.warning(
            "match %s: every seat is taken and its clocks never started; starting them", pending.match_id
        )
        matches.seat_claimed(pending.match_id, loaded)
        return
    matches.store.clocks.drop(pending.match_id, pending.marked_at)


_UNREADABLE = object()


def _fetch(ids: list[str], connection) -> list:
    """The jobs of ``ids`` in one round trip (None: missing); one RQ cannot read is logged and
    :data:`_UNREADABLE`, without hiding the others."""
    try:
        return Job.fetch_many(ids, connection=connection, serializer=JSONSerializer)
    except (redis.ConnectionError, redis.TimeoutError):
        raise  # the upkeep waits for Redis
    except Exception:
        found = []
        for job_id in ids:
            try:
                found += Job.fetch_many([job_id], connection=connection, serializer=JSONSerializer)
            except Exception:
                log.exception("timeout job %s cannot be read", job_id)
                found.append(_UNREADABLE)
        return found


def _needs_run(job: Job | None, deadline: float, now: float) -> bool:
    """Whether the timeout job ``job`` (None: missing) must be scheduled (again)."""
    if job is None:
        return True
    status = job.get_status(refresh=False)
    if status in _LIVE:
        return False
    ended = job.ended_at or job.last_heartbeat or job.enqueued_at
    since = max(deadline, ended.timestamp() if ended is not None else deadline)
    if now - since < RERUN_AFTER:
        return False  # RQ may still be handling it, or its own retry is on its way
    log.warning("timeout job %s ended %s and its clock is still running; running it again", job.id, status)
    job.delete()
    return True
