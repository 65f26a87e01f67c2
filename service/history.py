"""The event history as a feature: undo (direct or by request), fork, export and import.

Built on :class:`gameroom.application.Matches`; like it, free of HTTP and RQ.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets

from .application import Loaded, Matches, has_drafts
from .core import lifecycle
from .core.decider import BASE, CONFIRMS, deal_entry
from .core.matches import FINISHED, MatchRecord, new_match_id, new_token, status_of
from .core.undo import (
    APPLY,
    UndoConfirmed,
    UndoPlan,
    fewer_steps,
    has_base,
    plan_undo,
    state_after,
    undo_entry,
)
from .errors import Conflict, GameroomError, NotFound, ValidationFailed, VersionConflict
from .logcheck import TamperedLog, verified_log

log = logging.getLogger(__name__)

EXPORT_FORMAT = "gameroom-match"
EXPORT_FORMAT_VERSION = 1

#: How often a write to an undo request is tried when racing writes to it came first.
ATTEMPTS = 5


def undo_fingerprint(steps: int, expected_version: int | None) -> str:
    """What makes two undos with one Idempotency-Key the same request (never equal to a move's:
    see :func:`gameroom.application.request_fingerprint`)."""
    canonical = json.dumps(
        {"undo": {"steps": steps}, "expected_version": expected_version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def _key_reused() -> ValidationFailed:
    return ValidationFailed(
        "This Idempotency-Key was already used for a different request; use a new key for a new undo.",
        code="idempotency-key-reused",
    )


def _holds_key(request: dict, key: str) -> bool:
    """Whether an undo request was the answer to an undo sent with idempotency ``key``: the one
    that opened it (``key``) or a repeat of it answered with it (``more_keys``, with fingerprints)."""
    return request.get("key") == key or key in request.get("more_keys", {})


class History:
    def __init__(self, matches: Matches):
        self.matches = matches
        self.records = matches.records

    # -- undo ------------------------------------------------------------

    def undo(
        self,
        match_id: str,
        seat: int,
        steps: int = 1,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[str, dict | None]:
        """Undo ``seat``'s last ``steps`` steps: ``("applied", entry)`` (entry None: the steps were
        in the seat's draft) or ``("requested", request)``.

        ``expected_version``: refused with stale-version unless the match is still at that version
        (its log's: sealed steps in a draft do not change it). ``idempotency_key``: the client's
        (moves' and undos' of one seat share them); a repeat answers what the first use did (its
        undo, its request as it stands now, or its dropped draft steps) instead of undoing again,
        and the same key with another request is refused (idempotency-key-reused)."""
        if idempotency_key is None:
            return self._undo(match_id, seat, steps, expected_version, None, None)
        key = f"{seat}:{idempotency_key}"
        fingerprint = undo_fingerprint(steps, expected_version)
        try:
            return self._undo(match_id, seat, steps, expected_version, key, fingerprint)
        except GameroomError:
            # A repeat that overlapped its first use may have been judged on what that one did
            # (nothing left to undo, the match or the draft moved): the first use kept its key
            # atomically with what it did, so look again and answer with that rather than refuse.
            replay = self._replay(match_id, seat, key, fingerprint)
            if replay is None:
                raise
            return replay

    def _undo(
        self,
        match_id: str,
        seat: int,
        steps: int,
        expected_version: int | None,
        key: str | None,
        fingerprint: str | None,
    ) -> tuple[str, dict | None]:
        loaded = self.matches.load(match_id)
        mine = self.matches.with_draft(loaded, seat)
        if key is not None:
            # Looked up after the match and the draft were read: a first use whose effect they
            # show has its key stored already. One they miss finds the key in the append or the
            # pop below (checked there first), or the request it opened in ``_ask``.
            replay = self._replay(match_id, seat, key, fingerprint)
            if replay is not None:
                return replay
        self._playable(loaded)
        loaded = self.matches.ensure_started(loaded)
        self.matches.check_in_time(loaded, seat)  # time ran out: the timeout first, as for a move
        if expected_version is not None and expected_version != loaded.version:
            raise VersionConflict(
                loaded.version, f"The match is at version {loaded.version}, not {expected_version}."
            )
        if mine.draft:
            return "applied", self._undo_draft(mine, seat, steps, key, fingerprint)
        own = [c for c in loaded.folded.checkpoints[1:] if c[1] == seat]
        if own and own[-1][2] & CONFIRMS and has_drafts(self.matches.game(loaded.record)):
            # The entry that confirmed holds all of the seat's sealed steps before it: however
            # many steps are asked for, they are confirmed ones.
            raise UndoConfirmed("You confirmed these steps: they can no longer be undone.")
        plan = plan_undo(loaded.folded, seat, steps)
        # Every other human seat votes; AI seats (also a person's seat an AI plays now) never block an undo.
        voters = sorted(
            i
            for i, s in enumerate(loaded.record.seats)
            if not s.ai and not lifecycle.taken_over(loaded.folded, i) and i != seat
        )
        if plan.kind == APPLY or not voters:
            return "applied", self._apply(loaded, seat, plan, key, fingerprint)
        request = {
            "id": secrets.token_hex(6),
            "seat": seat,
            "steps": steps,
            "target": plan.target,
            "undoes": list(plan.undoes),
            "base_version": loaded.version,
            "votes": {str(v): None for v in voters},
            "status": "pending",
        }
        if key is not None:  # kept with the request (never shown): a repeat finds it, its approval keeps it
            request.update(key=key, fingerprint=fingerprint)
        return "requested", self._ask(match_id, request)

    def _replay(self, match_id: str, seat: int, key: str, fingerprint: str) -> tuple[str, dict | None] | None:
        """What the first undo with idempotency ``key`` did, or None when the key is new: an undo
        in the log (the key kept with its entry; a request's, if it applied one the match still
        keeps), a request (the key kept with it, while the match keeps it) or draft steps dropped
        (the key kept in the draft, then with the entry that confirms it)."""
        prior = self.records.idempotent(match_id, key)
        if prior is not None:
            version, stored = prior
            entry = self.matches.store.entry(match_id, version)
            if stored != fingerprint or entry is None:
                raise _key_reused()
            if entry["kind"] != "undo":
                # An undo of sealed steps whose draft this entry (the seat's confirming step)
                # carried: its key moved to the log with the draft (see ``APPEND_LUA``).
                return "applied", None
            request = self.records.undo_request(match_id, entry["request"]) if entry.get("request") else None
            if request is None:
                return "applied", entry
            return "requested", self._as_of(match_id, request, self.matches.store.version(match_id))
        for request in self.records.kept_undo_requests(match_id):
            if _holds_key(request, key):
                stored = request["fingerprint"] if request.get("key") == key else request["more_keys"][key]
                if stored != fingerprint:
                    raise _key_reused()
                return "requested", self._as_of(match_id, request, self.matches.store.version(match_id))
        record = self.matches.record(match_id)
        if has_drafts(self.matches.game(record)):
            draft = self.matches.store.draft(match_id, seat)
            undone = draft.undone.get(key)
            if undone is not None:
                if undone[1] != fingerprint:
                    raise _key_reused()
                return "applied", None
            if key in draft.keys or key in draft.dropped:  # a sealed step's, kept or undone
                raise _key_reused()
        return None

    def _ask(self, match_id: str, request: dict) -> dict:
        """The seat's pending request for what ``request`` asks: the one it has for exactly that
        (the same steps at the same version: a repeat, maybe a client's retry, gets the same
        request), else ``request``, which withdraws the seat's other pending one (a seat has at
        most one: asking again and again never piles requests up for the others to answer)."""
        seat = request["seat"]
        for _ in range(ATTEMPTS):
            mine = [r for r in self.records.pending_undo_requests(match_id) if r["seat"] == seat]
            if not mine:
                if self.records.open_undo_request(match_id, request):
                    log.info(
                        "match %s: seat %d asks to undo to v%d (request %s)",
                        match_id,
                        seat,
                        request["target"],
                        request["id"],
                    )
                    return request
            elif (mine[0]["base_version"], mine[0]["steps"]) == (request["base_version"], request["steps"]):
                key = request.get("key")
                if key is None or _holds_key(mine[0], key):
                    return mine[0]
                # Answered with this request, the repeat's key must find it again, as the first's does.
                more = {**mine[0].get("more_keys", {}), key: request["fingerprint"]}
                kept = {**mine[0], "more_keys": more}
                if self.records.save_undo_request(match_id, kept, was=mine[0]):
                    return kept
            else:
                self.records.save_undo_request(match_id, {**mine[0], "status": "withdrawn"}, was=mine[0])
            # Someone else's write came first (a racing request of this seat, or a vote): look again.
        raise Conflict(
            "Your seat's undo requests raced each other; try the undo again.", code="stale-version"
        )

    def _undo_draft(
        self, mine: Loaded, seat: int, steps: int, key: str | None = None, fingerprint: str | None = None
    ) -> None:
        """Undo steps of ``seat``'s draft (its sealed steps): they were never in the log, so
        nothing is appended and no one else learns of it. Steps before the draft are behind
        the last barrier (the draft starts there): they cannot be undone."""
        if steps < 1:
            raise Conflict("Undo at least one step.", code="bad-undo-steps")
        if steps > len(mine.draft):
            base = mine.folded.revealed
            raise fewer_steps(len(mine.draft), (base, seat, BASE), base)
        try:
            self.matches.undo_draft(mine, seat, steps, key, fingerprint)
        except VersionConflict:
            raise Conflict("The match moved on; try the undo again.", code="stale-version") from None
        log.info("match %s: seat %d undid %d sealed step(s)", mine.record.id, seat, steps)

    def _apply(self, loaded: Loaded, seat: int, plan, key: str | None, fingerprint: str | None) -> dict:
        try:
            return self._append_undo(loaded, seat, plan, None, key, fingerprint)
        except VersionConflict:
            raise Conflict("The match moved on; try the undo again.", code="stale-version") from None

    def _append_undo(
        self,
        loaded: Loaded,
        seat: int,
        plan,
        request_id: str | None = None,
        key: str | None = None,
        fingerprint: str | None = None,
    ) -> dict:
        """Append ``seat``'s undo by ``plan`` at ``loaded``'s version (VersionConflict if it moved);
        ``request_id``: the request it applies, named in the entry; ``key``, ``fingerprint``: the
        client's idempotency key, kept with the entry (if it has one already, that is the entry)."""
        target_state = self._state_after(loaded, plan)
        entry = undo_entry(seat, plan, target_state, request_id)
        if key is None:
            version = self.matches.append(loaded, entry).version
        else:
            version = self.matches.append_once(loaded, entry, key, fingerprint or "")[1]
        log.info("match %s: seat %d undid v%s", loaded.record.id, seat, plan.undoes)
        return self.matches.store.entry(loaded.record.id, version)

    def _state_after(self, loaded: Loaded, plan: UndoPlan):
        """The state ``plan`` returns the match to (see :func:`gameroom.core.undo.state_after`)."""
        match_id, folded = loaded.record.id, loaded.folded
        if not has_base(folded):  # the checkpoints were cut short: no selective undo reaches here
            return self.matches.load(match_id, plan.target).folded.state
        base = folded.checkpoints[0][0]
        base_state = self.matches.load(match_id, base).folded.state
        entries = self.matches.store.read(match_id, base, folded.version)
        return state_after(
            self.matches.game(loaded.record), folded, plan.target, plan.keeps, base_state, entries
        )

    def request(self, match_id: str, request_id: str) -> dict:
        return self._as_of(match_id, self._stored(match_id, request_id), self.matches.store.version(match_id))

    def _stored(self, match_id: str, request_id: str) -> dict:
        request = self.records.undo_request(match_id, request_id)
        if request is None:
            raise NotFound(f"No undo request {request_id}.", code="unknown-undo-request")
        return request

    def _as_of(self, match_id: str, request: dict, version: int) -> dict:
        """``request`` as it stands at ``version``. Its undo in the log (the entry right after its
        base version, naming it) makes it approved, whatever is stored: the entry is appended
        before the request is saved approved, and a racing vote, or a process dying in between,
        must not leave an applied request reading pending or withdrawn. Otherwise a pending one
        is withdrawn once anything was appended after it. Worked out on read, never written (it
        holds for good: versions only grow), so reading requests writes nothing."""
        if request["status"] == "approved" or version == request["base_version"]:
            return request
        if self._applied(match_id, request):
            return {**request, "status": "approved", "votes": dict.fromkeys(request["votes"], True)}
        if request["status"] == "pending":
            return {**request, "status": "withdrawn"}
        return request

    def _applied(self, match_id: str, request: dict) -> bool:
        """Whether ``request``'s undo is in the log (only its base version's next entry can be)."""
        entry = self.matches.store.entry(match_id, request["base_version"] + 1)
        return entry is not None and entry["kind"] == "undo" and entry.get("request") == request["id"]

    def pending(self, match_id: str) -> list[dict]:
        """The match's undo requests still waiting for votes (at most one a seat), by seat."""
        version = self.matches.store.version(match_id)
        requests = (self._as_of(match_id, r, version) for r in self.records.pending_undo_requests(match_id))
        return sorted((r for r in requests if r["status"] == "pending"), key=lambda r: r["seat"])

    def vote(self, match_id: str, request_id: str, seat: int, approve: bool) -> tuple[dict, dict | None]:
        """Record ``seat``'s vote; when all approve, the undo is applied. Returns (request, entry).

        A seat's vote is final: the same vote again answers the request as it stands, also once
        it is decided by that vote (approved, refused), so a vote whose answer was lost can be sent
        again (and applies
        it, if every vote is in but the undo is not: the approving process died before its
        append), another vote is 409 vote-already-cast. Every vote is saved with a compare-and-set
        against the request as read, the last approval too, before it appends the undo: of a
        refusal and that approval racing, one is saved first and the other finds the request
        decided (409), so a refusal never answers 200 for a request whose undo is applied."""
        self.matches.record(match_id)
        for _ in range(ATTEMPTS):
            stored = self._stored(match_id, request_id)
            request = self._as_of(match_id, stored, self.matches.store.version(match_id))
            if request["status"] != "pending":
                decided = {"approved": True, "refused": False}.get(request["status"])
                if (
                    decided is not None
                    and decided == bool(approve)
                    and request["votes"].get(str(seat)) is decided
                ):
                    return request, None  # the vote that decided it, sent again (its answer was lost)
                raise Conflict(
                    f"The undo request is {request['status']}.", code=f"undo-request-{request['status']}"
                )
            if str(seat) not in request["votes"]:
                raise Conflict("Your seat does not vote on this request.", code="not-a-voter")
            cast = request["votes"][str(seat)]
            if cast is not None and cast != bool(approve):
                raise Conflict(
                    f"Your seat {'approved' if cast else 'refused'} this request already; a vote is final.",
                    code="vote-already-cast",
                )
            request = {**request, "votes": {**request["votes"], str(seat): bool(approve)}}
            if not approve:
                request["status"] = "refused"
            if request != stored and not self.records.save_undo_request(match_id, request, was=stored):
                continue  # another vote, or the asker's new request, came first: look again
            if not approve or not all(request["votes"].values()):
                return request, None
            loaded = self.matches.load(match_id)
            if loaded.version != request["base_version"]:
                # Something was appended since the request was read: look again (a move
                # withdrew it, or a racing vote applied it).
                continue
            plan = plan_undo(loaded.folded, request["seat"], request["steps"])
            try:
                entry = self._append_undo(
                    loaded,
                    request["seat"],
                    plan,
                    request["id"],
                    request.get("key"),
                    request.get("fingerprint"),
                )
            except VersionConflict:
                continue  # a move, or this very undo by a racing vote: look again
            request["status"] = "approved"
            # The undo is in the log (the append checked the version): that stands, whatever
            # was written to the request since it was read.
            self.records.save_undo_request(match_id, request)
            return request, entry
        raise Conflict("Votes on this undo request raced each other; vote again.", code="stale-version")

    def _playable(self, loaded: Loaded) -> None:
        record = loaded.record
        if record.read_only:
            raise Conflict("This match is a read-only import.", code="read-only")
        if status_of(record, self.matches.game(record), loaded.folded.state, loaded.folded) == FINISHED:
            raise Conflict("The match is over.", code="match-over")

    # -- fork --------------------------------------------------------------

    def fork(
        self, match_id: str, version: int, seats: list[dict] | None = None
    ) -> tuple[Loaded, dict[int, str]]:
        """A new match from a finished match's first ``version`` entries, with new tokens, then
        the game's deal of what no seat could see there (:func:`gameroom.core.decider.deal_entry`)."""
        loaded = self.matches.load(match_id)
        record = loaded.record
        game = self.matches.game(record)
        if status_of(record, game, loaded.folded.state, loaded.folded) != FINISHED:
            raise Conflict(
                "Only a finished match can be forked (its history is public then).", code="match-not-finished"
            )
        if not 1 <= version <= loaded.version:
            raise NotFound(f"Match {match_id} has versions 1–{loaded.version}.", code="no-such-version")
        if seats is None:
            # ``or None``: a seat stored with the AI level "" (before "" was refused) played as a human
            seats = [{"name": s.name, "ai": s.ai or None} for s in record.seats]
        if len(seats) != record.num_seats:
            raise ValidationFailed(
                f"A fork keeps the {record.num_seats} seats of the match.",
                code="bad-seat-count",
                errors={"seats": [f"needs {record.num_seats} seats"]},
            )
        seat_objs = self.matches.seats_for(game, seats)  # AI levels, as create checks them
        entries = self.matches.store.read(match_id, 0, version)
        # Fresh randomness after the fork: the original's seed is in its export, so a fork
        # that kept it would let anyone compute the fork's hidden draws.
        seed = self.matches.seeding.fork_seed(record.seed, version)
        schedule = [s for s in record.seed_schedule() if s[0] <= version] + [[version + 1, seed]]
        new = MatchRecord(
            id=new_match_id(),
            game=record.game,
            options=record.options,
            seed=seed,
            created=self.matches.clock(),
            seats=seat_objs,
            forked_from={"match": match_id, "version": version},
            seed_log=schedule,
        )
        deal = deal_entry(game, self.matches.load(match_id, version).folded, seed)
        if deal is not None:
            # Its history is public: what no seat could see there (the draw pile's order)
            # is dealt anew, before anyone can act in the fork.
            entries = entries + [{**deal, "time": self.matches.clock()}]
        loaded, tokens = self._store_copy(new, entries)
        overlay = loaded.folded.lifecycle
        over = lifecycle.ended(loaded.folded) or game.outcome(loaded.folded.state) is not None
        if (
            overlay is not None
            and not over
            and (overlay["clock"] or any(overlay["ai"]) or any(overlay["left"]))
        ):
            # The fork's seats are its own players' (no takeover of the original's carries over),
            # and its clocks run from now. A fork that is over, or has neither, gets no ``start``.
            loaded = self.matches.append(
                loaded, lifecycle.entry(lifecycle.START, None, num_seats=new.num_seats)
            )
        return loaded, tokens

    def _store_copy(self, record: MatchRecord, entries: list[dict]) -> tuple[Loaded, dict[int, str]]:
        tokens = {
            i: new_token()
            for i, s in enumerate(record.seats)
            if s.filled and not s.ai and not record.read_only
        }
        self.matches.records.create(record, tokens)
        for i, entry in enumerate(entries):
            self.matches.store.append(record.id, {k: v for k, v in entry.items() if k != "version"}, i)
        loaded = self.matches.load(record.id)
        self.matches._after(loaded, None)
        log.info(
            "match %s stored from %d entries (%s)",
            record.id,
            len(entries),
            "import" if record.read_only else f"fork of {record.forked_from}",
        )
        return loaded, tokens

    # -- export / import -----------------------------------------------------

    def export(self, match_id: str, viewer: int | None) -> dict:
        """A self-describing document: the full log once the match is over, else redacted for ``viewer``."""
        loaded = self.matches.load(match_id)
        record = loaded.record
        game = self.matches.game(record)
        finished = status_of(record, game, loaded.folded.state, loaded.folded) == FINISHED
        raw = self.matches.store.read(match_id)
        doc = {
            "format": EXPORT_FORMAT,
            "format_version": EXPORT_FORMAT_VERSION,
            "game": record.game,
            "rules_version": loaded.folded.rules_version,
            "complete": finished,
            "seats": [{"name": s.name, "ai": s.ai or None} for s in record.seats],  # as in fork
            "options": record.options,
            "created": record.created,
            "version": loaded.version,
            "outcome": lifecycle.outcome(game, loaded.folded),
        }
        if finished:
            # Over: nothing is hidden any more, and the seeds let an importer re-check every
            # draw (a fork's log up to the fork was decided under its original's seed).
            schedule = record.seed_schedule()
            doc["seed"] = schedule[0][1]
            if len(schedule) > 1:
                doc["reseeds"] = [{"version": v, "seed": s} for v, s in schedule[1:]]
            doc["entries"] = raw
        else:
            doc["entries"] = self.matches.redact(loaded, raw, viewer)
        return doc

    def import_(self, doc: dict) -> Loaded:
        """Re-check every step of an exported log against the rules, then store it read-only."""
        if doc.get("format") != EXPORT_FORMAT or doc.get("format_version") != EXPORT_FORMAT_VERSION:
            raise ValidationFailed("Not a gameroom match export.", code="bad-export-format")
        if not doc.get("complete") or "seed" not in doc:
            raise ValidationFailed(
                "Only the complete log of a finished match can be imported.", code="export-incomplete"
            )
        game = self.matches.registry.get(doc["game"])
        if doc.get("rules_version") != game.info.rules_version:
            raise ValidationFailed(
                f"The log was played under rules version {doc.get('rules_version')}; this server can re-check "
                f"only version {game.info.rules_version}.",
                code="rules-version-mismatch",
            )
        # Seat count, names and AI levels as create checks them, before anything is replayed.
        seat_objs = self.matches.seats_for(game, doc["seats"])
        entries = doc.get("entries") or []
        schedule = [[1, doc["seed"]]] + [[r["version"], r["seed"]] for r in doc.get("reseeds") or []]
        if any(a[0] >= b[0] for a, b in zip(schedule, schedule[1:])):
            raise TamperedLog("The reseeds are not in increasing version order.", version=1)
        verified, entries = verified_log(
            game, entries, len(seat_objs), doc["options"], schedule, self.matches.ai_levels(game)
        )
        if lifecycle.outcome(game, verified) is None:
            raise TamperedLog("The log ends before the match is over.", version=verified.version)
        record = MatchRecord(
            id=new_match_id(),
            game=doc["game"],
            options=entries[0]["options"],  # as the game loads them, like the setup entry's
            seed=schedule[-1][1],
            created=self.matches.clock(),
            seats=seat_objs,
            read_only=True,
            seed_log=schedule if len(schedule) > 1 else None,
        )
        loaded, _ = self._store_copy(record, entries)
        return loaded
