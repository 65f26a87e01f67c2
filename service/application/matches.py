"""The facade of the application layer: :class:`Matches`, what the HTTP API and the AI workers call."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence

from ..core.decider import Folded
from ..core.matches import MatchRecord, Seat
from ..core.moves import ai_to_move
from ..core.rng import Seeding
from ..eventstore import EventStore
from ..eventstore.records import MatchRecords
from ..registry import Registry
from . import appending, clocks, creating, moves, reading
from .caches import Caches
from .loaded import Loaded, MoveResult


class Matches:
    """Use cases over the pure core and the store: create, claim, load, move, append.

    The HTTP API and the AI workers both call it, so a move from a bot and a move from a
    browser take the same command path. It knows nothing of HTTP or RQ; what follows an
    append (AI and timeout scheduling, observers) are callbacks registered in
    ``after_append``. Each method hands over to the module of its concern:
    :mod:`~gameroom.application.creating` (create, claim), :mod:`~gameroom.application.reading`
    (load, views), :mod:`~gameroom.application.moves` (moves and drafts),
    :mod:`~gameroom.application.clocks` (clocks and timeouts) and
    :mod:`~gameroom.application.appending` (platform entries, and what follows every append).

    **Loading.** :meth:`open` returns the match and the seat of a token in at most one round
    trip to Redis when this process's caches are warm (:attr:`caches`: recent folds, the
    records of full matches, the seats of tokens). ``open(fresh=False)`` goes further: when
    everything is cached it makes no round trip at all, and the fold it returns may be behind
    the store (another process appended since).

    **Moves on a cached fold.** :meth:`submit` takes such a load with ``maybe_behind=True``.
    It is safe because the append checks the version the move was decided on: a move decided
    on a stale fold is refused by the store (VersionConflict) and never appended. The submit
    then runs its *re-judge loop*: it loads the match fresh and decides again; likewise, a
    move *refused* on a fold that may be behind (not your turn, stale, illegal) is judged
    again on a fresh load before the refusal is answered. A fresh load's refusal stands. After
    ``append_retries`` conflicts in a row the move is refused as ``busy``.
    """

    def __init__(
        self,
        store: EventStore,
        records: MatchRecords,
        registry: Registry,
        *,
        snapshot_every: int = 100,
        append_retries: int = 20,
        clock: Callable[[], float] = time.time,
        seeding: Seeding | Callable[[], Seeding] | None = None,
        token_secret: bytes | Callable[[], bytes] | None = None,
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
        #: ``callback(matches, loaded, entry)`` after every append (see :func:`appending.announce`)
        self.after_append: list = []
        self.caches = Caches()

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

    # -- creating and claiming (creating.py) --------------------------------------------

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
        ``settings``: the match's settings (clock, timeout policy, unlisted, hide_names; the
        clocks run in :mod:`gameroom.core.lifecycle`); ``admin_hash``: the :func:`hash_token` of the creator's
        admin token, which may later reissue a left seat's token; ``match_id``: a planned id (rematch).
        """
        return creating.create(
            self, game_slug, seats, options, seed, settings=settings, admin_hash=admin_hash, match_id=match_id
        )

    def claim_seat(
        self, match_id: str, seat: int, name: str, idempotency_key: str | None = None
    ) -> tuple[Loaded, str]:
        """Take the open ``seat`` for ``name``: the match and the seat's token.

        With ``idempotency_key`` the token is derived from it (:func:`claim_token`), so a repeat
        of the claim that won the seat finds its token acting for it and gets the same answer;
        the same key with another name is refused (idempotency-key-reused), and any other claim
        of a taken seat with seat-taken."""
        return creating.claim_seat(self, match_id, seat, name, idempotency_key)

    def seat_claimed(
        self, match_id: str, loaded: Loaded | None = None, progress_saved: bool = False
    ) -> Loaded:
        """After a claim: once every seat is taken, start the clocks and schedule the AI.
        ``loaded``: the match as it is now, if the caller has it; ``progress_saved``: the claim
        saved the lobby's status already (see :meth:`MatchRecords.claim`)."""
        return creating.seat_claimed(self, match_id, loaded, progress_saved)

    def seats_for(self, game, seats: Sequence[dict | None]) -> list[Seat]:
        """``seats`` as Seat objects, after checking them against ``game``: how many it
        takes and its AI levels (None leaves a seat open). Create, fork and import
        all check here, so they refuse the same things with the same codes."""
        return creating.seats_for(self, game, seats)

    # -- loading and views (reading.py) ---------------------------------------------------

    def record(self, match_id: str) -> MatchRecord:
        return reading.record(self, match_id)

    def game(self, record: MatchRecord):
        return self.registry.get(record.game)

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
        return reading.open_match(self, match_id, token, fresh=fresh)

    def with_draft(self, loaded: Loaded, seat: int | None) -> Loaded:
        """``loaded`` as ``seat`` sees it: with its draft (its sealed steps not yet in the log).

        Only ``seat``'s token reaches its draft; spectators and other seats get the log alone.
        """
        return reading.with_draft(self, loaded, seat)

    def load(self, match_id: str, version: int | None = None) -> Loaded:
        """The match folded to ``version`` (default: its latest)."""
        if version is None:
            return self.open(match_id)[0]
        return reading.load_at(self, self.record(match_id), version)

    def redact(self, loaded: Loaded, entries: list[dict], viewer: int | None) -> list[dict]:
        return reading.redact(self, loaded, entries, viewer)

    @staticmethod
    def ai_to_move(record: MatchRecord, game, folded: Folded) -> list[int]:
        """The AI seats to move in ``folded`` (see :func:`gameroom.core.moves.ai_to_move`)."""
        return ai_to_move(record, game, folded)

    def ai_levels(self, game) -> list[str]:
        return reading.ai_levels(self, game)

    # -- moves and drafts (moves.py) ------------------------------------------------------

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
        """Decide ``move`` for ``seat`` and append it (load -> decide -> append -> after: see
        :mod:`gameroom.application.moves`).

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
        return moves.submit(
            self,
            match_id,
            seat,
            move,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
            actor=actor,
            loaded=loaded,
            maybe_behind=maybe_behind,
            token=token,
        )

    def undo_draft(
        self, loaded: Loaded, seat: int, steps: int, key: str | None = None, fingerprint: str | None = None
    ) -> Loaded:
        """Drop ``seat``'s last ``steps`` draft steps (its own undo; nothing is appended).

        ``loaded`` comes from :meth:`with_draft`; VersionConflict if the draft changed since.
        ``key``, ``fingerprint``: the undo's idempotency key, kept in the draft with the pop; if
        it is there already, nothing is dropped (idempotency-key-reused for another request, or
        where a step of the draft, kept or dropped, used it).
        """
        return moves.undo_draft(self, loaded, seat, steps, key, fingerprint)

    # -- clocks and timeouts (clocks.py) --------------------------------------------------

    def ensure_started(self, loaded: Loaded) -> Loaded:
        """``loaded`` with its clocks started, if every seat is taken but no ``start`` entry is
        in the log yet: the claim of the last seat appends it just after the claim, so an action
        racing that claim (or coming after a claim that died in between) appends it first.
        Nothing else may come before it: a leave or a resign before the start would be undone by
        it (the start resets the seats' control) or precede it in a log import refuses."""
        return clocks.ensure_started(self, loaded)

    def check_in_time(self, loaded: Loaded, seat: int) -> None:
        """Refuse an action of ``seat`` (a leave, an undo) once its time has run out, with the
        timeout policy applied first, as a late move is: else a leave sent after the deadline
        would hand the seat to an AI and escape a forfeit. A conflict (the timeout job came
        first) is refused as stale: the caller's next try sees what it did."""
        clocks.check_in_time(self, loaded, seat)

    def time_out(self, loaded: Loaded, seat: int) -> Loaded:
        """Append the timeout of ``seat`` (the match's timeout policy) at ``loaded``'s version;
        VersionConflict if the match moved. The caller checked that the seat's time ran out."""
        return clocks.time_out(self, loaded, seat)

    def timeout_due(self, match_id: str, version: int, seat: int, now: float) -> dict:
        """The clock timeout job's use case: see :func:`gameroom.application.clocks.timeout_due`."""
        return clocks.timeout_due(self, match_id, version, seat, now)

    # -- platform entries (appending.py) ---------------------------------------------------

    def append(self, loaded: Loaded, entry: dict, idempotency_key: str | None = None) -> Loaded:
        """Append a platform-made entry (undo) at ``loaded``'s version; VersionConflict if it moved.

        ``idempotency_key``: the platform's own key for an action told once however often it is
        asked (never a client's: those begin with the seat); if an entry was appended with it
        already, nothing is appended and the match is returned as it is now."""
        return appending.append(self, loaded, entry, idempotency_key)

    def append_once(self, loaded: Loaded, entry: dict, key: str, fingerprint: str) -> tuple[Loaded, int]:
        """:meth:`append` for a client's request with idempotency ``key`` (``seat:key``, as moves
        have it) and ``fingerprint``: the match and the version of the key's entry, this one or
        the one its first use appended (idempotency-key-reused if that was another request)."""
        return appending.append_once(self, loaded, entry, key, fingerprint)

    def announce(self, loaded: Loaded, entry: dict | None, progress_saved: bool = False) -> None:
        """What follows an append: see :func:`gameroom.application.appending.announce`."""
        appending.announce(self, loaded, entry, progress_saved)
