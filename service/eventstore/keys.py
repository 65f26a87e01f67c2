"""Every Redis key name gameroom uses, built in one place.

Keys of one match share the hash tag ``{<match>}`` so that, on Redis Cluster,
everything of a match lives in one slot and the append script may touch
several of them atomically. The lobby, pending-AI and pending-clock indexes are the keys
that span matches; they live wherever the cluster puts them, and on a cluster
they are written before the match's own keys, as intents (see
:mod:`gameroom.eventstore.records`).
"""

from __future__ import annotations

PREFIX = "gameroom"


def _match(match_id: str, what: str) -> str:
    return f"{PREFIX}:{{{match_id}}}:{what}"


def events(match_id: str) -> str:
    """Stream of entries; entry *n* has stream id ``n-0`` (its version)."""
    return _match(match_id, "events")


def meta(match_id: str) -> str:
    """Hash: the match record (game, seats, options, seed, created ...)."""
    return _match(match_id, "meta")


def idempotency(match_id: str) -> str:
    """Hash: idempotency key -> version of the entry it appended."""
    return _match(match_id, "idem")


def tokens(match_id: str) -> str:
    """Hash: sha256(token) -> seat number."""
    return _match(match_id, "tokens")


def snapshot(match_id: str) -> str:
    """Hash: version -> JSON snapshot of the match folded to that version (a cache)."""
    return _match(match_id, "snapshot")


def undo_requests(match_id: str) -> str:
    """Hash: undo request id -> JSON request (seat, target, base version, votes, status): the
    pending ones and the last few settled ones (see :func:`undo_settled`)."""
    return _match(match_id, "undo")


def undo_pending(match_id: str) -> str:
    """Hash: seat -> the id of its pending undo request (a seat has at most one)."""
    return _match(match_id, "undo-pending")


def undo_settled(match_id: str) -> str:
    """List: ids of settled undo requests, newest first; past a few, the oldest are dropped
    from :func:`undo_requests`."""
    return _match(match_id, "undo-settled")


def draft(match_id: str, seat: int) -> str:
    """Hash: ``seat``'s sealed steps not yet in the log (see ``drafts.py``): ``base``, ``n``,
    ``s:<i>`` (step *i*, JSON), ``k:<idempotency key>`` (``<i>[:<fingerprint>]``), ``d:<key>``
    (a dropped step's: ``<fingerprint>:<step JSON>``) and ``u:<key>`` (an undo's:
    ``<steps left>[:<fingerprint>]``)."""
    return _match(match_id, f"draft:{seat}")


def seed_secret() -> str:
    """String: the server secret mixed into every match seed (see ``seed_secret.py``)."""
    return f"{PREFIX}:seed-secret"


def rematch_lock(match_id: str) -> str:
    """String with a TTL: held by the one request creating the rematch of a finished match."""
    return _match(match_id, "rematch-lock")


def ai_turn(match_id: str) -> str:
    """String ``<version>:<seat>,<seat>``: the AI seats to move at that version (absent: none).

    Written by the append script in the same atomic step as the entry that
    made it so (see :mod:`gameroom.workers.reconciler`).
    """
    return _match(match_id, "ai-turn")


def ai_pending() -> str:
    """Sorted set: ids of matches that may have an AI turn to play, scored by the time of the last mark.

    Cross-slot, so it is written *before* the append that may leave an AI
    seat to move (an intent), never after; the reconciler drops members whose
    :func:`ai_turn` is gone once they are older than its grace period.
    """
    return f"{PREFIX}:ai-pending"


def clock_due(match_id: str) -> str:
    """String ``<version>:<seat>=<deadline>,...``: the running clocks that a person holds at that
    version, each with its deadline (absent: none).

    Written by the append script in the same atomic step as the entry that
    started or moved the clocks (see :mod:`gameroom.workers.reconciler`).
    """
    return _match(match_id, "clock-due")


def clock_pending() -> str:
    """Sorted set: ids of matches that may have a running clock a person holds, scored by the time
    of the last mark.

    Cross-slot like :func:`ai_pending`, and kept the same way: written before
    the append (an intent), its members without a :func:`clock_due` dropped
    by the reconciler after a grace period.
    """
    return f"{PREFIX}:clock-pending"


def lobby() -> str:
    """Sorted set: match id scored by creation time."""
    return f"{PREFIX}:matches"


def ai_job_id(match_id: str, version: int, seat: int) -> str:
    """RQ job id of the AI move for ``seat`` at ``version`` (deterministic, so enqueues dedupe)."""
    return f"{PREFIX}-ai-{match_id}-{version}-{seat}"


def timeout_job_id(match_id: str, version: int, seat: int) -> str:
    """RQ job id of the timeout of ``seat``'s clock at ``version`` (deterministic, so schedules dedupe)."""
    return f"{PREFIX}-timeout-{match_id}-{version}-{seat}"


def is_timeout_job_id(job_id: str) -> bool:
    """Whether ``job_id`` is a :func:`timeout_job_id` (or a rescheduled one, which adds a suffix)."""
    return job_id.startswith(f"{PREFIX}-timeout-")


def match_of_events(key: str) -> str:
    """The match id of an :func:`events` key."""
    return key[len(PREFIX) + 2 : key.rindex("}")]


def hub_wake(hub_id: str) -> str:
    """Stream that wakes one process's stream hub when it starts watching another match."""
    return f"{PREFIX}:hub:{hub_id}:wake"
