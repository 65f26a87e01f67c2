"""Rematch: the next match of a finished one, with the same game, options, settings and seats;
and the release of a rematch's seat kept for a player who never accepted.

The rematch is created once (:func:`rematch`'s lock; racing calls wait for it), and its human
seats are kept for their players until they accept (each gets a token derived from its seat's)
or the creator releases them to anyone (:func:`release`). Each is told in the finished match's
log with a lifecycle entry (see :mod:`gameroom.core.lifecycle`).
"""

from __future__ import annotations

import logging
import time

from ..core import lifecycle
from ..core.matches import FINISHED, MatchRecord, new_match_id, rematch_token
from ..errors import Conflict, Forbidden, NotFound, unknown_match
from ..eventstore.records import NO_MATCH, RELEASED, SEAT_CLAIMED
from .appending import append_built
from .guards import check_admin, status
from .loaded import Loaded
from .matches import Matches

log = logging.getLogger("gameroom.lifecycle")  # its name from before the split: log lines are unchanged

#: The creator of a rematch holds its lock at most this long (a crashed request's lock expires);
#: racing requests wait this long for the match to appear.
REMATCH_LOCK_SECONDS, REMATCH_WAIT_SECONDS = 30, 5.0


def rematch(matches: Matches, match_id: str, seat: int | None, token: str) -> dict:
    """The next match of a finished one: same game, options, settings and seats.

    The first call creates it (human seats reserved for the same seats,
    AI seats keep their level); each human seat that calls gets its token
    there. A seat whose player left it (to an AI, see :func:`gameroom.application.absence.leave`)
    is open instead: its token is retired, so no one could ever accept
    for it. The creator's admin token carries over. ``token``: the seat's
    token when ``seat`` is given, else the admin token. Returns
    ``{"match": Loaded, "seat": n or None, "token": str or None}``.

    Calling again returns the same rematch, and a seat that accepted gets its token
    there again (a player whose answer was lost is not locked out): the token is
    derived from the seat's (:func:`rematch_token`), so every call, racing ones too,
    has the one token its claim stored, and a seat never holds more than one (a leave
    revokes only the token it is given). A seat no longer its player's (its release was
    claimed by someone else, or its player left it there) is refused with seat-taken.
    """
    if seat is None:
        check_admin(matches, match_id, token)
    loaded = matches.load(match_id)
    record = loaded.record
    if seat is not None and record.seats[seat].ai:
        raise Forbidden("An AI seat does not accept rematches.", code="not-your-seat")
    if status(matches, loaded) != FINISHED:
        raise Conflict("A rematch is offered once the match is over.", code="match-not-finished")
    if record.read_only:
        raise Conflict("This match is a read-only import.", code="read-only")
    planned = new_match_id()
    next_id, created_now = matches.records.plan_rematch(match_id, planned)
    if matches.records.get(next_id) is None:
        overlay = loaded.folded.lifecycle
        left = {i for i in range(record.num_seats) if overlay and overlay["left"][i]}
        _create_rematch(matches, record, next_id, left)
    seat_token = None
    if seat is not None:
        seat_token = _accept(matches, next_id, seat, record.seats[seat].name, token)
        matches.seat_claimed(next_id)
        append_built(
            matches,
            match_id,
            lambda _l: lifecycle.entry(lifecycle.REMATCH, seat, num_seats=record.num_seats, next=next_id),
            key=f"rematch:{seat}",  # told once, however often the seat asks
        )
    elif created_now:
        append_built(
            matches,
            match_id,
            lambda _l: lifecycle.entry(lifecycle.REMATCH, None, num_seats=record.num_seats, next=next_id),
        )
    return {"match": matches.load(next_id), "seat": seat, "token": seat_token}


def _accept(matches: Matches, next_id: str, seat: int, name, token: str) -> str:
    """Take ``seat`` in rematch ``next_id`` for the holder of its ``token`` (in the finished
    match); returns the seat's token there. Its claim stores that token with the seat at
    once, so a repeat (the claim lost) finds it acting for the seat, unless someone else
    took the seat (released to anyone) or its player left it (the token revoked)."""
    new = rematch_token(token, next_id)
    if matches.records.claim(next_id, seat, name, new).won:
        return new
    _loaded, holder, _ok = matches.open(next_id, new)
    if holder != seat:
        raise Conflict("Your seat in the rematch is taken already.", code="seat-taken")
    return new


def _create_rematch(matches: Matches, record: MatchRecord, next_id: str, left: set[int]) -> None:
    """Create match ``next_id`` as the rematch of ``record``: one request does, racing ones wait for it.

    ``left``: the seats whose player left the match; they are open, not reserved."""
    if not matches.records.take_rematch_lock(record.id, next_id, REMATCH_LOCK_SECONDS):
        deadline = time.monotonic() + REMATCH_WAIT_SECONDS
        while matches.records.get(next_id) is None:
            if time.monotonic() > deadline:
                raise Conflict("The rematch is being set up; try again.", code="busy")
            time.sleep(0.02)
        return
    try:
        if matches.records.get(next_id) is not None:
            return
        seats = [{"name": s.name, "ai": s.ai} if s.ai else None for s in record.seats]
        settings = {
            **record.settings,
            "rematch_of": record.id,
            "reserved": [i for i, s in enumerate(record.seats) if not s.ai and i not in left],
        }
        admin = matches.records.admin_hash(record.id)
        matches.create(
            record.game,
            seats,
            record.options,
            None,
            settings=settings,
            match_id=next_id,
            admin_hash=admin,
        )
        log.info("match %s: rematch %s created", record.id, next_id)
    finally:
        matches.records.release_rematch_lock(record.id)


def release(
    matches: Matches, match_id: str, seat: int, admin_token: str | None
) -> tuple[Loaded, dict | None]:
    """The creator opens a rematch's seat kept for its player to anyone (who never accepted).

    The release is kept in the record (see :meth:`MatchRecords.release`), where the claim
    reads reservations, then told in the log. Until someone claims the seat, its player may
    still accept the rematch and take it."""
    check_admin(matches, match_id, admin_token)
    record = matches.record(match_id)
    if not 0 <= seat < record.num_seats:
        raise NotFound(f"Match {match_id} has no seat {seat}.", code="no-such-seat")
    not_reserved = Conflict(f"Seat {seat} is not kept for anyone.", code="seat-not-reserved")
    if seat not in record.settings.get("reserved", ()):
        raise not_reserved
    done = matches.records.release(match_id, seat)
    if done == SEAT_CLAIMED:
        raise Conflict(f"Seat {seat} is taken: its player accepted the rematch.", code="seat-taken")
    if done == NO_MATCH:  # gone since it was read (only a flushed Redis does that)
        raise unknown_match(match_id)
    if done != RELEASED:  # a racing release came first
        raise not_reserved
    new, entry = append_built(
        matches, match_id, lambda _l: lifecycle.entry(lifecycle.RELEASE, seat, num_seats=record.num_seats)
    )
    log.info("match %s: seat %d released by the creator", match_id, seat)
    return new, entry
