"""Work from the outbox, not from a callback: one reconciler for the AI turns and for the clocks.

After an append, the API enqueues the AI seats' jobs
(:class:`~gameroom.workers.scheduler.AIScheduler`) and schedules the timeouts
of the clocks it started (:class:`~gameroom.workers.clock_scheduler.TimeoutScheduler`),
each in a round trip of its own; a crash between the append and that round
trip (or a Redis error in it, which the after-append callback logs and
swallows, or an idempotent retry answered from its key) would leave a match
waiting forever for a job nobody enqueued. So what is due is recorded *with
the append that made it so*, in an outbox (:mod:`gameroom.eventstore.outbox`:
a marker per match, set or cleared by the append script, and an index of
matches, marked before the append), and the workers start the jobs from it.

**The reconciler** (:func:`reconcile` for AI turns, :func:`reconcile_clocks`
for clocks; both :func:`reconcile_outbox` with a :class:`Policy`), run by every
``gameroom worker``'s upkeep at start and every few seconds (see
:mod:`gameroom.workers.worker`), reads an outbox's index:

- For each marker older than :data:`FRESH` seconds (younger: the writer's own
  enqueue is on its way), it asks the policy what is due (every AI seat the
  marker names; every clock whose deadline is less than :data:`LOOKAHEAD`
  seconds away, or past), fetches the jobs of that work (:data:`BATCH` per
  round trip) and starts what the policy's predicate says needs it: an AI turn
  whose job is missing, or failed for good more than :data:`FAILED_RETRY_AFTER`
  seconds ago (the match is loaded and given to the same ``AIScheduler`` the
  API calls); a timeout whose job is missing, or ended (failed for good, or
  finished without moving the match) more than :data:`RERUN_AFTER` seconds
  after the later of its end and its deadline while the deadline is still the
  marker's (``TimeoutScheduler.schedule``, at once when the deadline passed;
  the marker says everything, no load). A job RQ cannot read is logged and
  left alone.
- A member without a marker (work done, the match ended, or the intent's
  append never came) is left for :data:`GRACE` seconds (the append follows its
  intent within milliseconds; the grace covers a slow writer), then the log is
  checked once more: a claim that completed a match whose AI moves first sets
  its marker after the claim, so if the log and the record say an AI is to move
  it is enqueued and the member kept; a claim of the last seat of a clocked
  match (which marks it first) may have died before its ``start`` entry, which
  the reconciler then appends. Otherwise the member is dropped, unless a writer
  marked it again meanwhile (a compare-and-delete script).

**Idempotent.** Job ids are deterministic (``keys.ai_job_id``,
``keys.timeout_job_id``) and enqueued ``unique``, so however many workers
reconcile at once, one job exists per (match, version, seat); an AI job's
submit carries its id as idempotency key and the version it saw, so it appends
at most once; a timeout job (:func:`gameroom.workers.timeouts.enforce_timeout`)
appends only at that version and only once the time has run out, so a job run
twice, or late, or for a seat that moved in time, appends at most one timeout.

**How late.** A timeout whose job was lost is scheduled before its deadline
when the loss happened more than :data:`LOOKAHEAD` seconds before it; else it
runs within one upkeep interval plus :data:`FRESH` of the later of the
deadline and the restart of a worker. Every member of an index is read each
pass (a pipelined ``GET`` per match, :data:`BATCH` per round trip); only the
work due costs a look at its jobs.

Chosen over scanning every ``*:ai-turn`` and ``*:clock-due`` key (simple and
exact, but a SCAN of the whole keyspace on every node each interval) and over
writing the index in the append script (not allowed on Cluster: another slot).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple

import redis
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from ..errors import NotFound
from ..eventstore import keys
from ..eventstore.interfaces import Outbox
from ..eventstore.outbox import ClockDue, Pending

log = logging.getLogger(__name__)

#: Seconds between two reconciliations in each worker.
RECONCILE_INTERVAL = 5
#: A marker written less than this long ago (seconds) is left to the writer's own enqueue.
FRESH = 2
#: A member of an index with no marker is dropped once older than this (seconds).
GRACE = 60
#: An AI job that failed for good is enqueued again this long after it ended (seconds).
FAILED_RETRY_AFTER = 30
#: A timeout job that ended while its deadline is still the marker's is run again this long after.
RERUN_AFTER = FAILED_RETRY_AFTER
#: Deadlines this close (seconds) get their job checked: a lost one is scheduled before it is due.
LOOKAHEAD = 10
#: Members (and work items) read per round trip.
BATCH = 200


class Due(NamedTuple):
    """Work a marker asks for: the jobs of ``seats`` at ``version`` (``deadline``: a clock's; 0 for
    an AI turn, due at once)."""

    match_id: str
    version: int
    seats: list[int]
    deadline: float = 0.0


@dataclass(frozen=True)
class Policy:
    """What :func:`reconcile_outbox` does with one outbox; ``scheduler`` below is what the
    jobs go to (its ``queue.connection`` is the queue's Redis)."""

    #: the store's outbox
    outbox: Callable[[Any], Outbox]
    #: the work a marker (older than FRESH) asks for now: ``(match, marker, now) -> [Due]``
    due: Callable[[str, Any, float], list[Due]]
    #: the deterministic RQ job id of a seat's work: ``(match, version, seat) -> id``
    job_id: Callable[[str, int, int], str]
    #: the predicate: whether the work needs its jobs (started) again, given them (None: missing)
    needs_run: Callable[[list, Due, float], bool]
    #: start the work: ``(matches, scheduler, due, now) -> [job ids]``
    run: Callable[[Any, Any, Due, float], list[str]]
    #: a member without marker past GRACE: ``(matches, scheduler, pending) -> [job ids]``
    unmarked: Callable[[Any, Any, Pending], list[str]]
    #: what a job is called in the logs
    job_kind: str
    #: the log lines (``%(match)s``, ``%(seat)s``) of a failed member, of failed work, and of a pass
    #: that started jobs (``%d``: how many, ``%s``: their ids)
    failed_member: str
    failed_work: str
    started: str


def reconcile_outbox(policy: Policy, matches, scheduler, *, now: float | None = None) -> list[str]:
    """Start the jobs of every work ``policy``'s outbox holds that has no live job; returns their ids.

    ``matches`` is a :class:`gameroom.application.Matches` on the events' store."""
    now = time.time() if now is None else now
    started: list[str] = []
    due: list[Due] = []
    for pending in policy.outbox(matches.store).pending(BATCH):
        if pending.marker is None:
            if now - pending.marked_at >= GRACE:
                try:
                    started += policy.unmarked(matches, scheduler, pending)
                except Exception:  # one broken match must not stop the others
                    log.exception(policy.failed_member, {"match": pending.match_id})
            continue
        if now - pending.marked_at < FRESH:
            continue  # just appended: the writer's own enqueue is on its way
        due += policy.due(pending.match_id, pending.marker, now)
    for start in range(0, len(due), BATCH):
        chunk = due[start : start + BATCH]
        ids = [policy.job_id(work.match_id, work.version, seat) for work in chunk for seat in work.seats]
        jobs = iter(_fetch(ids, scheduler.queue.connection, policy.job_kind))
        for work in chunk:
            found = [next(jobs) for _seat in work.seats]
            if any(job is _UNREADABLE for job in found):
                continue
            try:
                if policy.needs_run(found, work, now):
                    started += policy.run(matches, scheduler, work, now)
            except Exception:  # one broken match must not stop the others
                log.exception(
                    policy.failed_work, {"match": work.match_id, "seat": work.seats[0] if work.seats else -1}
                )
    if started:
        log.warning(policy.started, len(started), ", ".join(started))
    return started


_UNREADABLE = object()


def _fetch(ids: list[str], connection, job_kind: str) -> list:
    """The jobs of ``ids`` in one round trip (None: missing); one RQ cannot read is logged and
    :data:`_UNREADABLE`, without hiding the others."""
    try:
        return Job.fetch_many(ids, connection=connection, serializer=JSONSerializer)
    except (redis.ConnectionError, redis.TimeoutError):
        raise  # the upkeep waits for Redis
    except Exception:
        found: list = []
        for job_id in ids:
            try:
                found += Job.fetch_many([job_id], connection=connection, serializer=JSONSerializer)
            except Exception:
                log.exception("%s %s cannot be read", job_kind, job_id)
                found.append(_UNREADABLE)
        return found


# -- AI turns -----------------------------------------------------------------

#: An AI job in one of these states will not run again by itself.
_DONE = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


def _ai_needs_enqueue(job: Job | None, now: float) -> bool:
    """Whether the AI job ``job`` (None: missing) is missing, or failed for good a while ago."""
    if job is None:
        return True
    status = job.get_status(refresh=False)
    if status not in _DONE:
        return False  # queued, scheduled for a retry, started or finished: RQ has it
    ended = job.ended_at or job.last_heartbeat or job.enqueued_at
    if ended is not None and now - ended.timestamp() < FAILED_RETRY_AFTER:
        return False
    log.warning("AI job %s ended %s and its turn is still pending; enqueueing it again", job.id, status)
    job.delete()
    return True


def _ai_unmarked(matches, scheduler, pending: Pending) -> list[str]:
    """Drop a member without AI-turn marker, unless the log and the record say an AI is to move
    (a claim that completed the match died before setting its marker): then enqueue it and keep
    the member (the AI's own append sets or clears the marker)."""
    try:
        loaded = matches.load(pending.match_id)
    except NotFound:
        matches.store.ai_turns.drop(pending.match_id, pending.marked_at)
        return []
    record = loaded.record
    if matches.ai_to_move(record, matches.game(record), loaded.folded):
        return scheduler(matches, loaded, None)
    matches.store.ai_turns.drop(pending.match_id, pending.marked_at)
    return []


#: The AI turns: every seat of a marker is due; the match is loaded and given to the AIScheduler
#: when any seat's job is missing or failed for good.
AI_TURNS = Policy(
    outbox=attrgetter("ai_turns"),
    due=lambda match_id, turn, now: [Due(match_id, turn[0], turn[1])],
    job_id=keys.ai_job_id,
    needs_run=lambda jobs, work, now: any(_ai_needs_enqueue(job, now) for job in jobs),
    run=lambda matches, scheduler, work, now: scheduler(matches, matches.load(work.match_id), None),
    unmarked=_ai_unmarked,
    job_kind="AI job",
    failed_member="reconciling AI turns of match %(match)s failed",
    failed_work="reconciling AI turns of match %(match)s failed",
    started="reconciler enqueued %d AI turn(s) that had no job: %s",
)


def reconcile(matches, scheduler, *, now: float | None = None) -> list[str]:
    """Enqueue every pending AI turn that has no live job; returns the job ids enqueued.

    ``scheduler`` is the :class:`~gameroom.workers.scheduler.AIScheduler` whose queue the jobs
    go to."""
    return reconcile_outbox(AI_TURNS, matches, scheduler, now=now)


# -- clocks -------------------------------------------------------------------

#: RQ has the timeout job: it waits for its time, its turn in the queue, or runs.
_LIVE = {JobStatus.SCHEDULED, JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED}


def _clock_needs_run(job: Job | None, deadline: float, now: float) -> bool:
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


def _clocks_due(match_id: str, marker: ClockDue, now: float) -> list[Due]:
    """A clock marker's seats whose deadline is less than :data:`LOOKAHEAD` seconds away, or past."""
    version, clocks = marker
    return [Due(match_id, version, [seat], at) for seat, at in clocks.items() if at - now <= LOOKAHEAD]


def _clock_unmarked(matches, timeouts, pending: Pending) -> list[str]:
    """Drop a member whose clocks do not run, unless they never started: every seat is taken
    but the claim that filled the last one died before its ``start`` entry (its intent is
    this member). Then start them now; the start's append marks the match again."""
    try:
        loaded = matches.load(pending.match_id)
    except NotFound:
        matches.store.clocks.drop(pending.match_id, pending.marked_at)
        return []
    overlay = loaded.folded.lifecycle
    if loaded.record.full and overlay is not None and not overlay["started"] and not loaded.record.read_only:
        log.warning(
            "match %s: every seat is taken and its clocks never started; starting them", pending.match_id
        )
        matches.seat_claimed(pending.match_id, loaded)
        return []
    matches.store.clocks.drop(pending.match_id, pending.marked_at)
    return []


#: The clocks: each seat whose deadline is near is due on its own, and scheduled through the
#: TimeoutScheduler (at once when its deadline passed) when its job is missing or ended.
CLOCKS = Policy(
    outbox=attrgetter("clocks"),
    due=_clocks_due,
    job_id=keys.timeout_job_id,
    needs_run=lambda jobs, work, now: _clock_needs_run(jobs[0], work.deadline, now),
    run=lambda matches, timeouts, work, now: timeouts.schedule(
        work.match_id, work.version, work.seats[0], work.deadline, now=work.deadline <= now
    ),
    unmarked=_clock_unmarked,
    job_kind="timeout job",
    failed_member="reconciling the clocks of match %(match)s failed",
    failed_work="reconciling the clock of seat %(seat)d in match %(match)s failed",
    started="clock reconciler scheduled %d timeout(s) that had no job: %s",
)


def reconcile_clocks(matches, timeouts, *, now: float | None = None) -> list[str]:
    """Schedule every timeout due within :data:`LOOKAHEAD` that has no live job; returns the ids scheduled.

    ``timeouts`` is the :class:`~gameroom.workers.clock_scheduler.TimeoutScheduler` whose queue the
    jobs go to."""
    return reconcile_outbox(CLOCKS, matches, timeouts, now=now)
