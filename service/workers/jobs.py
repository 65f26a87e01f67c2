"""The AI job: load, ask the seat's policy from its view only, submit like any client.

A job is stale when the match moved on in a way the seat can see, was
undone, or ended; it then finishes without effect. The idempotency key is the
job id, so a job retried after its worker died appends at most once.
"""
from __future__ import annotations

import hashlib
import logging

from rq import get_current_job

from ..ai import choose_move
from ..application import Matches
from ..errors import GameroomError
from ..eventstore import EventStore
from ..eventstore.records import MatchRecords
from ..plugin_api import Rng
from ..registry import build_registry

log = logging.getLogger(__name__)

_REGISTRY = None


def _matches(connection) -> Matches:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = build_registry()
    from ..config import Config
    from .scheduler import AIScheduler

    config = Config.from_env()
    matches = Matches(EventStore(connection), MatchRecords(connection), _REGISTRY,
                      snapshot_every=config.snapshot_every)
    matches.after_append.append(AIScheduler(connection, config.queue))
    return matches


def ai_rng(job_id: str) -> Rng:
    """The policy's randomness: from the job id only, never from the match seed."""
    return Rng(int.from_bytes(hashlib.sha256(job_id.encode()).digest()[:16], "big"))


def play_ai_turn(match_id: str, version: int, seat: int) -> dict:
    job = get_current_job()
    matches = _matches(job.connection)
    current = matches.store.version(match_id)
    if current != version:
        log.info("job %s: stale (match at v%d)", job.id, current)
        return {"status": "stale", "version": current}
    loaded = matches.load(match_id, version)
    record, folded = loaded.record, loaded.folded
    game = matches.game(record)
    level = record.seats[seat].ai
    if level is None or seat not in game.active_seats(folded.state):
        return {"status": "not-active"}
    view = game.view(folded.state, seat)
    legal = game.legal_moves(folded.state, seat)
    move = choose_move(game, level, view, seat, legal, ai_rng(job.id), num_seats=record.num_seats,
                       extra=matches.registry.ai_policies(game))
    try:
        result = matches.submit(match_id, seat, move, expected_version=version, idempotency_key=job.id,
                                actor=f"ai:{level}")
    except GameroomError as exc:
        log.info("job %s: not applied (%s)", job.id, exc.code)
        return {"status": "rejected", "code": exc.code}
    log.info("job %s: seat %d played %s -> v%d", job.id, seat, move.get("type"), result.version)
    return {"status": "applied", "version": result.version, "duplicate": result.duplicate}
