"""Use cases around the players: resign, leave to an AI, reclaim, timeouts, rematch and its release.

Built on :class:`gameroom.application.Matches` (free of HTTP and RQ, like it).
Every action here is a lifecycle entry in the match's stream (see
:mod:`gameroom.core.lifecycle`), appended at the version the action was
judged on: two racing actions cannot both apply, and a repeated one finds
the match already changed and does nothing.
"""

from __future__ import annotations

import hmac
import logging
import time

from .application import Loaded, Matches
from .core import lifecycle
from .core.matches import (
    ACTIVE,
    FINISHED,
    hash_token,
    new_match_id,
    new_token,
    rematch_token,
    status_of,
)
from .errors import (
    Conflict,
    Forbidden,
    NotFound,
    Unauthorized,
    ValidationFailed,
    VersionConflict,
    unknown_match,
)
from .eventstore.records import NO_MATCH, RELEASED, SEAT_CLAIMED

log = logging.getLogger(__name__)

#: The creator of a rematch holds its lock at most this long (a crashed request's lock expires);
#: racing requests wait this long for the match to appear.
REMATCH_LOCK_SECONDS, REMATCH_WAIT_SECONDS = 30, 5.0


class Lifecycle:
    def __init__(self, matches: Matches):
        self.matches = matches
        self.records = matches.records

    # -- helpers -------------------------------------------------------------

    def _status(self, loaded: Loaded) -> str:
        return status_of(loaded.record, self.matches.game(loaded.record), loaded.folded.state, loaded.folded)

    def _active(self, loaded: Loaded) -> None:
        if loaded.record.read_only:
            raise Conflict("This match is a read-only import.", code="read-only")
        status = self._status(loaded)
        if status == FINISHED:
            raise Conflict("The match is over.", code="match-over")
        if status != ACTIVE:
            raise Conflict("The match has open seats and has not started.", code="match-not-started")

    def _append(self, match_id: str, build, key: str | None = None) -> tuple[Loaded, dict]:
        """Append ``build(loaded)``'s entry at the latest version; retried if the match moved meanwhile.

        ``key``: append it only once (see :meth:`Matches.append`)."""
        for _attempt in range(self.matches.append_retries):
            loaded = self.matches.ensure_started(self.matches.load(match_id))
            entry = build(loaded)
            try:
                new = self.matches.append(loaded, entry, idempotency_key=key)
            except VersionConflict:
                continue
            return new, self.matches.store.entry(match_id, new.version)
        raise Conflict("The match is too busy; try again.", code="busy")

    def check_admin(self, match_id: str, admin_token: str | None) -> None:
        """Refuse unless ``admin_token`` is the match creator's admin token."""
        self.matches.record(match_id)
        stored = self.records.admin_hash(match_id)
        if not admin_token or stored is None or not hmac.compare_digest(stored, hash_token(admin_token)):
            raise Unauthorized(
                "This needs the match's admin token (returned when it was created).", code="bad-admin-token"
            )

    def _level(self, loaded: Loaded, level: str | None) -> str:
        level = level or lifecycle.DEFAULT_LEVEL
        game = self.matches.game(loaded.record)
        if level not in self.matches.ai_levels(game):
            raise ValidationFailed(
                f"Unknown AI level '{level}'.",
                code="unknown-ai-level",
                errors={"level": [f"one of {self.matches.ai_levels(game)}"]},
            )
        return level

    def settings(self, body: dict) -> dict:
        """The lifecycle settings of a creation request (clock, timeout, unlisted, hide_names), checked."""
        settings = {k: body.get(k) for k in ("clock", "timeout") if body.get(k)}
        settings.update({k: True for k in ("unlisted", "hide_names") if body.get(k)})
        if "timeout" in settings:
            game = self.matches.registry.get(body["game"])
            if settings["timeout"]["level"] not in self.matches.ai_levels(game):
                raise ValidationFailed(
                    f"Unknown AI level '{settings['timeout']['level']}'.",
                    code="unknown-ai-level",
                    errors={"timeout": {"level": [f"one of {self.matches.ai_levels(game)}"]}},
                )
            if "clock" not in settings:
                raise ValidationFailed(
                    "A timeout policy needs a clock.",
                    code="timeout-without-clock",
                    errors={"timeout": ["needs a clock"]},
                )
        return settings

    # -- resign, leave, reclaim ------------------------------------------------

    def resign(self, match_id: str, seat: int) -> tuple[Loaded, dict]:
        """``seat`` concedes: the match ends; the others win unless the game says otherwise."""

        def build(loaded):
            self._active(loaded)
            game = self.matches.game(loaded.record)
            outcome = lifecycle.forfeit_outcome(game, loaded.folded.state, [seat], loaded.record.num_seats)
            return lifecycle.entry(lifecycle.RESIGN, seat, num_seats=loaded.record.num_seats, outcome=outcome)

        new, entry = self._append(match_id, build)
        log.info("match %s: seat %d resigned", match_id, seat)
        return new, entry

    def leave(self, match_id: str, seat: int, token: str, level: str | None = None) -> tuple[Loaded, dict]:
        """``seat`` hands itself to an AI of ``level`` for the rest of the match; ``token`` stops working."""

        def build(loaded):
            self._active(loaded)
            if lifecycle.taken_over(loaded.folded, seat):
                raise Conflict("An AI plays this seat already.", code="seat-played-by-ai")
            self.matches.check_in_time(loaded, seat)  # a late leave must not escape the timeout
            return lifecycle.entry(
                lifecycle.LEAVE,
                seat,
                num_seats=loaded.record.num_seats,
                level=self._level(loaded, level),
                revoked=[lifecycle.token_digest(hash_token(token))],
            )

        new, entry = self._append(match_id, build)
        log.info("match %s: seat %d left to an AI", match_id, seat)
        return new, entry

    def reclaim(self, match_id: str, seat: int, admin_token: str | None) -> tuple[Loaded, str]:
        """The creator takes a left seat back for a person: returns the seat's new token."""
        self.check_admin(match_id, admin_token)
        token = new_token()

        def build(loaded):
            if not 0 <= seat < loaded.record.num_seats:
                raise NotFound(f"Match {match_id} has no seat {seat}.", code="no-such-seat")
            self._active(loaded)
            overlay = loaded.folded.lifecycle
            if not overlay or not overlay["left"][seat]:
                raise Conflict("Only a seat that was left can be reclaimed.", code="seat-not-left")
            return lifecycle.entry(lifecycle.RECLAIM, seat, num_seats=loaded.record.num_seats)

        # The token is stored before the entry that makes the seat human again, so
        # it works the moment the entry is visible; if the append is refused, it
        # maps to a seat an AI plays (refused with seat-played-by-ai) until reclaimed.
        self.records.set_token(match_id, seat, token)
        new, _entry = self._append(match_id, build)
        log.info("match %s: seat %d reclaimed by the creator", match_id, seat)
        return new, token

    def release(self, match_id: str, seat: int, admin_token: str | None) -> tuple[Loaded, dict]:
        """The creator opens a rematch's seat kept for its player to anyone (who never accepted).

        The release is kept in the record (see :meth:`MatchRecords.release`), where the claim
        reads reservations, then told in the log. Until someone claims the seat, its player may
        still accept the rematch and take it."""
        self.check_admin(match_id, admin_token)
        record = self.matches.record(match_id)
        if not 0 <= seat < record.num_seats:
            raise NotFound(f"Match {match_id} has no seat {seat}.", code="no-such-seat")
        not_reserved = Conflict(f"Seat {seat} is not kept for anyone.", code="seat-not-reserved")
        if seat not in record.settings.get("reserved", ()):
            raise not_reserved
        done = self.records.release(match_id, seat)
        if done == SEAT_CLAIMED:
            raise Conflict(f"Seat {seat} is taken: its player accepted the rematch.", code="seat-taken")
        if done == NO_MATCH:  # gone since it was read (only a flushed Redis does that)
            raise unknown_match(match_id)
        if done != RELEASED:  # a racing release came first
            raise not_reserved
        new, entry = self._append(
            match_id, lambda _l: lifecycle.entry(lifecycle.RELEASE, seat, num_seats=record.num_seats)
        )
        log.info("match %s: seat %d released by the creator", match_id, seat)
        return new, entry

    # -- timeouts ----------------------------------------------------------------

    def timeout(self, match_id: str, version: int, seat: int, now: float) -> dict:
        """Apply the timeout policy to ``seat`` if the match is still at ``version`` and its time ran out.

        Returns ``{"status": ...}``: ``applied`` (with ``version``), ``stale``
        (something was appended since: a move in time), ``early`` (with the
        ``deadline``: the clock has not run out yet), ``not-running`` or ``finished``.
        A move of the seat after its deadline applies the same timeout first
        (:meth:`Matches.submit`), at the same version: whichever comes first applies it.
        """
        loaded = self.matches.load(match_id)
        if loaded.version != version:
            return {"status": "stale", "version": loaded.version}
        if self._status(loaded) != ACTIVE:
            return {"status": "finished" if self._status(loaded) == FINISHED else "not-running"}
        due = lifecycle.timed_seats(loaded.record, loaded.folded).get(seat)
        if due is None:
            return {"status": "not-running"}
        if now < due:
            return {"status": "early", "deadline": due}
        try:
            new = self.matches.time_out(loaded, seat)
        except VersionConflict:
            return {"status": "stale", "version": self.matches.store.version(match_id)}
        return {"status": "applied", "version": new.version}

    # -- rematch -----------------------------------------------------------------

    def rematch(self, match_id: str, seat: int | None, token: str) -> dict:
        """The next match of a finished one: same game, options, settings and seats.

        The first call creates it (human seats reserved for the same seats,
        AI seats keep their level); each human seat that calls gets its token
        there. A seat whose player left it (to an AI, see :meth:`leave`)
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
            self.check_admin(match_id, token)
        loaded = self.matches.load(match_id)
        record = loaded.record
        if seat is not None and record.seats[seat].ai:
            raise Forbidden("An AI seat does not accept rematches.", code="not-your-seat")
        if self._status(loaded) != FINISHED:
            raise Conflict("A rematch is offered once the match is over.", code="match-not-finished")
        if record.read_only:
            raise Conflict("This match is a read-only import.", code="read-only")
        planned = new_match_id()
        next_id, created_now = self.records.plan_rematch(match_id, planned)
        if self.matches.records.get(next_id) is None:
            overlay = loaded.folded.lifecycle
            left = {i for i in range(record.num_seats) if overlay and overlay["left"][i]}
            self._create_rematch(record, next_id, left)
        seat_token = None
        if seat is not None:
            seat_token = self._accept(next_id, seat, record.seats[seat].name, token)
            self.matches.seat_claimed(next_id)
            self._append(
                match_id,
                lambda _l: lifecycle.entry(lifecycle.REMATCH, seat, num_seats=record.num_seats, next=next_id),
                key=f"rematch:{seat}",  # told once, however often the seat asks
            )
        elif created_now:
            self._append(
                match_id,
                lambda _l: lifecycle.entry(lifecycle.REMATCH, None, num_seats=record.num_seats, next=next_id),
            )
        return {"match": self.matches.load(next_id), "seat": seat, "token": seat_token}

    def _accept(self, next_id: str, seat: int, name, token: str) -> str:
        """Take ``seat`` in rematch ``next_id`` for the holder of its ``token`` (in the finished
        match); returns the seat's token there. Its claim stores that token with the seat at
        once, so a repeat (the claim lost) finds it acting for the seat, unless someone else
        took the seat (released to anyone) or its player left it (the token revoked)."""
        new = rematch_token(token, next_id)
        if self.matches.records.claim(next_id, seat, name, new).won:
            return new
        _loaded, holder, _ok = self.matches.open(next_id, new)
        if holder != seat:
            raise Conflict("Your seat in the rematch is taken already.", code="seat-taken")
        return new

    def _create_rematch(self, record, next_id: str, left: set[int]) -> None:
        """Create match ``next_id`` as the rematch of ``record``: one request does, racing ones wait for it.

        ``left``: the seats whose player left the match; they are open, not reserved."""
        if not self.records.take_rematch_lock(record.id, next_id, REMATCH_LOCK_SECONDS):
            deadline = time.monotonic() + REMATCH_WAIT_SECONDS
            while self.matches.records.get(next_id) is None:
                if time.monotonic() > deadline:
                    raise Conflict("The rematch is being set up; try again.", code="busy")
                time.sleep(0.02)
            return
        try:
            if self.matches.records.get(next_id) is not None:
                return
            seats = [{"name": s.name, "ai": s.ai} if s.ai else None for s in record.seats]
            settings = {
                **record.settings,
                "rematch_of": record.id,
                "reserved": [i for i, s in enumerate(record.seats) if not s.ai and i not in left],
            }
            admin = self.records.admin_hash(record.id)
            self.matches.create(
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
            self.records.release_rematch_lock(record.id)
