"""A seat's move, in one straight path: load -> decide -> append -> after.

1. **Load** the match (:meth:`Matches.open`, maybe from this process's caches) and check what
   the core cannot: a read-only import, open seats, a spectator, a revoked token, clocks not
   started yet, move keys the game does not declare, a seat out of time (its timeout is applied
   instead: :mod:`gameroom.application.clocks`), a seat an AI plays, a stale
   ``expected_version``; then read the seat's draft.
2. **Decide** with the pure core in one call (:func:`gameroom.core.moves.decide_move`): the
   entry, the match after it, its status, the AI seats to move and the clocks' deadlines; or a
   sealed step for the seat's draft.
3. **Append** what was decided at the version it was decided on (the store checks the version,
   the idempotency key and the seat's draft atomically), or push the sealed step to the draft.
4. **After**: cache the new fold and announce the entry (:func:`gameroom.application.appending.announce`:
   progress, snapshot, observers, AI and timeout scheduling).

A match loaded with ``fresh=False`` may be behind the store: whatever is refused on it is judged
again on a fresh load, and a version conflict on the append (the match moved) loads again; both
are retried up to ``append_retries`` times (then ``busy``). Idempotency keys: see
:mod:`gameroom.application.idempotency`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .. import tagged
from ..core import decider, lifecycle
from ..core.matches import hash_token
from ..core.moves import NewEntry, SealedStep, decide_move
from ..errors import (
    Conflict,
    GameroomError,
    NotYourSeat,
    Unauthorized,
    ValidationFailed,
    VersionConflict,
)
from ..eventstore.drafts import DraftFlush
from ..plugin_api import Game
from .appending import announce
from .clocks import time_out_instead
from .idempotency import check_fingerprint, key_reused, prior, replayed, request_fingerprint
from .loaded import Loaded, MoveResult, has_drafts

if TYPE_CHECKING:
    from .matches import Matches

log = logging.getLogger("gameroom.application")  # its name from before the split: log lines are unchanged


def submit(
    matches: Matches,
    match_id: str,
    seat: int,
    move: dict,
    *,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    actor: str | None = None,
    loaded: Loaded | None = None,
    maybe_behind: bool = False,
    token: str | None = None,
) -> MoveResult:
    """See :meth:`gameroom.application.Matches.submit`."""
    key = f"{seat}:{idempotency_key}" if idempotency_key else None
    if key is None:
        return _submit(
            matches, match_id, seat, move, expected_version, None, None, actor, loaded, maybe_behind, token
        )
    fingerprint = request_fingerprint(move, expected_version)
    # A fresh ``loaded`` still at ``expected_version`` proves the key unused: its first use
    # appended after that version, and a log only grows (the append checks the key anyway).
    # Not where steps may wait in a draft: a sealed step's key is used without an entry.
    unused = (
        loaded is not None
        and not maybe_behind
        and expected_version == loaded.version
        and not has_drafts(matches.game(loaded.record))
    )
    replay = None if unused else prior(matches, match_id, seat, key, fingerprint, loaded)
    if replay is not None:
        return replay
    try:
        return _submit(
            matches,
            match_id,
            seat,
            move,
            expected_version,
            key,
            fingerprint,
            actor,
            loaded,
            maybe_behind,
            token,
        )
    except GameroomError:
        # A retry that overlapped its original may have been judged on the state the
        # original made (its move no longer legal, a stale version, a busy match): the
        # original's append wrote the key atomically with its entry, so look again and
        # answer with the original's result rather than refuse a move that was applied.
        replay = prior(matches, match_id, seat, key, fingerprint, None)
        if replay is None:
            raise
        return replay


def _submit(
    matches: Matches,
    match_id: str,
    seat: int,
    move: dict,
    expected_version: int | None,
    key: str | None,
    fingerprint: str | None,
    actor: str | None,
    loaded: Loaded | None,
    maybe_behind: bool,
    token: str | None,
) -> MoveResult:
    """The re-judge loop: load, check, decide, append; again on a conflict or a stale cache."""
    # A ``loaded`` from open(fresh=False) may be behind the store: the append's
    # version check catches that, and anything refused on it is re-checked fresh.
    fresh = loaded is None or not maybe_behind
    if (
        not fresh
        and expected_version is not None
        and loaded is not None
        and expected_version != loaded.version
    ):
        loaded = None
    fresh_draft = loaded is not None and loaded.drafted  # the draft was read with ``loaded``
    for _attempt in range(matches.append_retries):
        if loaded is None:
            loaded, fresh, fresh_draft = matches.load(match_id), True, False
        ready = _ready(matches, loaded, seat, move, token)  # 1. load: the checks the core cannot make
        if ready is None:  # the match moved under the timeout applied instead of the move
            loaded = None
            continue
        loaded, started, game, now = ready
        if started:
            fresh, fresh_draft = True, False
        try:  # 2. decide (judged again on a fresh load if refused on a cached one)
            _check_seat(matches, loaded, seat, expected_version, actor)
            if not fresh_draft:
                loaded, fresh_draft = matches.with_draft(loaded, seat), True
            decision = decide_move(
                game, loaded.record, loaded.folded, loaded.seen, loaded.draft, seat, move, now, actor
            )
        except GameroomError:
            if fresh:
                raise
            loaded = None  # judged on a cached fold: judge again on the latest
            continue
        try:  # 3. append, 4. after
            if isinstance(decision, SealedStep):
                return seal(matches, loaded, seat, decision, key, fingerprint)
            return append_move(matches, loaded, seat, decision, key, fingerprint)
        except VersionConflict as conflict:
            matches.caches.folds.forget_beyond(match_id, conflict.current_version)
            loaded = None
    raise Conflict("The match is too busy; try again.", code="busy")


def _ready(
    matches: Matches, loaded: Loaded, seat: int, move: dict, token: str | None
) -> tuple[Loaded, bool, Game, float] | None:
    """Step 1 of a move: refuse what the core cannot judge, start the clocks if the last claim
    left them unstarted, and apply the timeout instead if the seat's time ran out (refused with
    out-of-time). Returns the match (and whether the clocks were started here), its game and
    the move's time; None if the match moved under the timeout (load again)."""
    check_may_move(loaded, seat, token)
    started = False
    if loaded.folded.lifecycle is not None and not loaded.folded.lifecycle["started"]:
        loaded, started = matches.ensure_started(loaded), True
    record, folded = loaded.record, loaded.folded
    game = matches.game(record)
    check_move_keys(matches, record.game, game, move)
    now = matches.clock()  # the move's time: before its seat's deadline, or refused
    if folded.lifecycle is not None and lifecycle.out_of_time(record, folded, seat, now):
        try:
            time_out_instead(matches, loaded, seat)
        except VersionConflict as conflict:  # the match moved (maybe this very timeout)
            matches.caches.folds.forget_beyond(record.id, conflict.current_version)
            return None
    return loaded, started, game, now


def _check_seat(
    matches: Matches, loaded: Loaded, seat: int, expected_version: int | None, actor: str | None
) -> None:
    """Refuse a move of a seat an AI plays (unless the AI makes it), or one stale since
    ``expected_version``."""
    if lifecycle.taken_over(loaded.folded, seat) and not (actor or "").startswith("ai:"):
        raise Conflict("An AI plays this seat now.", code="seat-played-by-ai")
    if expected_version is not None and expected_version != loaded.folded.version:
        check_not_stale(matches, loaded, seat, expected_version)


def check_may_move(loaded: Loaded, seat: int | None, token: str | None) -> None:
    """Refuse a move on a read-only import, a match not started, by a spectator or with a
    token its seat revoked."""
    record, folded = loaded.record, loaded.folded
    if record.read_only:
        raise Conflict("This match is a read-only import.", code="read-only")
    if not record.full:
        raise Conflict("The match has open seats and has not started.", code="match-not-started")
    if seat is None or not 0 <= seat < record.num_seats:
        raise NotYourSeat("Spectators cannot move.")
    if token is not None and folded.lifecycle is not None and lifecycle.revoked(folded, hash_token(token)):
        raise Unauthorized("The token is not valid for this match.", code="bad-token")


def check_move_keys(matches: Matches, slug: str, game, move: dict) -> None:
    """Refuse a move with keys its type does not declare: they would be stored and echoed back."""
    allowed = matches.caches.move_keys.get(slug)
    if allowed is None:
        allowed = matches.caches.move_keys[slug] = tagged.move_keys(game.schemas())
    extra = tagged.unknown_keys(allowed, move)
    if extra:
        raise ValidationFailed(
            f"This move does not take {', '.join(repr(k[:40]) for k in extra[:5])}.",
            code="unknown-move-field",
            errors={"move": {k[:40]: ["Unknown field."] for k in extra[:20]}},
        )


def check_not_stale(matches: Matches, loaded: Loaded, seat: int, expected: int) -> None:
    """Refuse with ``stale-version`` unless what ``seat`` could do is unchanged since ``expected``.

    In simultaneous phases other seats' steps do not touch this seat's options,
    so its move goes through; in turn-based play the turn passing, or the
    seat's own later move, changes its legal moves and the move is stale.
    """
    current = loaded.folded.version
    if expected > current or expected < 1:
        raise VersionConflict(current, f"The match is at version {current}, not {expected}.")
    if any(
        e.get("seat") == seat or e["kind"] != "move" for e in matches.store.read(loaded.record.id, expected)
    ):
        raise VersionConflict(current, f"The match moved on to version {current}.")
    game = matches.game(loaded.record)
    then = matches.load(loaded.record.id, expected).folded.state
    if game.legal_moves(then, seat) != game.legal_moves(loaded.folded.state, seat):
        raise VersionConflict(current, f"The match moved on to version {current}.")


def append_move(
    matches: Matches,
    loaded: Loaded,
    seat: int,
    decision: NewEntry,
    key: str | None,
    fingerprint: str | None,
) -> MoveResult:
    """Append the decided entry (carrying the seat's draft, if any) after ``loaded``, then what
    follows an append; VersionConflict if the match moved. A key used before answers as its
    first use did."""
    record, folded, entry = loaded.record, loaded.folded, decision.entry
    # Checked in the append even when the draft is empty, so that a sealed step racing this
    # one is never left behind.
    draft = DraftFlush(seat, decision.barrier, len(loaded.draft)) if decision.drafts else None
    result = matches.store.append(
        record.id,
        entry,
        folded.version,
        key,
        status=decision.status,
        fingerprint=fingerprint,
        ai_seats=decision.ai_seats,
        draft=draft,
        clocks=decision.clocks,
    )
    if result.duplicate:
        return replayed(matches, record.id, result.version, result.fingerprint, fingerprint)
    entry["version"] = result.version
    new = Loaded(record, decision.after)
    matches.caches.folds.put(record.id, new.folded)
    announce(matches, new, entry, progress_saved=True)
    return MoveResult(result.version, entry, new)


def seal(
    matches: Matches,
    loaded: Loaded,
    seat: int,
    decision: SealedStep,
    key: str | None,
    fingerprint: str | None,
) -> MoveResult:
    """Keep the sealed step in ``seat``'s draft: nothing is appended, no one else learns of it
    (see :mod:`gameroom.eventstore.drafts`); VersionConflict if the match or the draft moved
    since ``loaded``."""
    record, folded = loaded.record, loaded.folded
    result = matches.store.push_draft(
        record.id,
        seat,
        decision.step,
        folded.version,
        decision.barrier,
        len(loaded.draft),
        key,
        fingerprint,
    )
    if result.duplicate:
        if result.reused:  # an undo of this draft used the key
            raise key_reused()
        if result.version is not None:
            return replayed(matches, record.id, result.version, result.fingerprint, fingerprint)
        replay = prior(matches, record.id, seat, key, fingerprint, loaded) if key and fingerprint else None
        if replay is not None:
            return replay
        raise Conflict("The match is too busy; try again.", code="busy")
    mine = Loaded(record, folded, loaded.draft + (decision.step,), decision.own, drafted=True)
    log.debug("match %s: seat %d sealed step %d", record.id, seat, result.count)
    return MoveResult(folded.version, decision.entry | {"version": folded.version}, mine, sealed=True)


def undo_draft(
    matches: Matches,
    loaded: Loaded,
    seat: int,
    steps: int,
    key: str | None = None,
    fingerprint: str | None = None,
) -> Loaded:
    """See :meth:`gameroom.application.Matches.undo_draft`."""
    result = matches.store.pop_draft(
        loaded.record.id,
        seat,
        decider.barrier(loaded.folded),
        len(loaded.draft),
        steps,
        idempotency_key=key,
        fingerprint=fingerprint,
    )
    if result.reused:
        raise key_reused()
    if result.duplicate:  # a repeat of an undo done already: nothing was dropped this time
        check_fingerprint(result.fingerprint or "", fingerprint)
    return matches.with_draft(loaded, seat)
