"""The application layer: use cases over the pure core and the store.

``Matches`` is what the HTTP API and the AI workers both call, so a move from
a bot and a move from a browser take the same command path. It knows nothing
of HTTP or RQ; side effects after an append (AI scheduling, observers) are
callbacks registered in ``after_append``.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from marshmallow import ValidationError

from .core import decider
from .core.decider import Folded
from .core.matches import (
    FINISHED, MatchRecord, Seat, hash_token, new_match_id, new_token, redact_entry, status_of,
)
from .core.rng import new_seed
from .errors import Conflict, GameroomError, NotFound, NotYourSeat, ValidationFailed, VersionConflict
from .eventstore import EventStore
from .eventstore.records import MatchRecords
from .plugin_api import IllegalMove
from .registry import Registry

log = logging.getLogger(__name__)


@dataclass
class Loaded:
    record: MatchRecord
    folded: Folded

    @property
    def version(self) -> int:
        return self.folded.version


@dataclass
class MoveResult:
    version: int
    entry: dict
    loaded: Loaded
    duplicate: bool = False


class _LRU:
    """A small thread-safe LRU map."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key, value) -> None:
        with self._lock:
            if self._keeps(key, value):
                self._items[key] = value
                self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def _keeps(self, key, value) -> bool:
        """Whether ``put`` stores ``value`` (called under the lock)."""
        return True


class _FoldCache(_LRU):
    """Recently folded matches, so a load folds only the entries it has not seen."""

    def __init__(self, size: int = 512):
        super().__init__(size)

    def _keeps(self, match_id: str, folded: Folded) -> bool:
        current = self._items.get(match_id)  # never replace a fold by an older one
        return current is None or current.version <= folded.version


class Matches:
    def __init__(self, store: EventStore, records: MatchRecords, registry: Registry,
                 *, snapshot_every: int = 100, append_retries: int = 20, clock=time.time):
        self.store = store
        self.records = records
        self.registry = registry
        self.snapshot_every = snapshot_every
        self.append_retries = append_retries
        self.clock = clock
        self.after_append: list = []
        self._cache = _FoldCache()
        # What never changes once known: the record of a match whose seats are
        # all filled (claims are final) and the seat of a valid token.
        self._records = _LRU(4096)
        self._seats = _LRU(16384)

    # -- creating and joining --------------------------------------------

    def create(self, game_slug: str, seats: list[dict | None], options: dict | None = None,
               seed: str | None = None) -> tuple[Loaded, dict[int, str]]:
        """Create a match; returns it and one token per human seat filled now."""
        installed = self.registry.installed(game_slug)
        game = installed.game
        n = len(seats)
        if not game.info.min_players <= n <= game.info.max_players:
            raise ValidationFailed(
                f"{game.info.title} takes {game.info.min_players}–{game.info.max_players} seats, not {n}.",
                code="bad-seat-count", errors={"seats": [f"needs {game.info.min_players}–{game.info.max_players} seats"]},
            )
        levels = set(self.ai_levels(game)) if any(s and s.get("ai") for s in seats) else set()
        seat_objs = []
        for i, s in enumerate(seats):
            if s is None:
                seat_objs.append(Seat())
                continue
            if s.get("ai") and s["ai"] not in levels:
                raise ValidationFailed(f"Unknown AI level '{s['ai']}'.", code="unknown-ai-level",
                                       errors={"seats": {str(i): {"ai": [f"one of {sorted(levels)}"]}}})
            seat_objs.append(Seat(name=s["name"], ai=s.get("ai")))
        try:
            opts = game.load_options(options)
        except ValidationError as exc:
            raise ValidationFailed("Invalid game options.", code="bad-options",
                                   errors={"options": exc.messages}) from None
        try:
            game.check_seats(n, opts)  # options may change the allowed counts (a solo variant)
        except IllegalMove as exc:
            raise ValidationFailed(exc.message, code="bad-seat-count",
                                   errors={"seats": [exc.message]}) from None
        record = MatchRecord(id=new_match_id(), game=game_slug, options=opts, seed=seed or new_seed(),
                             created=self.clock(), seats=seat_objs)
        entry = decider.setup_entry(game, n, opts, record.seed)
        entry["time"] = record.created
        tokens = {i: new_token() for i, s in enumerate(seat_objs) if s.filled and not s.ai}
        # The new match is folded here, not read back: its only entry is the one being written.
        loaded = Loaded(record, decider.fold(game, [entry | {"version": 1}]))
        # Record, tokens, lobby and first entry in one transaction: one round trip.
        pipe = self.store.redis.pipeline(transaction=True)
        self.records.queue_create(pipe, record, tokens)
        self.store.queue_append(pipe, record.id, entry, 0, status=status_of(record, game, loaded.folded.state))
        self.store.parse_append(pipe.execute()[-1])
        self._cache.put(record.id, loaded.folded)
        if record.full:
            self._records.put(record.id, record)
        for seat, token in tokens.items():
            self._seats.put((record.id, hash_token(token)), seat)
        self._after(loaded, entry | {"version": 1}, progress_saved=True)
        log.info("match %s created: %s, %d seats", record.id, game_slug, n)
        return loaded, tokens

    def claim_seat(self, match_id: str, seat: int, name: str) -> tuple[Loaded, str]:
        record = self.record(match_id)
        if not 0 <= seat < record.num_seats:
            raise NotFound(f"Match {match_id} has no seat {seat}.", code="no-such-seat")
        token = new_token()
        if not self.records.claim(match_id, seat, name, token):
            raise Conflict(f"Seat {seat} is taken.", code="seat-taken")
        loaded = self.load(match_id)
        log.info("match %s: seat %d claimed", match_id, seat)
        if loaded.record.full:
            self._after(loaded, None)
        return loaded, token

    # -- reading ---------------------------------------------------------

    def record(self, match_id: str) -> MatchRecord:
        record = self.records.get(match_id)
        if record is None:
            raise NotFound(f"No match {match_id}.", code="unknown-match")
        return record

    def game(self, record: MatchRecord):
        return self.registry.get(record.game)

    def open(self, match_id: str, token: str | None = None, *,
             fresh: bool = True) -> tuple[Loaded, int | None, bool]:
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
            return Loaded(record, start), seat, True
        if record is not None and not need_seat and start is not None:
            entries = self.store.read(match_id, start.version)
        else:
            pipe = self.store.redis.pipeline(transaction=False)
            if record is None:
                self.records.queue_get(pipe, match_id)
            if need_seat:
                self.records.queue_seat(pipe, match_id, token_hash)
            if start is not None:
                self.store.queue_read(pipe, match_id, start.version)
            results = iter(pipe.execute())
            if record is None:
                record = self.records.parse(next(results))
                if record is None:
                    raise NotFound(f"No match {match_id}.", code="unknown-match")
                if record.full:
                    self._records.put(match_id, record)
            if need_seat:
                seat = self.records.parse_seat(next(results))
                if seat is not None:
                    self._seats.put((match_id, token_hash), seat)
            entries = self.store.decode(next(results)) if start is not None else None
        if start is not None:
            folded = decider.fold(self.game(record), entries, start)
            self._cache.put(match_id, folded)
            loaded = Loaded(record, folded)
        else:
            loaded = self._load(record, None)
        return loaded, seat, token is None or seat is not None

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
        public = status_of(record, game, folded.state) == FINISHED
        names = record.names()
        return [redact_entry(game, e, viewer, names, public=public, undone=e["version"] in folded.undone)
                for e in entries]

    def ai_levels(self, game) -> list[str]:
        from .ai import builtin_levels  # local: the AI package is optional for the core

        return sorted(set(builtin_levels(game)) | set(self.registry.ai_policies(game)))

    # -- moves -----------------------------------------------------------

    def submit(self, match_id: str, seat: int, move: dict, *, expected_version: int | None = None,
               idempotency_key: str | None = None, actor: str | None = None,
               loaded: Loaded | None = None, maybe_behind: bool = False) -> MoveResult:
        """Decide ``move`` for ``seat`` and append it.

        With ``expected_version`` the move is refused with ``stale-version`` if the
        match moved on in a way that changed what ``seat`` may do; other seats'
        steps that leave its legal moves unchanged (simultaneous phases) do not
        make it stale. Without it, the move is checked against the latest state
        and the append retried on a race.

        ``loaded``: the match as the caller already has it; ``maybe_behind``
        says it came from :meth:`open` with ``fresh=False`` and may be behind.
        """
        key = f"{seat}:{idempotency_key}" if idempotency_key else None
        if key is not None:
            prior = self.records.idempotent_version(match_id, key)
            if prior is not None:
                return self._replayed(match_id, prior)
        # A ``loaded`` from open(fresh=False) may be behind the store: the append's
        # version check catches that, and anything refused on it is re-checked fresh.
        fresh = loaded is None or not maybe_behind
        if not fresh and expected_version is not None and expected_version != loaded.version:
            loaded = None
        for _attempt in range(self.append_retries):
            if loaded is None:
                loaded, fresh = self.load(match_id), True
            record, folded = loaded.record, loaded.folded
            if record.read_only:
                raise Conflict("This match is a read-only import.", code="read-only")
            if not record.full:
                raise Conflict("The match has open seats and has not started.", code="match-not-started")
            if seat is None or not 0 <= seat < record.num_seats:
                raise NotYourSeat("Spectators cannot move.")
            game = self.game(record)
            try:
                if expected_version is not None and expected_version != folded.version:
                    self._check_not_stale(loaded, seat, expected_version)
                entry = decider.decide(game, folded, seat, move, record.seed)
            except GameroomError:
                if fresh:
                    raise
                loaded = None  # judged on a cached fold: judge again on the latest
                continue
            entry["time"] = self.clock()
            if actor:
                entry["actor"] = actor
            new = Loaded(record, decider.apply_entry(game, folded, {**entry, "version": folded.version + 1}))
            status = status_of(record, game, new.folded.state)
            try:
                result = self.store.append(match_id, entry, folded.version, key, status=status)
            except VersionConflict:
                loaded = None
                continue
            if result.duplicate:
                return self._replayed(match_id, result.version)
            entry["version"] = result.version
            self._cache.put(match_id, new.folded)
            self._after(new, entry, progress_saved=True)
            return MoveResult(result.version, entry, new)
        raise Conflict("The match is too busy; try again.", code="busy")

    def append(self, loaded: Loaded, entry: dict) -> Loaded:
        """Append a platform-made entry (undo) at ``loaded``'s version; VersionConflict if it moved."""
        game = self.game(loaded.record)
        entry = {**entry, "time": self.clock(), "rules_version": game.info.rules_version}
        result = self.store.append(loaded.record.id, entry, loaded.version)
        entry["version"] = result.version
        new = Loaded(loaded.record, decider.apply_entry(game, loaded.folded, entry))
        self._cache.put(loaded.record.id, new.folded)
        self._after(new, entry)
        return new

    def _check_not_stale(self, loaded: Loaded, seat: int, expected: int) -> None:
        """Refuse with ``stale-version`` unless what ``seat`` could do is unchanged since ``expected``.

        In simultaneous phases other seats' steps do not touch this seat's options,
        so its move goes through; in turn-based play the turn passing, or the
        seat's own later move, changes its legal moves and the move is stale.
        """
        current = loaded.folded.version
        if expected > current or expected < 1:
            raise VersionConflict(current, f"The match is at version {current}, not {expected}.")
        if any(e.get("seat") == seat or e["kind"] != "move" for e in self.store.read(loaded.record.id, expected)):
            raise VersionConflict(current, f"The match moved on to version {current}.")
        game = self.game(loaded.record)
        then = self.load(loaded.record.id, expected).folded.state
        if game.legal_moves(then, seat) != game.legal_moves(loaded.folded.state, seat):
            raise VersionConflict(current, f"The match moved on to version {current}.")

    def _replayed(self, match_id: str, version: int) -> MoveResult:
        entry = self.store.entry(match_id, version)
        return MoveResult(version, entry, self.load(match_id), duplicate=True)

    def _after(self, loaded: Loaded, entry: dict | None, progress_saved: bool = False) -> None:
        record, folded = loaded.record, loaded.folded
        game = self.game(record)
        if not progress_saved:
            self.records.set_progress(record.id, status_of(record, game, folded.state), folded.version)
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

