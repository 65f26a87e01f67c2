"""Clocks and their timeouts: where a clock's timeout is applied, whoever notices it first.

A match with a clock runs it from its ``start`` entry (:func:`start_clocks`, appended once the
last seat is claimed; :func:`ensure_started` for an action racing that claim). The time itself
is arithmetic on the log's times in :mod:`gameroom.core.lifecycle` (``timed_seats``,
``out_of_time``, ``timeout_entry``). A seat whose time ran out gets its match's timeout policy
by :func:`time_out`, reached three ways, all at the version the timeout was judged on so that
one timeout is applied however they race:

- the clock's RQ job (:mod:`gameroom.workers.timeouts`) calls :func:`timeout_due`;
- a late move of the seat (:mod:`gameroom.application.moves`) applies it instead of the move;
- a late leave or undo (:func:`check_in_time`) applies it first and is refused as stale.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, cast

from ..core import lifecycle
from ..core.matches import ACTIVE, FINISHED, status_of
from ..errors import Conflict, VersionConflict
from .loaded import Loaded

if TYPE_CHECKING:
    from .matches import Matches

log = logging.getLogger("gameroom.application")  # its name from before the split: log lines are unchanged


def ensure_started(matches: Matches, loaded: Loaded) -> Loaded:
    """See :meth:`gameroom.application.Matches.ensure_started`."""
    overlay = loaded.folded.lifecycle
    if overlay is None or overlay["started"] or not loaded.record.full or loaded.record.read_only:
        return loaded
    loaded = start_clocks(matches, loaded)
    if not cast(dict, loaded.folded.lifecycle)["started"]:
        raise Conflict("The match is too busy; try again.", code="busy")
    return loaded


def start_clocks(matches: Matches, loaded: Loaded) -> Loaded:
    """Append the ``start`` entry once the last seat is claimed (racing claims: one appends)."""
    for _attempt in range(matches.append_retries):
        if cast(dict, loaded.folded.lifecycle)["started"]:
            return loaded
        try:
            return matches.append(
                loaded, lifecycle.entry(lifecycle.START, None, num_seats=loaded.record.num_seats)
            )
        except VersionConflict as conflict:
            matches.caches.folds.forget_beyond(loaded.record.id, conflict.current_version)
            loaded = matches.load(loaded.record.id)
    return loaded


def check_in_time(matches: Matches, loaded: Loaded, seat: int) -> None:
    """See :meth:`gameroom.application.Matches.check_in_time`."""
    if loaded.folded.lifecycle is None or not lifecycle.out_of_time(
        loaded.record, loaded.folded, seat, matches.clock()
    ):
        return
    try:
        time_out_instead(matches, loaded, seat)
    except VersionConflict:
        raise Conflict("The match moved on; try again.", code="stale-version") from None


def time_out_instead(matches: Matches, loaded: Loaded, seat: int) -> None:
    """Refuse a move of ``seat``, whose time has run out, with ``out-of-time``, having applied the
    match's timeout policy first (VersionConflict if the match moved since ``loaded``).

    The timeout is due whoever notices it first; appended here, at the version the move was
    judged on, a late move cannot slip in before the timeout job runs, and that job finds the
    match moved on. It is the same entry the job would append, with the same version check,
    so however the two race, one timeout is applied.
    """
    due = lifecycle.timed_seats(loaded.record, loaded.folded)[seat]
    new = time_out(matches, loaded, seat)
    raise Conflict(
        f"Seat {seat}'s time ran out; the match's timeout policy "
        f"({cast(dict, loaded.folded.lifecycle)['policy']['action']}) was applied instead of this move.",
        code="out-of-time",
        current_version=new.version,
        deadline=due,
    )


def time_out(matches: Matches, loaded: Loaded, seat: int) -> Loaded:
    """Append the timeout of ``seat`` (the match's timeout policy) at ``loaded``'s version;
    VersionConflict if the match moved. The caller checked that the seat's time ran out."""
    game = matches.game(loaded.record)
    entry = lifecycle.timeout_entry(game, loaded.folded, seat, loaded.record.num_seats)
    entry["num_seats"] = loaded.record.num_seats
    new = matches.append(loaded, entry)
    log.info(
        "match %s: seat %d ran out of time at v%d (%s)",
        loaded.record.id,
        seat,
        loaded.version,
        entry["policy"]["action"],
    )
    return new


def timeout_due(matches: Matches, match_id: str, version: int, seat: int, now: float) -> dict:
    """Apply the timeout policy to ``seat`` if the match is still at ``version`` and its time ran out.

    Returns ``{"status": ...}``: ``applied`` (with ``version``), ``stale``
    (something was appended since: a move in time), ``early`` (with the
    ``deadline``: the clock has not run out yet), ``not-running`` or ``finished``.
    A move of the seat after its deadline applies the same timeout first
    (:meth:`Matches.submit`), at the same version: whichever comes first applies it.
    """
    loaded = matches.load(match_id)
    if loaded.version != version:
        return {"status": "stale", "version": loaded.version}
    status = status_of(loaded.record, matches.game(loaded.record), loaded.folded.state, loaded.folded)
    if status != ACTIVE:
        return {"status": "finished" if status == FINISHED else "not-running"}
    due = lifecycle.timed_seats(loaded.record, loaded.folded).get(seat)
    if due is None:
        return {"status": "not-running"}
    if now < due:
        return {"status": "early", "deadline": due}
    try:
        new = time_out(matches, loaded, seat)
    except VersionConflict:
        return {"status": "stale", "version": matches.store.version(match_id)}
    return {"status": "applied", "version": new.version}
