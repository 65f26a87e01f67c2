"""The AI job: load, ask the seat's policy from its view only, submit like any client.

:func:`play_ai_turn` is what RQ runs (arguments: ids only); :func:`play_turn`
is the same without RQ, for tests and tools.

A job loads the match once (:meth:`Matches.open`) and submits its move on
that load: the append still checks the version, so a race is refused as it
would be after a second load, without the second load.

A job is *stale* when the match is no longer at the version it was enqueued
for: it moved on (an opponent's move in a simultaneous phase), was undone, or
ended. The scheduler enqueues a job for every AI seat still active at every
new version, so a stale job can simply finish without effect. A job that got
as far as submitting races only with newer jobs of its own seat; the submit
carries the version it saw (``expected_version``: refused if what the seat
sees changed since) and the job id as idempotency key, so a job retried after
its worker died appends at most once.

**Sealed steps.** Where the game seals a seat's steps (``Game.sealed_steps``),
they go to the seat's draft and append nothing, so no new job follows each:
the job plays on from the seat's own view (its draft included) until a step
reaches the log (its confirm), each step under the key ``<job id>:<steps in
the draft>``. If another seat's entry moves the match meanwhile, the job
stops (``stale``): the job for the new version goes on from the draft.

**Fallback.** A job that fails every attempt RQ gives it (its policy raises,
times out, or its work horse or whole worker dies each time) would leave the
seat stuck: its id stays in the failed registry, so the scheduler's
``unique`` enqueue refuses it at that version, and nothing else moves the
match. So after the *last* failed attempt the seat plays a fallback move
(:func:`fall_back`): the platform's ``random`` level, from the seat's view
only, submitted like any job's move with the same ``expected_version`` and the
idempotency key ``<job id>:fallback``. Whichever of the fallback and a late
run of the original appends first makes the other stale, so at most one of
them appends. Every fallback is logged at ERROR level; a fallback that fails
too (the match is gone, Redis is down) is logged and given up.

Where it hooks into RQ (3.x), chosen so that every way a job can fail ends in
one of them, and each of them as soon as RQ knows the job has failed for good:

- :func:`on_ai_job_failure`, the job's ``on_failure`` callback. RQ calls it
  on *every* failed attempt, before it decides whether to retry, both when
  the job raised (also a timeout, which raises in the work horse) and when
  a worker's maintenance finds the job abandoned by a dead worker
  (``StartedJobRegistry.cleanup``, with ``AbandonedJobError``; in the upkeep
  thread of ``gameroom worker``, under
  :class:`gameroom.workers.worker.ThreadDeathPenalty`, since RQ's default
  time limit works in a main thread only). The callback
  acts only when ``job.retries_left`` is 0 (or unset): the last attempt.
- :func:`on_work_horse_killed`, the ``work_horse_killed_handler`` of
  :class:`gameroom.workers.worker.AIWorker`. RQ runs no failure callback when
  a live worker sees its horse die (OOM killer, a signal, the worker's own
  hard timeout), only this handler, with the same ``retries_left`` rule. It
  is a worker option, so run AI jobs on ``gameroom worker`` (a plain
  ``rq worker`` still falls back for the other two cases).

Doing it inside the job function instead (catching the policy's exception on
the last attempt) would miss the attempts that never get to run Python's
``except``: a killed horse or a dead worker. A sweep of the failed registry
in the workers' maintenance would cover everything, but only every
maintenance interval and with bookkeeping of its own; RQ's two hooks are
immediate and need none.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time

from ..ai import builtin_levels, choose_move
from ..ai.levels import random_policy
from ..application import Matches, has_drafts
from ..composition import compose, shared_clients
from ..config import Config
from ..core import lifecycle
from ..errors import GameroomError
from ..plugin_api import Rng

log = logging.getLogger(__name__)

#: The level a seat falls back to when its own failed every attempt (always available).
FALLBACK_LEVEL = "random"

_REGISTRY = None
#: This process's object graph (see :func:`use_wiring`).
_WIRING = None


def use_registry(registry) -> None:
    """Use ``registry`` for the jobs of this process (and of the work horses it forks) when no
    :func:`use_wiring` was made; tests use it to play games that are not installed."""
    global _REGISTRY
    _REGISTRY = registry


def current_registry():
    """The registry jobs use: the one set by :func:`use_registry`, else the installed plugins."""
    if _REGISTRY is None:
        from ..registry import build_registry

        use_registry(build_registry())
    return _REGISTRY


def use_wiring(wiring) -> None:
    """Run the jobs of this process, and of the work horses it forks, on ``wiring``
    (a :class:`gameroom.composition.Wiring`, or None to forget it).

    ``gameroom worker`` builds it once, before it forks (:func:`gameroom.workers.worker.prepare`):
    every horse inherits the registry, the clients and the seed secret instead of building them
    per job.
    """
    global _WIRING
    _WIRING = wiring


def job_matches(job) -> Matches:
    """The application layer of an RQ job: the process's (:func:`use_wiring`) when it serves the
    job's queue on the job's Redis; else (a plain ``rq worker``, tests) one built on the job's
    Redis, which then holds the events and the queue, and kept for this process's next jobs."""
    wiring = _process_wiring()
    if (
        wiring is not None
        and wiring.config.queue == job.origin
        and _same_redis(wiring.clients.queue, job.connection)
    ):
        return wiring.matches
    registry = current_registry()
    key = (job.origin, _redis_identity(job.connection), id(registry))
    built = _BUILT.get(key)
    if built is None:
        config = Config.from_env(queue=job.origin)
        built = _BUILT[key] = compose(
            config, registry, clients=shared_clients(job.connection), scheduling=True
        )
    return built.matches


#: Wirings :func:`job_matches` built from jobs, by queue, Redis and registry.
_BUILT: dict = {}
_THREAD = threading.local()


def _process_wiring():
    """:func:`use_wiring`'s, in the main thread (the one that forks work horses); another
    thread (the worker's upkeep, which runs RQ's failure callbacks of abandoned jobs) gets a
    copy of its own, built once: a lock it held while the main thread forked would stay held
    in the horse."""
    wiring = _WIRING
    if wiring is None or threading.current_thread() is threading.main_thread():
        return wiring
    own = getattr(_THREAD, "wiring", None)
    if own is None or own[0] is not wiring:
        own = _THREAD.wiring = (wiring, compose(wiring.config, wiring.registry))
    return own[1]


def _redis_identity(client) -> tuple:
    """Which Redis server and database ``client`` talks to."""
    kwargs = client.connection_pool.connection_kwargs
    db = int(kwargs.get("db") or 0)
    if kwargs.get("path"):
        return (kwargs["path"], db)
    return (kwargs.get("host") or "localhost", int(kwargs.get("port") or 6379), db)


def _same_redis(a, b) -> bool:
    return a is b or _redis_identity(a) == _redis_identity(b)


def ai_rng(key: str) -> Rng:
    """The policy's randomness, from ``Seeding.ai_seed(job id)`` (so a retry thinks alike), never the match seed."""
    return Rng(int.from_bytes(hashlib.sha256(key.encode()).digest()[:16], "big"))


def fallback_key(job_id: str) -> str:
    """Idempotency key (and AI randomness) of the fallback move of job ``job_id``."""
    return f"{job_id}:fallback"


def play_turn(
    matches: Matches, match_id: str, version: int, seat: int, job_id: str, *, fallback: bool = False, **budget
) -> dict:
    """Play ``seat``'s AI move if the match is still at ``version``; returns what happened.

    ``status`` is ``applied`` (with the new ``version``; ``duplicate`` if an
    earlier run of this job had appended it), ``stale``, ``finished``,
    ``not-active`` or ``rejected`` (with the error ``code``).

    With ``fallback`` the seat plays the platform's ``random`` level instead
    of its own, under the idempotency key :func:`fallback_key` (see the
    module docstring).
    """
    loaded = matches.open(match_id)[0]  # the latest: one load, which the submit below reuses
    not_to_play = _not_to_play(matches, loaded, version, seat, job_id)
    if not_to_play is not None:
        return not_to_play
    record = loaded.record
    game = matches.game(record)
    key, actor, level, extra = _player(matches, game, loaded, seat, job_id, fallback)
    # Sealed steps (see the module docstring): a retried job replays what it did and goes on.
    mine = matches.with_draft(loaded, seat)
    thought = 0.0
    for _step in range(max(game.info.max_steps or 0, 1)):
        step_key = f"{key}:{len(mine.draft)}" if mine.draft else key
        started = time.monotonic()
        move = _choose(matches, game, level, mine, seat, step_key, extra, budget)
        thought += time.monotonic() - started
        try:
            result = matches.submit(
                match_id,
                seat,
                move,
                expected_version=version,
                idempotency_key=step_key,
                actor=actor,
                loaded=mine,  # the load above (and the draft read with it): no second fold
            )
        except GameroomError as exc:
            stop, mine = _after_refusal(matches, match_id, game, version, seat, mine, exc, job_id)
            if stop is None:
                continue
            return {**stop, "seconds": thought}
        if not result.sealed:
            break
        if matches.store.version(match_id) != version:
            # Another seat's entry came in: the AI-turn marker now names this seat at the new
            # version, whose job goes on from this draft (choosing again if this one's last
            # step raced its first).
            log.info("job %s: handed over after %d sealed steps", job_id, len(result.loaded.draft))
            return {"status": "stale", "version": matches.store.version(match_id), "seconds": thought}
        mine = result.loaded
    log.info(
        "job %s: seat %d played %s in %.3fs -> v%d", job_id, seat, move.get("type"), thought, result.version
    )
    return {"status": "applied", "version": result.version, "duplicate": result.duplicate, "seconds": thought}


def _choose(
    matches: Matches, game, level: str, mine, seat: int, step_key: str, extra: dict, budget: dict
) -> dict:
    """The AI's move from the seat's own view (with its draft), with the randomness of ``step_key``."""
    state = mine.seen.state
    view = game.view(state, seat)
    legal = game.legal_moves(state, seat)
    rng = ai_rng(matches.seeding.ai_seed(step_key))
    num_seats = mine.record.num_seats
    return choose_move(game, level, view, seat, legal, rng, num_seats=num_seats, extra=extra, **budget)


def _not_to_play(matches: Matches, loaded, version: int, seat: int, job_id: str) -> dict | None:
    """Why the job plays nothing (``stale``, ``finished``, ``not-active``), or None when it plays."""
    current = loaded.version
    if current != version:
        log.info("job %s: stale (match at v%d)", job_id, current)
        return {"status": "stale", "version": current}
    game = matches.game(loaded.record)
    if lifecycle.outcome(game, loaded.folded) is not None:
        return {"status": "finished", "version": current}
    level = lifecycle.ai_level(loaded.record, loaded.folded, seat)  # an AI seat's, or a takeover's
    if level is None or seat not in game.active_seats(loaded.folded.state):
        return {"status": "not-active", "version": current}
    return None


def _player(
    matches: Matches, game, loaded, seat: int, job_id: str, fallback: bool
) -> tuple[str, str, str, dict]:
    """``(idempotency key, actor, level, extra policies)`` of the seat's AI (or of the fallback)."""
    record = loaded.record
    level = lifecycle.ai_level(record, loaded.folded, seat)
    key, actor = job_id, f"ai:{level}"
    if fallback:
        # The platform's own random level: a game's ai_policies may not override it here.
        return fallback_key(job_id), f"ai:{level}:fallback", FALLBACK_LEVEL, {FALLBACK_LEVEL: random_policy}
    extra = matches.registry.ai_policies(game)
    if level not in extra and level not in builtin_levels(game):
        log.error("job %s: AI level %r is not installed for %s; playing random", job_id, level, record.game)
        extra = {**extra, level: random_policy}
    return key, actor, level, extra


def _after_refusal(matches: Matches, match_id: str, game, version: int, seat: int, mine, exc, job_id: str):
    """After ``submit`` refused the job's move: ``(what the job returns, mine)``, or ``(None, now)``
    to choose again from the seat's draft as it now is."""
    now = matches.with_draft(matches.load(match_id), seat) if has_drafts(game) else None
    if now is not None and now.version != version and mine.draft:
        log.info("job %s: handed over after %d sealed steps", job_id, len(mine.draft))
        return {"status": "stale", "version": now.version}, mine
    if now is not None and now.draft != mine.draft:
        # The job of an earlier version added a sealed step between this one's look at the
        # draft and its move (it stops once it sees the new version): choose again.
        return None, now
    log.info("job %s: not applied (%s)", job_id, exc.code)
    return {"status": "rejected", "code": exc.code}, mine


def play_ai_turn(match_id: str, version: int, seat: int) -> dict:
    """RQ job: play ``seat``'s move in ``match_id`` at ``version`` (see the module docstring)."""
    from rq import get_current_job

    job = get_current_job()
    return play_turn(job_matches(job), match_id, version, seat, job.id)  # bench_ai_roundtrips does the same


def fall_back(job, failure: str) -> dict | None:
    """Play the fallback move of AI job ``job``, which failed for good with ``failure``.

    Logs at ERROR level what failed and what the fallback did; returns
    :func:`play_turn`'s result, or ``None`` if the fallback failed too (it
    is logged, not raised).
    """
    match_id, version, seat = job.args  # play_ai_turn's
    level = (job.meta or {}).get("level", "?")
    what = (
        f"AI job {job.id}: level {level!r} of seat {seat} in match {match_id} at v{version} "
        f"failed after all retries ({failure})"
    )
    try:
        result = play_turn(job_matches(job), match_id, version, seat, job.id, fallback=True)
    except Exception:
        log.exception("%s; the fallback move failed too (traceback below); giving up", what)
        return None
    if result["status"] == "applied":
        log.error("%s; played a fallback move (level %r) -> v%d", what, FALLBACK_LEVEL, result["version"])
    else:
        log.error(
            "%s; no fallback move played (%s%s)",
            what,
            result["status"],
            f": {result['code']}" if "code" in result else "",
        )
    return result


def _describe(exc_type, exc_value) -> str:
    name = getattr(exc_type, "__name__", str(exc_type))
    text = str(exc_value) if exc_value is not None else ""
    return f"{name}: {text}" if text else name


def on_ai_job_failure(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ ``on_failure`` callback of AI jobs: after the last attempt, play the fallback move.

    RQ calls it after every failed attempt, before it retries; a job with
    retries left is left to RQ.
    """
    if job.retries_left:
        return
    fall_back(job, _describe(exc_type, exc_value))


def on_work_horse_killed(job, retpid, ret_val, rusage) -> None:
    """``work_horse_killed_handler`` of the AI worker: as :func:`on_ai_job_failure`, for a killed horse."""
    try:
        from .scheduler import JOB_FUNCTION

        if job.func_name != JOB_FUNCTION or job.retries_left:
            return
        signal = f", signal {os.WTERMSIG(ret_val)}" if ret_val and os.WIFSIGNALED(ret_val) else ""
        fall_back(job, f"work horse {retpid} killed (waitpid status {ret_val}{signal})")
    except Exception:  # the worker itself must go on
        log.exception("fallback for AI job %s failed", getattr(job, "id", job))


def noop() -> None:
    """A job that does nothing: the baseline of the AI latency benchmark (the bare RQ round trip)."""
