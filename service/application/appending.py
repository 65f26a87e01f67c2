"""Appending a platform-made entry (a start, an undo, a timeout, a lifecycle action) and what
follows every append (:func:`announce`).

A client's move is appended by :mod:`gameroom.application.moves`, which decides it first;
everything here appends an entry the platform built, at the version it was built on
(VersionConflict if the match moved since).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import faults
from ..core import decider, lifecycle
from ..core.matches import status_of
from ..core.moves import ai_to_move
from ..errors import Conflict, GameroomError, VersionConflict
from .idempotency import check_fingerprint
from .loaded import Loaded

if TYPE_CHECKING:
    from ..eventstore import AppendResult
    from .matches import Matches

log = logging.getLogger("gameroom.application")  # its name from before the split: log lines are unchanged


def append(matches: Matches, loaded: Loaded, entry: dict, idempotency_key: str | None = None) -> Loaded:
    """See :meth:`gameroom.application.Matches.append`."""
    return append_made(matches, loaded, entry, idempotency_key, None)[0]


def append_once(
    matches: Matches, loaded: Loaded, entry: dict, key: str, fingerprint: str
) -> tuple[Loaded, int]:
    """See :meth:`gameroom.application.Matches.append_once`."""
    new, result = append_made(matches, loaded, entry, key, fingerprint)
    if result.duplicate:
        check_fingerprint(result.fingerprint or "", fingerprint)
    return new, result.version


def append_made(
    matches: Matches, loaded: Loaded, entry: dict, key: str | None, fingerprint: str | None
) -> tuple[Loaded, AppendResult]:
    """Append a platform-made ``entry``: the match after it (as it is now, for a key seen
    before) and the store's result."""
    game = matches.game(loaded.record)
    entry = {**entry, "time": matches.clock(), "rules_version": game.info.rules_version}
    after = decider.apply_entry(game, loaded.folded, {**entry, "version": loaded.version + 1})
    result = matches.store.append(
        loaded.record.id,
        entry,
        loaded.version,
        idempotency_key=key,
        fingerprint=fingerprint,
        ai_seats=ai_to_move(loaded.record, game, after),
        clocks=lifecycle.timed_seats(loaded.record, after),
    )
    if result.duplicate:
        return matches.load(loaded.record.id), result
    entry["version"] = result.version
    new = Loaded(loaded.record, after)
    matches.caches.folds.put(loaded.record.id, new.folded)
    announce(matches, new, entry)
    return new, result


def append_built(
    matches: Matches, match_id: str, build: Callable[[Loaded], dict], key: str | None = None
) -> tuple[Loaded, dict | None]:
    """Append ``build(loaded)``'s entry at the latest version; retried if the match moved meanwhile.

    ``key``: append it only once (see :meth:`Matches.append`)."""
    for _attempt in range(matches.append_retries):
        loaded = matches.ensure_started(matches.load(match_id))
        entry = build(loaded)
        try:
            new = matches.append(loaded, entry, idempotency_key=key)
        except VersionConflict:
            continue
        return new, matches.store.entry(match_id, new.version)
    raise Conflict("The match is too busy; try again.", code="busy")


def announce(matches: Matches, loaded: Loaded, entry: dict | None, progress_saved: bool = False) -> None:
    """What follows an append (or a match stored whole: ``entry`` None): the lobby's progress
    (unless ``progress_saved``: the append saved it), a snapshot every ``snapshot_every``
    versions, the plugins' ``gameroom_entry_appended`` observers and the ``after_append``
    callbacks (AI and timeout scheduling). An observer's failure is logged, never raised: the
    entry is in the log already."""
    faults.point("after-append")  # crash tests: the entry is stored, no AI job enqueued yet
    record, folded = loaded.record, loaded.folded
    game = matches.game(record)
    if not progress_saved:
        matches.records.set_progress(record.id, status_of(record, game, folded.state, folded), folded.version)
    if matches.snapshot_every and folded.version % matches.snapshot_every == 0:
        snapshot = folded.to_snapshot() | {"code_rules_version": game.info.rules_version}
        matches.store.save_snapshot(record.id, folded.version, snapshot)
    observers = matches.registry.pm.hook.gameroom_entry_appended
    if entry is not None and observers.get_hookimpls():  # pluggy's call costs more than the check
        try:
            observers(match_id=record.id, entry=entry)
        except Exception:  # an observer must not undo an accepted move
            log.exception("gameroom_entry_appended observer failed for match %s", record.id)
    for callback in matches.after_append:
        try:
            callback(matches, loaded, entry)
        except GameroomError:
            raise
        except Exception:  # an observer must not undo an accepted move
            log.exception("after-append callback %r failed for match %s", callback, record.id)
