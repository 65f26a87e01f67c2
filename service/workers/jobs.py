"""The AI job: load, ask the seat's policy from its view only, submit like any client.

:func:`play_ai_turn` is what RQ runs (arguments: ids only); :func:`play_turn`
is the same without RQ, for tests and tools.

A job is *stale* when the match is no longer at the version it was enqueued
for: it moved on (an opponent's move in a simultaneous phase), was undone, or
ended. The scheduler enqueues a job for every AI seat still active at every
new version, so a stale job can simply finish without effect. A job that got
as far as submitting races only with newer jobs of its own seat; the submit
carries the version it saw (``expected_version``: refused if what the seat
sees changed since) and the job id as idempotency key, so a job retried after
its worker died appends at most once.
"""
from __future__ import annotations

import hashlib
import logging
import time

from ..ai import choose_move
from ..ai.levels import random_policy
from ..application import Matches
from ..errors import GameroomError
from ..plugin_api import Rng

log = logging.getLogger(__name__)

_REGISTRY = None


def use_registry(registry) -> None:
    """Use ``registry`` for the jobs of this process (and of the work horses it forks).

    A worker that builds it once before forking saves every job the discovery
    of plugins; tests use it to play games that are not installed.
    """
    global _REGISTRY
    _REGISTRY = registry


def current_registry():
    """The registry jobs use: the one set by :func:`use_registry`, else the installed plugins."""
    if _REGISTRY is None:
        from ..registry import build_registry

        use_registry(build_registry())
    return _REGISTRY


def matches_for(connection, queue_name: str | None = None) -> Matches:
    """The application layer on ``connection``, scheduling follow-up AI jobs on ``queue_name``."""
    from ..config import Config
    from ..eventstore import EventStore
    from ..eventstore.records import MatchRecords
    from .scheduler import AIScheduler

    config = Config.from_env()
    matches = Matches(EventStore(connection), MatchRecords(connection), current_registry(),
                      snapshot_every=config.snapshot_every, append_retries=config.append_retries)
    matches.after_append.append(AIScheduler(connection, queue_name or config.queue))
    return matches


def ai_rng(job_id: str) -> Rng:
    """The policy's randomness: from the job id only (so a retry thinks alike), never the match seed."""
    return Rng(int.from_bytes(hashlib.sha256(job_id.encode()).digest()[:16], "big"))


def play_turn(matches: Matches, match_id: str, version: int, seat: int, job_id: str, **budget) -> dict:
    """Play ``seat``'s AI move if the match is still at ``version``; returns what happened.

    ``status`` is ``applied`` (with the new ``version``; ``duplicate`` if an
    earlier run of this job had appended it), ``stale``, ``finished``,
    ``not-active`` or ``rejected`` (with the error ``code``).
    """
    current = matches.store.version(match_id)
    if current != version:
        log.info("job %s: stale (match at v%d)", job_id, current)
        return {"status": "stale", "version": current}
    loaded = matches.load(match_id, version)
    record, state = loaded.record, loaded.folded.state
    game = matches.game(record)
    if game.outcome(state) is not None:
        return {"status": "finished", "version": current}
    level = record.seats[seat].ai
    if level is None or seat not in game.active_seats(state):
        return {"status": "not-active", "version": current}
    extra = matches.registry.ai_policies(game)
    if level not in extra and level not in matches.ai_levels(game):
        log.error("job %s: AI level %r is not installed for %s; playing random", job_id, level, record.game)
        extra = {**extra, level: random_policy}
    view = game.view(state, seat)
    legal = game.legal_moves(state, seat)
    started = time.monotonic()
    move = choose_move(game, level, view, seat, legal, ai_rng(job_id), num_seats=record.num_seats,
                       extra=extra, **budget)
    thought = time.monotonic() - started
    try:
        result = matches.submit(match_id, seat, move, expected_version=version, idempotency_key=job_id,
                                actor=f"ai:{level}")
    except GameroomError as exc:
        log.info("job %s: not applied (%s)", job_id, exc.code)
        return {"status": "rejected", "code": exc.code, "seconds": thought}
    log.info("job %s: seat %d played %s in %.3fs -> v%d", job_id, seat, move.get("type"), thought, result.version)
    return {"status": "applied", "version": result.version, "duplicate": result.duplicate, "seconds": thought}


def play_ai_turn(match_id: str, version: int, seat: int) -> dict:
    """RQ job: play ``seat``'s move in ``match_id`` at ``version`` (see the module docstring)."""
    from rq import get_current_job

    job = get_current_job()
    return play_turn(matches_for(job.connection, job.origin), match_id, version, seat, job.id)


def noop() -> None:
    """A job that does nothing: the baseline of the AI latency benchmark (the bare RQ round trip)."""
