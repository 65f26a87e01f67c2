"""The application layer: use cases over the pure core and the store.

``Matches`` is what the HTTP API and the AI workers both call, so a move from
a bot and a move from a browser take the same command path. It knows nothing
of HTTP or RQ; side effects after an append (AI scheduling, observers) are
callbacks registered in ``after_append``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from dataclasses import dataclass

from marshmallow import ValidationError

from . import faults, tagged
from .caches import LRU, FoldCache
from .core import decider, lifecycle
from .core.decider import Folded
from .core.matches import (
    FINISHED,
    MatchRecord,
    Seat,
    claim_token,
    hash_token,
    new_match_id,
    new_token,
    redact_entry,
    status_of,
    status_when_full,
)
from .core.rng import Seeding
from .errors import (
    Conflict,
    GameroomError,
    NotFound,
    NotYourSeat,
    Unauthorized,
    ValidationFailed,
    VersionConflict,
    unknown_match,
)
from .eventstore import EventStore
from .eventstore.drafts import DraftFlush
from .eventstore.records import AFTER_SNAPSHOT, MatchRecords
from .plugin_api import IllegalMove
from .registry import Registry

log = logging.getLogger(__name__)


@dataclass
class Loaded:
    record: MatchRecord
    #: the match as its log folds (what everyone may be shown, redacted)
    folded: Folded
    #: the caller's seat's sealed steps not yet in the log (see :mod:`gameroom.eventstore.drafts`)
    draft: tuple = ()
    #: ``folded`` with ``draft`` folded in (None: no draft)
    own: Folded | None = None
    #: whether ``draft`` was read for the caller's seat (see ``Matches.with_draft``)
    drafted: bool = False

    @property
    def version(self) -> int:
        return self.folded.version

    @property
    def seen(self) -> Folded:
        """The match as the caller's seat sees it: the log with its own draft steps."""
        return self.own if self.own is not None else self.folded


@dataclass
class MoveResult:
    version: int
    entry: dict
    loaded: Loaded
    duplicate: bool = False
    #: the move went to the seat's draft: nothing was appended (``version`` is unchanged)
    sealed: bool = False


def _key_reused() -> ValidationFailed:
    return ValidationFailed(
        "This Idempotency-Key was already used for a different request; use a new key for a new request.",
        code="idempotency-key-reused",
    )


def has_drafts(game) -> bool:
    """Whether ``game`` may keep steps in drafts (it implements ``Game.sealed_steps``)."""
    return game.overrides("sealed_steps")


def request_fingerprint(move: dict, expected_version: int | None) -> str:
    """What makes two requests with one Idempotency-Key the same request: the move and
    the expected version, canonically encoded and hashed (the seat is part of the key)."""
    canonical = json.dumps(
        {"move": move, "expected_version": expected_version},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


class Matches:
    def __init__(
        self,
        store: EventStore,
        records: MatchRecords,
        registry: Registry,
        *,
        snapshot_every: int = 100,
        append_retries: int = 20,
        clock=time.time,
        seeding=None,
        token_secret=None,
    ):
        self.store = store
        # How effective seeds are made (a Seeding, or a callable that makes one when first
        # needed); by default with a secret of this process only.
        self._seeding = seeding or Seeding.private()
        # What the tokens of claims with an Idempotency-Key are derived with (bytes, or a callable
        # that reads them when first needed): every process of a deployment must have the same.
        self._token_secret = token_secret
        self.records = records
        self.registry = registry
        self.snapshot_every = snapshot_every
        self.append_retries = append_retries
        self.clock = clock
        self.after_append: list = []
        self._move_keys: dict = {}  # slug -> tagged.move_keys(...)
        self._cache = FoldCache()
        # What never changes once known: the record of a match whose seats are
        # all filled (claims are final) and the seat of a valid token.
        self._records = LRU(4096)
        self._seats = LRU(16384)
        # The record of a match seen with open seats: what a claim checks of it (the seat count,
        # reserved and AI seats) is fixed at creation, but for a reservation its creator releases
        # (a refusal reads the record again); who holds a seat the claim's script decides.
        self._claimable = LRU(4096)

    @property
    def seeding(self) -> Seeding:
        if not isinstance(self._seeding, Seeding):
            self._seeding = self._seeding()
        return self._seeding

    @property
    def token_secret(self) -> bytes:
        """The server secret of :func:`claim_token` (by default the seeding's, else one of this process)."""
        if self._token_secret is None:
            self._token_secret = self.seeding.secret or secrets.token_bytes(32)
        elif callable(self._token_secret):
            self._token_secret = self._token_secret()
        return self._token_secret

    # -- creating and joining --------------------------------------------

    def create(
        self,
        game_slug: str,
        seats: list[dict | None],
        options: dict | None = None,
        seed: str | None = None,
        *,
        settings: dict | None = None,
        admin_hash: str | None = None,
        match_id: str | None = None,
    ) -> tuple[Loaded, dict[int, str]]:
        """Create a match; returns it and one token per human seat filled now.

        ``seed`` is the client's: it fixes the draws only under reproducible
        :attr:`seeding`; otherwise it is mixed with the server's secret.
        ``settings``: lifecycle choices (clock, timeout policy, unlisted, hide_names; see
        :mod:`gameroom.core.lifecycle`); ``admin_hash``: the :func:`hash_token` of the creator's
        admin token, which may later reissue a left seat's token; ``match_id``: a planned id (rematch).
        """
        installed = self.registry.installed(game_slug)
        game = installed.game
        n = len(seats)
        seat_objs = self.seats_for(game, seats)
        opts = self._checked_options(game, options, n)
        match_id = match_id or new_match_id()
        # A client's seed only feeds the effective seed, which mixes in the server's secret.
        record = MatchRecord(
            id=match_id,
            game=game_slug,
            options=opts,
            seed=self.seeding.match_seed(match_id, seed),
            created=self.clock(),
            seats=seat_objs,
            settings=dict(settings or {}),
        )
        entry = self._setup_entry(game, record)
        tokens = {i: new_token() for i, s in enumerate(seat_objs) if s.filled and not s.ai}
        # The new match is folded here, not read back: its only entry is the one being written.
        loaded = Loaded(record, decider.fold(game, [entry | {"version": 1}]))
        # Record, tokens, lobby and first entry in one transaction: one round trip.
        self.records.create_match(
            record,
            tokens,
            entry,
            status=status_of(record, game, loaded.folded.state),
            ai_seats=self.ai_to_move(record, game, loaded.folded),
            admin_hash=admin_hash,
            clocks=lifecycle.timed_seats(record, loaded.folded),
        )
        self._remember_created(loaded, tokens)
        self._after(loaded, entry | {"version": 1}, progress_saved=True)
        log.info("match %s created: %s, %d seats", record.id, game_slug, n)
        return loaded, tokens

    @staticmethod
    def _checked_options(game, options: dict | None, num_seats: int):
        """``options`` as ``game`` loads them, refused (bad-options, bad-seat-count) unless valid for
        ``num_seats`` seats."""
        try:
            opts = game.load_options(options)
        except ValidationError as exc:
            raise ValidationFailed(
                "Invalid game options.", code="bad-options", errors={"options": exc.messages}
            ) from None
        try:
            game.check_seats(num_seats, opts)  # options may change the allowed counts (a solo variant)
        except IllegalMove as exc:
            raise ValidationFailed(
                exc.message, code="bad-seat-count", errors={"seats": [exc.message]}
            ) from None
        return opts

    @staticmethod
    def _setup_entry(game, record: MatchRecord) -> dict:
        """The new match's first entry: the game's setup, stamped with its time (and its clocks)."""
        entry = decider.setup_entry(game, record.num_seats, record.options, record.seed)
        entry["time"] = record.created
        if record.settings.get("clock"):  # time is part of the log: the fold runs the clocks
            entry["lifecycle"] = {
                "clock": record.settings["clock"],
                "timeout": record.settings.get("timeout"),
            }
            entry["started"] = record.full
        return entry

    def _remember_created(self, loaded: Loaded, tokens: dict[int, str]) -> None:
        """Cache what a new match's first reads would fetch: its fold, its record once full, its seats."""
        record = loaded.record
        self._cache.put(record.id, loaded.folded)
        self._remember_record(record)
        for seat, token in tokens.items():
            self._seats.put((record.id, hash_token(token)), seat)

    def _remember_record(self, record: MatchRecord) -> None:
        """Keep a record read or made: for good once its seats are all filled, else for claims."""
        if record.full:
            self._records.put(record.id, record)
        else:
            self._claimable.put(record.id, record)

    def claim_seat(
        self, match_id: str, seat: int, name: str, idempotency_key: str | None = None
    ) -> tuple[Loaded, str]:
        """Take the open ``seat`` for ``name``: the match and the seat's token.

        With ``idempotency_key`` the token is derived from it (:func:`claim_token`), so a repeat
        of the claim that won the seat finds its token acting for it and gets the same answer;
        the same key with another name is refused (idempotency-key-reused), and any other claim
        of a taken seat with seat-taken."""
        record = self._records.get(match_id) or self._claimable.get(match_id) or self.record(match_id)
        if not 0 <= seat < record.num_seats:
            raise NotFound(f"Match {match_id} has no seat {seat}.", code="no-such-seat")
        if record.kept(seat):
            # The creator may have released it, or its player taken it, since this process read the
            # record (never the reverse); a taken seat is refused by the claim below (seat-taken).
            record = self.record(match_id)
            self._remember_record(record)
        if record.kept(seat):
            raise Conflict(
                f"Seat {seat} is kept for its player in the previous match (rematch).", code="seat-reserved"
            )
        if idempotency_key is None:
            token = new_token()
        else:
            token = claim_token(self.token_secret, match_id, seat, idempotency_key)
        if record.ai_seats():  # the claim may start a match whose AI moves first: the intent comes first
            self.store.note_ai_pending(match_id)
        if record.settings.get("clock"):  # ... or its clocks, with a start entry after the claim
            self.store.note_clock_pending(match_id)
        folded = self._cache.get(match_id)
        when_full = None
        if folded is not None:  # the lobby's status once full, saved by the claim that fills it
            when_full = (status_when_full(self.game(record), folded.state, folded), folded.version)
        claimed = self.records.claim(match_id, seat, name, token, record.num_seats, when_full)
        if claimed.record is None:  # gone since this process saw it (only a flushed Redis does that)
            self._claimable.forget(match_id)
            raise unknown_match(match_id)
        if not claimed.won:
            if idempotency_key is not None:
                replay = self._claimed_before(match_id, seat, name, token, claimed.record)
                if replay is not None:
                    return replay, token
            raise Conflict(f"Seat {seat} is taken.", code="seat-taken")
        self._seats.put((match_id, hash_token(token)), seat)
        if claimed.record.full:  # one line per match at INFO: its start (each claim at DEBUG)
            log.info("match %s: seat %d claimed, every seat is filled", match_id, seat)
        else:
            log.debug("match %s: seat %d claimed", match_id, seat)
        faults.point("after-claim")  # crash tests: the seat is taken, the clocks not started yet
        # The claim read the record and the log's length: a cached fold that long is the latest.
        fresh = None
        if folded is not None and folded.version == claimed.version:
            if claimed.record.full:
                self._records.put(match_id, claimed.record)
            fresh = self.with_draft(Loaded(claimed.record, folded), None)
        return self.seat_claimed(match_id, fresh, claimed.progress_saved), token

    def _claimed_before(
        self, match_id: str, seat: int, name: str, token: str, record: MatchRecord
    ) -> Loaded | None:
        """The answer to a repeated claim: the match, if ``token`` (derived from the claim's key)
        still acts for ``seat``, else None (someone else holds the seat, or its player left it).
        What followed the first claim is done again, in case it died before (the clocks' start)."""
        loaded, holder, _ok = self.open(match_id, token)
        if holder != seat:
            return None
        if record.seats[seat].name != name:
            raise ValidationFailed(
                "This Idempotency-Key was already used for a different request; "
                "use a new key for a new claim.",
                code="idempotency-key-reused",
            )
        log.debug("match %s: seat %d claimed again with its key", match_id, seat)
        return self.seat_claimed(match_id, loaded)

    def seat_claimed(
        self, match_id: str, loaded: Loaded | None = None, progress_saved: bool = False
    ) -> Loaded:
        """After a claim: once every seat is taken, start the clocks and schedule the AI.
        ``loaded``: the match as it is now, if the caller has it; ``progress_saved``: the claim
        saved the lobby's status already (see :meth:`MatchRecords.claim`)."""
        loaded = loaded or self.load(match_id)
        if loaded.record.full:
            if loaded.folded.lifecycle is not None and not loaded.folded.lifecycle["started"]:
                loaded = self._start_clocks(loaded)
            else:
                ai_seats = self.ai_to_move(loaded.record, self.game(loaded.record), loaded.folded)
                if ai_seats:
                    self.store.set_ai_turn(match_id, loaded.version, ai_seats)
                self._after(loaded, None, progress_saved=progress_saved)
        return loaded

    def ensure_started(self, loaded: Loaded) -> Loaded:
        """``loaded`` with its clocks started, if every seat is taken but no ``start`` entry is
        in the log yet: the claim of the last seat appends it just after the claim, so an action
        racing that claim (or coming after a claim that died in between) appends it first.
        Nothing else may come before it: a leave or a resign before the start would be undone by
        it (the start resets the seats' control) or precede it in a log import refuses."""
        overlay = loaded.folded.lifecycle
        if overlay is None or overlay["started"] or not loaded.record.full or loaded.record.read_only:
            return loaded
        loaded = self._start_clocks(loaded)
        if not loaded.folded.lifecycle["started"]:
            raise Conflict("The match is too busy; try again.", code="busy")
        return loaded

    def _start_clocks(self, loaded: Loaded) -> Loaded:
        """Append the ``start`` entry once the last seat is claimed (racing claims: one appends)."""
        for _attempt in range(self.append_retries):
            if loaded.folded.lifecycle["started"]:
                return loaded
            try:
                return self.append(
                    loaded, lifecycle.entry(lifecycle.START, None, num_seats=loaded.record.num_seats)
                )
            except VersionConflict as conflict:
                self._cache.forget_beyond(loaded.record.id, conflict.current_version)
                loaded = self.load(loaded.record.id)
        return loaded

    def seats_for(self, game, seats: list[dict | None]) -> list[Seat]:
        """``seats`` as Seat objects, after checking them against ``game``: how many it
        takes and its AI levels (None leaves a seat open). Create, fork and import
        all check here, so they refuse the same things with the same codes."""
        n = len(seats)
        if not game.info.min_players <= n <= game.info.max_players:
            raise ValidationFailed(
                f"{game.info.title} takes {game.info.min_players}–{game.info.max_players} seats, not {n}.",
                code="bad-seat-count",
                errors={"seats": [f"needs {game.info.min_players}–{game.info.max_players} seats"]},
            )
        # An AI level is any string given, "" too: a falsy test would make "" a human seat.
        levels = set(self.ai_levels(game)) if any(s and s.get("ai") is not None for s in seats) else set()
        seat_objs = []
        for i, s in enumerate(seats):
            if s is None:
                seat_objs.append(Seat())
                continue
            if s.get("ai") is not None and s["ai"] not in levels:
                raise ValidationFailed(
                    f"Unknown AI level '{s['ai']}'.",
                    code="unknown-ai-level",
                    errors={"seats": {str(i): {"ai": [f"one of {sorted(levels)}"]}}},
                )
            seat_objs.append(Seat(name=s["name"], ai=s.get("ai")))
        return seat_objs

    # -- reading ---------------------------------------------------------

    def record(self, match_id: str) -> MatchRecord:
        record = self.records.get(match_id)
        if record is None:
            raise unknown_match(match_id)
        return record

    def game(self, record: MatchRecord):
        return self.registry.get(record.game)

    def _check_move_keys(self, slug: str, game, move: dict) -> None:
        """Refuse a move with keys its type does not declare: they would be stored and echoed back."""
        allowed = self._move_keys.get(slug)
        if allowed is None:
            allowed = self._move_keys[slug] = tagged.move_keys(game.schemas())
        extra = tagged.unknown_keys(allowed, move)
        if extra:
            raise ValidationFailed(
                f"This move does not take {', '.join(repr(k[:40]) for k in extra[:5])}.",
                code="unknown-move-field",
                errors={"move": {k[:40]: ["Unknown field."] for k in extra[:20]}},
            )

    def open(
        self, match_id: str, token: str | None = None, *, fresh: bool = True
    ) -> tuple[Loaded, int | None, bool]:
        """The latest match, and the seat of ``token``, in at most one round trip to Redis when warm.

        Returns ``(loaded, seat, token_ok)``: ``seat`` is None for no token or an
        unknown one (``token_ok`` tells which). What is not cached in this
        process (the record of a full match, a token's seat, the fold) is read
        in one pipeline together with the entries the cached fold has not seen.

        ``fresh=False`` accepts a cached fold that may be behind the store when
        everything is cached (no round trip at all): for :meth:`submit`, whose
        append checks the version and which re-reads on a conflict.
        """
        start = self._cache.get(match_id)
        record = self._records.get(match_id)
        token_hash = hash_token(token) if token is not None else None
        seat = self._seats.get((match_id, token_hash)) if token is not None else None
        need_seat = token is not None and seat is None
        if not fresh and start is not None and record is not None and not need_seat:
            if start.lifecycle is not None and lifecycle.revoked(start, token_hash or ""):
                return Loaded(record, start), None, False
            return self.with_draft(Loaded(record, start), seat), seat, True
        snapshot = None
        if record is not None and not need_seat and start is not None:
            entries = self.store.read(match_id, start.version)
        else:
            found, found_seat, entries, snapshot = self.records.read_parts(
                match_id,
                record=record is None,
                token_hash=token_hash if need_seat else None,
                after=start.version if start is not None else AFTER_SNAPSHOT,
            )
            if record is None:
                if found is None:
                    raise unknown_match(match_id)
                record = found
                self._remember_record(record)
            if need_seat:
                seat = found_seat
                if seat is not None:
                    self._seats.put((match_id, token_hash), seat)
        game = self.game(record)
        if start is None and snapshot is not None:
            if snapshot.get("code_rules_version") == game.info.rules_version:
                start = Folded.from_snapshot(snapshot)
            else:  # made by other rules: fold every entry (the entries read follow the snapshot)
                entries = self.store.read(match_id)
        folded = decider.fold(game, entries or [], start)
        self._cache.put(match_id, folded)
        loaded = Loaded(record, folded)
        if (
            seat is not None
            and loaded.folded.lifecycle is not None
            and lifecycle.revoked(loaded.folded, token_hash)
        ):
            return loaded, None, False  # the seat was left: its old token no longer acts for it
        return self.with_draft(loaded, seat), seat, token is None or seat is not None

    def with_draft(self, loaded: Loaded, seat: int | None) -> Loaded:
        """``loaded`` as ``seat`` sees it: with its draft (its sealed steps not yet in the log).

        Only ``seat``'s token reaches its draft; spectators and other seats get the log alone.
        """
        bare = Loaded(loaded.record, loaded.folded, drafted=True)
        if seat is None or loaded.record.read_only:
            return bare
        game = self.game(loaded.record)
        if not has_drafts(game) or lifecycle.outcome(game, loaded.folded) is not None:
            return bare
        steps = self.store.draft(loaded.record.id, seat).current(decider.barrier(loaded.folded))
        if not steps:
            return bare
        own = decider.with_steps(game, loaded.folded, steps)
        return Loaded(loaded.record, loaded.folded, tuple(steps), own, drafted=True)

    def load(self, match_id: str, version: int | None = None) -> Loaded:
        """The match folded to ``version`` (default: its latest)."""
        if version is None:
            return self.open(match_id)[0]
        return self._load(self.record(match_id), version)

    def _load(self, record: MatchRecord, version: int | None) -> Loaded:
        """Fold from the in-process cache or the nearest snapshot at or before
        ``version``, so loading costs about the same at any history length."""
        match_id = record.id
        game = self.game(record)
        if version is not None:
            current = self.store.version(match_id)
            if not 1 <= version <= current:
                raise NotFound(f"Match {match_id} has versions 1–{current}.", code="no-such-version")
        start = self._cache.get(match_id)
        if start is not None and version is not None and start.version > version:
            start = None
        if start is None:
            snap = self.store.load_snapshot(match_id, version)
            if snap and snap.get("code_rules_version") == game.info.rules_version:
                start = Folded.from_snapshot(snap)
        after = start.version if start else 0
        folded = decider.fold(game, self.store.read(match_id, after, version), start)
        if version is None:
            self._cache.put(match_id, folded)
        return Loaded(record, folded)

    def redact(self, loaded: Loaded, entries: list[dict], viewer: int | None) -> list[dict]:
        record, folded = loaded.record, loaded.folded
        game = self.game(record)
        public = status_of(record, game, folded.state, folded) == FINISHED
        names = record.names()
        return [
            redact_entry(game, e, viewer, names, public=public, undone=e["version"] in folded.undone)
            for e in entries
        ]

    @staticmethod
    def ai_to_move(record: MatchRecord, game, folded: Folded) -> list[int]:
        """The AI seats to move in ``folded`` (none while seats are open, or once it is over),
        an AI that took over a seat (see :mod:`gameroom.core.lifecycle`) among them."""
        ai = lifecycle.ai_seats(record, folded)
        if not ai or record.read_only or not record.full or lifecycle.outcome(game, folded) is not None:
            return []
        return [seat for seat in game.active_seats(folded.state) if seat in ai]

    def ai_levels(self, game) -> list[str]:
        from .ai import builtin_levels  # local: the AI package is optional for the core

        return sorted(set(builtin_levels(game)) | set(self.registry.ai_policies(game)))

    # -- moves -----------------------------------------------------------

    def submit(
        self,
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
        """Decide ``move`` for ``seat`` and append it.

        With ``expected_version`` the move is refused with ``stale-version`` if the
        match moved on in a way that changed what ``seat`` may do; other seats'
        steps that leave its legal moves unchanged (simultaneous phases) do not
        make it stale. Without it, the move is checked against the latest state
        and the append retried on a race.

        ``loaded``: the match as the caller already has it; ``maybe_behind``
        says it came from :meth:`open` with ``fresh=False`` and may be behind.
        ``token``: the caller's seat token, checked again on the fold the move is
        judged on (a seat that was left revokes it, see :mod:`gameroom.core.lifecycle`).
        """
        key = f"{seat}:{idempotency_key}" if idempotency_key else None
        if key is None:
            return self._submit(
                match_id, seat, move, expected_version, None, None, actor, loaded, maybe_behind, token
            )
        fingerprint = request_fingerprint(move, expected_version)
        # A fresh ``loaded`` still at ``expected_version`` proves the key unused: its first use
        # appended after that version, and a log only grows (the append checks the key anyway).
        # Not where steps may wait in a draft: a sealed step's key is used without an entry.
        unused = (
            loaded is not None
            and not maybe_behind
            and expected_version == loaded.version
            and not has_drafts(self.game(loaded.record))
        )
        replay = None if unused else self._prior(match_id, seat, key, fingerprint, loaded)
        if replay is not None:
            return replay
        try:
            return self._submit(
                match_id, seat, move, expected_version, key, fingerprint, actor, loaded, maybe_behind, token
            )
        except GameroomError:
            # A retry that overlapped its original may have been judged on the state the
            # original made (its move no longer legal, a stale version, a busy match): the
            # original's append wrote the key atomically with its entry, so look again and
            # answer with the original's result rather than refuse a move that was applied.
            replay = self._prior(match_id, seat, key, fingerprint, None)
            if replay is None:
                raise
            return replay

    def _prior(
        self, match_id: str, seat: int, key: str, fingerprint: str, loaded: Loaded | None
    ) -> MoveResult | None:
        """The replay of the request that first used idempotency ``key``, from the log or from
        ``seat``'s draft; None when the key is new. A sealed step an undo dropped since replays
        as it was taken (the key stays with it: never taken again); a key an undo of the draft
        used is refused (idempotency-key-reused), as an undo's in the log is."""
        prior = self.records.idempotent(match_id, key)
        if prior is not None:
            return self._replayed(match_id, *prior, fingerprint)
        record = loaded.record if loaded is not None else self.records.get(match_id)
        if record is None or not has_drafts(self.game(record)) or not isinstance(seat, int):
            return None
        draft = self.store.draft(match_id, seat)
        if key not in draft.keys and key not in draft.dropped and key not in draft.undone:
            return None
        mine = self.with_draft(self.load(match_id), seat)
        if draft.base != decider.barrier(mine.folded):
            return None  # a stale draft's key: it no longer counts
        if key in draft.undone:
            raise _key_reused()
        if key in draft.dropped:
            stored, step = draft.dropped[key]
        else:
            number, stored = draft.keys[key]
            if number > len(mine.draft):
                return None  # a stale draft's step: it no longer counts
            step = mine.draft[number - 1]
        self._check_fingerprint(stored, fingerprint)
        entry = {"kind": "move", "seat": seat, "move": step["move"], "events": step["events"]}
        return MoveResult(mine.version, entry | {"version": mine.version}, mine, duplicate=True, sealed=True)

    def _submit(
        self, match_id, seat, move, expected_version, key, fingerprint, actor, loaded, maybe_behind, token
    ) -> MoveResult:
        # A ``loaded`` from open(fresh=False) may be behind the store: the append's
        # version check catches that, and anything refused on it is re-checked fresh.
        fresh = loaded is None or not maybe_behind
        if not fresh and expected_version is not None and expected_version != loaded.version:
            loaded = None
        fresh_draft = loaded is not None and loaded.drafted  # the draft was read with ``loaded``
        for _attempt in range(self.append_retries):
            if loaded is None:
                loaded, fresh, fresh_draft = self.load(match_id), True, False
            record, folded = loaded.record, loaded.folded
            self._check_may_move(loaded, seat, token)
            if folded.lifecycle is not None and not folded.lifecycle["started"]:
                loaded = self.ensure_started(loaded)
                record, folded, fresh, fresh_draft = loaded.record, loaded.folded, True, False
            game = self.game(record)
            self._check_move_keys(record.game, game, move)
            now = self.clock()  # the move's time: before its seat's deadline, or refused
            if folded.lifecycle is not None and lifecycle.out_of_time(record, folded, seat, now):
                try:
                    self._time_out_instead(loaded, seat)
                except VersionConflict as conflict:  # the match moved (maybe this very timeout)
                    self._cache.forget_beyond(match_id, conflict.current_version)
                    loaded = None
                    continue
            try:
                if lifecycle.taken_over(folded, seat) and not (actor or "").startswith("ai:"):
                    raise Conflict("An AI plays this seat now.", code="seat-played-by-ai")
                if expected_version is not None and expected_version != folded.version:
                    self._check_not_stale(loaded, seat, expected_version)
                if not fresh_draft:
                    loaded, fresh_draft = self.with_draft(loaded, seat), True
                entry = decider.decide(game, loaded.seen, seat, move, record.seed)
            except GameroomError:
                if fresh:
                    raise
                loaded = None  # judged on a cached fold: judge again on the latest
                continue
            entry["time"] = now
            if actor:
                entry["actor"] = actor
            sealed = has_drafts(game) and decider.sealable(game, loaded.seen, seat, entry)
            try:
                if sealed:
                    return self._seal(loaded, seat, entry, key, fingerprint)
                new, result = self._append_entry(loaded, game, seat, entry, key, fingerprint)
            except VersionConflict as conflict:
                self._cache.forget_beyond(match_id, conflict.current_version)
                loaded = None
                continue
            if result.duplicate:
                return self._replayed(match_id, result.version, result.fingerprint, fingerprint)
            entry["version"] = result.version
            self._cache.put(match_id, new.folded)
            self._after(new, entry, progress_saved=True)
            return MoveResult(result.version, entry, new)
        raise Conflict("The match is too busy; try again.", code="busy")

    def check_in_time(self, loaded: Loaded, seat: int) -> None:
        """Refuse an action of ``seat`` (a leave, an undo) once its time has run out, with the
        timeout policy applied first, as a late move is: else a leave sent after the deadline
        would hand the seat to an AI and escape a forfeit. A conflict (the timeout job came
        first) is refused as stale: the caller's next try sees what it did."""
        if loaded.folded.lifecycle is None or not lifecycle.out_of_time(
            loaded.record, loaded.folded, seat, self.clock()
        ):
            return
        try:
            self._time_out_instead(loaded, seat)
        except VersionConflict:
            raise Conflict("The match moved on; try again.", code="stale-version") from None

    def _time_out_instead(self, loaded: Loaded, seat: int) -> None:
        """Refuse a move of ``seat``, whose time has run out, with ``out-of-time``, having applied the
        match's timeout policy first (VersionConflict if the match moved since ``loaded``).

        The timeout is due whoever notices it first; appended here, at the version the move was
        judged on, a late move cannot slip in before the timeout job runs, and that job finds the
        match moved on. It is the same entry the job would append, with the same version check,
        so however the two race, one timeout is applied.
        """
        due = lifecycle.timed_seats(loaded.record, loaded.folded)[seat]
        new = self.time_out(loaded, seat)
        raise Conflict(
            f"Seat {seat}'s time ran out; the match's timeout policy "
            f"({loaded.folded.lifecycle['policy']['action']}) was applied instead of this move.",
            code="out-of-time",
            current_version=new.version,
            deadline=due,
        )

    def time_out(self, loaded: Loaded, seat: int) -> Loaded:
        """Append the timeout of ``seat`` (the match's timeout policy) at ``loaded``'s version;
        VersionConflict if the match moved. The caller checked that the seat's time ran out."""
        game = self.game(loaded.record)
        entry = lifecycle.timeout_entry(game, loaded.folded, seat, loaded.record.num_seats)
        entry["num_seats"] = loaded.record.num_seats
        new = self.append(loaded, entry)
        log.info(
            "match %s: seat %d ran out of time at v%d (%s)",
            loaded.record.id,
            seat,
            loaded.version,
            entry["policy"]["action"],
        )
        return new

    @staticmethod
    def _check_may_move(loaded: Loaded, seat: int | None, token: str | None) -> None:
        """Refuse a move on a read-only import, a match not started, by a spectator or with a
        token its seat revoked."""
        record, folded = loaded.record, loaded.folded
        if record.read_only:
            raise Conflict("This match is a read-only import.", code="read-only")
        if not record.full:
            raise Conflict("The match has open seats and has not started.", code="match-not-started")
        if seat is None or not 0 <= seat < record.num_seats:
            raise NotYourSeat("Spectators cannot move.")
        if (
            token is not None
            and folded.lifecycle is not None
            and lifecycle.revoked(folded, hash_token(token))
        ):
            raise Unauthorized("The token is not valid for this match.", code="bad-token")

    def _append_entry(self, loaded: Loaded, game, seat: int, entry: dict, key, fingerprint):
        """Append the decided ``entry`` (carrying the seat's draft, if any) after ``loaded``;
        returns the match with it and the store's result (VersionConflict if the match moved)."""
        record, folded = loaded.record, loaded.folded
        draft = None
        if has_drafts(game):
            # This step ends the seat's draft: one entry carries both. Checked in the append
            # even when empty, so that a sealed step racing this one is never left behind.
            if loaded.draft:
                entry["sealed"] = list(loaded.draft)
            draft = DraftFlush(seat, decider.barrier(folded), len(loaded.draft))
        new = Loaded(record, decider.apply_entry(game, folded, {**entry, "version": folded.version + 1}))
        status = status_of(record, game, new.folded.state, new.folded)
        result = self.store.append(
            record.id,
            entry,
            folded.version,
            key,
            status=status,
            fingerprint=fingerprint,
            ai_seats=self.ai_to_move(record, game, new.folded),
            draft=draft,
            clocks=lifecycle.timed_seats(record, new.folded),
        )
        return new, result

    def _seal(self, loaded: Loaded, seat: int, entry: dict, key, fingerprint) -> MoveResult:
        """Keep the sealed step ``entry`` in ``seat``'s draft: nothing is appended, no one else
        learns of it (see :mod:`gameroom.eventstore.drafts`); VersionConflict if the match or
        the draft moved since ``loaded``."""
        step = {k: entry[k] for k in ("move", "events", "time", "actor") if k in entry}
        record, folded = loaded.record, loaded.folded
        result = self.store.push_draft(
            record.id,
            seat,
            step,
            folded.version,
            decider.barrier(folded),
            len(loaded.draft),
            key,
            fingerprint,
        )
        if result.duplicate:
            if result.reused:  # an undo of this draft used the key
                raise _key_reused()
            if result.version is not None:
                return self._replayed(record.id, result.version, result.fingerprint, fingerprint)
            replay = self._prior(record.id, seat, key, fingerprint, loaded)
            if replay is not None:
                return replay
            raise Conflict("The match is too busy; try again.", code="busy")
        game = self.game(record)
        own = decider.with_steps(game, loaded.seen, [step])
        mine = Loaded(record, folded, loaded.draft + (step,), own, drafted=True)
        log.debug("match %s: seat %d sealed step %d", record.id, seat, result.count)
        return MoveResult(folded.version, entry | {"version": folded.version}, mine, sealed=True)

    def undo_draft(
        self, loaded: Loaded, seat: int, steps: int, key: str | None = None, fingerprint: str | None = None
    ) -> Loaded:
        """Drop ``seat``'s last ``steps`` draft steps (its own undo; nothing is appended).

        ``loaded`` comes from :meth:`with_draft`; VersionConflict if the draft changed since.
        ``key``, ``fingerprint``: the undo's idempotency key, kept in the draft with the pop; if
        it is there already, nothing is dropped (idempotency-key-reused for another request, or
        where a step of the draft, kept or dropped, used it).
        """
        result = self.store.pop_draft(
            loaded.record.id,
            seat,
            decider.barrier(loaded.folded),
            len(loaded.draft),
            steps,
            idempotency_key=key,
            fingerprint=fingerprint,
        )
        if result.reused:
            raise _key_reused()
        if result.duplicate:  # a repeat of an undo done already: nothing was dropped this time
            self._check_fingerprint(result.fingerprint or "", fingerprint)
        return self.with_draft(loaded, seat)

    def append(self, loaded: Loaded, entry: dict, idempotency_key: str | None = None) -> Loaded:
        """Append a platform-made entry (undo) at ``loaded``'s version; VersionConflict if it moved.

        ``idempotency_key``: the platform's own key for an action told once however often it is
        asked (never a client's: those begin with the seat); if an entry was appended with it
        already, nothing is appended and the match is returned as it is now."""
        return self._append_made(loaded, entry, idempotency_key, None)[0]

    def append_once(self, loaded: Loaded, entry: dict, key: str, fingerprint: str) -> tuple[Loaded, int]:
        """:meth:`append` for a client's request with idempotency ``key`` (``seat:key``, as moves
        have it) and ``fingerprint``: the match and the version of the key's entry, this one or
        the one its first use appended (idempotency-key-reused if that was another request)."""
        new, result = self._append_made(loaded, entry, key, fingerprint)
        if result.duplicate:
            self._check_fingerprint(result.fingerprint or "", fingerprint)
        return new, result.version

    def _append_made(self, loaded: Loaded, entry: dict, key: str | None, fingerprint: str | None):
        """Append a platform-made ``entry``: the match after it (as it is now, for a key seen
        before) and the store's result."""
        game = self.game(loaded.record)
        entry = {**entry, "time": self.clock(), "rules_version": game.info.rules_version}
        after = decider.apply_entry(game, loaded.folded, {**entry, "version": loaded.version + 1})
        result = self.store.append(
            loaded.record.id,
            entry,
            loaded.version,
            idempotency_key=key,
            fingerprint=fingerprint,
            ai_seats=self.ai_to_move(loaded.record, game, after),
            clocks=lifecycle.timed_seats(loaded.record, after),
        )
        if result.duplicate:
            return self.load(loaded.record.id), result
        entry["version"] = result.version
        new = Loaded(loaded.record, after)
        self._cache.put(loaded.record.id, new.folded)
        self._after(new, entry)
        return new, result

    def _check_not_stale(self, loaded: Loaded, seat: int, expected: int) -> None:
        """Refuse with ``stale-version`` unless what ``seat`` could do is unchanged since ``expected``.

        In simultaneous phases other seats' steps do not touch this seat's options,
        so its move goes through; in turn-based play the turn passing, or the
        seat's own later move, changes its legal moves and the move is stale.
        """
        current = loaded.folded.version
        if expected > current or expected < 1:
            raise VersionConflict(current, f"The match is at version {current}, not {expected}.")
        if any(
            e.get("seat") == seat or e["kind"] != "move" for e in self.store.read(loaded.record.id, expected)
        ):
            raise VersionConflict(current, f"The match moved on to version {current}.")
        game = self.game(loaded.record)
        then = self.load(loaded.record.id, expected).folded.state
        if game.legal_moves(then, seat) != game.legal_moves(loaded.folded.state, seat):
            raise VersionConflict(current, f"The match moved on to version {current}.")

    def _replayed(
        self, match_id: str, version: int, stored: str | None = None, fingerprint: str | None = None
    ) -> MoveResult:
        """The result of the append that first used an idempotency key; refused when
        the key is reused for a different request (``stored`` is that request's fingerprint)."""
        self._check_fingerprint(stored, fingerprint)
        entry = self.store.entry(match_id, version)
        return MoveResult(version, entry, self.load(match_id), duplicate=True)

    @staticmethod
    def _check_fingerprint(stored: str | None, fingerprint: str | None) -> None:
        if stored is not None and fingerprint is not None and stored != fingerprint:
            raise _key_reused()

    def _after(self, loaded: Loaded, entry: dict | None, progress_saved: bool = False) -> None:
        faults.point("after-append")  # crash tests: the entry is stored, no AI job enqueued yet
        record, folded = loaded.record, loaded.folded
        game = self.game(record)
        if not progress_saved:
            self.records.set_progress(
                record.id, status_of(record, game, folded.state, folded), folded.version
            )
        if self.snapshot_every and folded.version % self.snapshot_every == 0:
            snapshot = folded.to_snapshot() | {"code_rules_version": game.info.rules_version}
            self.store.save_snapshot(record.id, folded.version, snapshot)
        observers = self.registry.pm.hook.gameroom_entry_appended
        if entry is not None and observers.get_hookimpls():  # pluggy's call costs more than the check
            try:
                observers(match_id=record.id, entry=entry)
            except Exception:  # an observer must not undo an accepted move
                log.exception("gameroom_entry_appended observer failed for match %s", record.id)
        for callback in self.after_append:
            try:
                callback(self, loaded, entry)
            except GameroomError:
                raise
            except Exception:  # an observer must not undo an accepted move
                log.exception("after-append callback %r failed for match %s", callback, record.id)
