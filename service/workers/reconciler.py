"""AI turns from the log, not from a callback: the outbox of AI turns and its reconciler.

The enqueue of an AI job after an append is a separate round trip; a crash
between the two (or a Redis blip, or an idempotent retry answered from its
key) would leave the match waiting forever for a job nobody enqueued. So the
fact that an AI seat is to move is recorded *with the append that made it
so*, and the workers enqueue from that record:

- **The marker** ``keys.ai_turn(match)`` (``<version>:<seats>``) lives in the
  match's hash slot and is set or cleared by the append script itself
  (:data:`gameroom.eventstore.redis_streams.APPEND_LUA`), in the same atomic
  step as the entry. It is the truth, and it is Cluster-safe.
- **The index** ``keys.ai_pending()`` is one sorted set of match ids, so the
  reconciler need not scan every key. It spans matches (another slot), so it
  cannot be written in the script; it is written *before* the append, as an
  intent (in the same pipeline on a single Redis; a round trip earlier on
  Cluster), with the time as score. A crash after the intent and before the
  append leaves a member with no marker, which the reconciler drops; a crash
  after the append leaves both. The index is therefore always a superset of
  the matches with a marker.
- **The reconciler** (:func:`reconcile`, run by every ``gameroom worker`` at
  start and every :data:`RECONCILE_INTERVAL` seconds, see
  :mod:`gameroom.workers.worker`) reads the index; for each marker older than
  :data:`FRESH` seconds whose jobs are missing, or failed for good, it loads
  the match and calls the same
  :class:`~gameroom.workers.scheduler.AIScheduler` the API calls. Enqueues
  stay deduplicated by the deterministic job id (``unique=True``), so
  however many workers reconcile at once, one job runs per (match, version,
  seat), and the job's submit carries its id as idempotency key and the
  version it saw, so it appends at most once.
- A member without a marker is dropped once its score is older than
  :data:`GRACE` (the append follows its intent within milliseconds; the grace
  covers a slow writer), after checking the log once more (a claim that
  completed a match sets its marker after the claim) and only if no writer
  refreshed the score meanwhile (a compare-and-delete script).

The index is read and trimmed through the event store
(:meth:`~gameroom.eventstore.EventStore.pending_ai_turns`,
:meth:`~gameroom.eventstore.EventStore.drop_ai_pending`); this module
holds the policy, not the Redis commands.

Clock deadlines have an outbox of the same shape, for the same reason
(:mod:`gameroom.workers.clock_reconciler`).

Chosen over scanning every ``*:ai-turn`` key (simple and exact, but a SCAN of
the whole keyspace on every node each interval) and over writing the index in
the append script (not allowed on Cluster: another slot).
"""

from __future__ import annotations

import logging
import time

from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from ..errors import NotFound
from ..eventstore import keys

log = logging.getLogger(__name__)

#: Seconds between two reconciliations in each worker.
RECONCILE_INTERVAL = 5
#: A turn marked less than this long ago (seconds) is left to the writer's own enqueue.
FRESH = 2
#: A member of the index with no marker is dropped once older than this (seconds).
GRACE = 60
#: A job that failed for good is enqueued again this long after it ended (seconds).
FAILED_RETRY_AFTER = 30
#: Members read per round trip.
BATCH = 200

_DONE = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


def _needs_enqueue(connection, job_id: str, now: float) -> bool:
    """Whether the job of ``job_id`` is missing, or failed for good a while ago."""
    try:
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
    except Exception:  # NoSuchJobError, or a hash RQ cannot read: enqueue afresh
        return True
    status = job.get_status(refresh=False)
    if status not in _DONE:
        return False  # queued, scheduled for a retry, started or finished: RQ has it
    ended = job.ended_at or job.last_heartbeat or job.enqueued_at
    if ended is not None and now - ended.timestamp() < FAILED_RETRY_AFTER:
        return False
    log.warning("AI job %s ended %s and its turn is still pending; enqueueing it again", job_id, status)
    job.delete()
    return True


def reconcile(matches, scheduler, *, now: float | None = None) -> list[str]:
    """Enqueue every pending AI turn that has no live job; returns the job ids enqueued.

    ``matches`` is a :class:`gameroom.application.Matches` on the events'
    store, ``scheduler`` the :class:`~gameroom.workers.scheduler.AIScheduler`
    whose queue the jobs go to (its connection is the queue's Redis).
    """
    queue_redis = scheduler.queue.connection
    now = time.time() if now is None else now
    enqueued = []
    for pending in matches.store.ai_turns.pending(BATCH):
        try:
            enqueued += _reconcile_one(matches, scheduler, queue_redis, pending, now)
        except Exception:  # one broken match must not stop the others
            log.exception("reconciling AI turns of match %s failed", pending.match_id)
    if enqueued:
        log.warning(
            "reconciler enqueued %d AI turn(s) that had no job: %s", len(enqueued), ", ".join(enqueued)
        )
    return enqueued


def _reconcile_one(matches, scheduler, queue_redis, pending, now) -> list[str]:
    match_id, score, turn = pending
    if turn is not None:
        if now - score < FRESH:
            return []  # just appended: the writer's own enqueue is on its way
        version, seats = turn
        if not any(_needs_enqueue(queue_redis, keys.ai_job_id(match_id, version, s), now) for s in seats):
            return []
        loaded = matches.load(match_id)
        return scheduler(matches, loaded, None)
    if now - score < GRACE:
        return []
    try:
        loaded = matches.load(match_id)
    except NotFound:
        matches.store.ai_turns.drop(match_id, score)
        return []
    record = loaded.record
    if matches.ai_to_move(record, matches.game(record), loaded.folded):
        # Started by a claim that died before setting its marker: the log and the record say an AI
        # is to move. Keep the member (the AI's own append sets or clears the marker).
        return scheduler(matches, loaded, None)
    matches.store.ai_turns.drop(match_id, score)
    return []
