"""Undo: a seat takes back its own last steps, directly or by asking the other seats.

What may be undone, and how, is the pure policy of :mod:`gameroom.core.undo`
(:func:`~gameroom.core.undo.plan_undo`): applied at once (an undo entry is appended), or
*requested*, when it reaches back across other seats' steps: every other human seat votes, and
the last approval appends it. Steps still in the seat's draft (sealed steps, never in the log)
are dropped from the draft instead. Requests are kept in the match's records; whether one is
pending, approved or withdrawn is worked out from the log on read (:meth:`Undos.as_of`).
Idempotency keys work as for moves (:mod:`gameroom.application.idempotency`).
"""

from __future__ import annotations

import logging
import secrets

from ..core import lifecycle
from ..core.decider import BASE, CONFIRMS
from ..core.matches import FINISHED, status_of
from ..core.undo import (
    APPLY,
    UndoConfirmed,
    UndoPlan,
    fewer_steps,
    has_base,
    plan_undo,
    state_after,
    undo_entry,
)
from ..errors import Conflict, GameroomError, NotFound, VersionConflict
from .idempotency import key_reused, undo_fingerprint
from .loaded import Loaded, has_drafts
from .matches import Matches

log = logging.getLogger("gameroom.history")  # its name from before the split: log lines are unchanged

#: How often a write to an undo request is tried when racing writes to it came first.
ATTEMPTS = 5


def _holds_key(request: dict, key: str) -> bool:
    """Whether an undo request was the answer to an undo sent with idempotency ``key``: the one
    that opened it (``key``) or a repeat of it answered with it (``more_keys``, with fingerprints)."""
    return request.get("key") == key or key in request.get("more_keys", {})


class Undos:
    """The undo use cases of one :class:`~gameroom.application.Matches` (see the module docstring)."""

    def __init__(self, matches: Matches):
        self.matches = matches
        self.records = matches.records

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
            self._undo_draft(mine, seat, steps, key, fingerprint)
            return "applied", None
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

    def _replay(
        self, match_id: str, seat: int, key: str, fingerprint: str | None
    ) -> tuple[str, dict | None] | None:
        """What the first undo with idempotency ``key`` did, or None when the key is new: an undo
        in the log (the key kept with its entry; a request's, if it applied one the match still
        keeps), a request (the key kept with it, while the match keeps it) or draft steps dropped
        (the key kept in the draft, then with the entry that confirms it)."""
        prior = self.records.idempotent(match_id, key)
        if prior is not None:
            version, stored = prior
            entry = self.matches.store.entry(match_id, version)
            if stored != fingerprint or entry is None:
                raise key_reused("undo")
            if entry["kind"] != "undo":
                # An undo of sealed steps whose draft this entry (the seat's confirming step)
                # carried: its key moved to the log with the draft (see ``APPEND_LUA``).
                return "applied", None
            request = self.records.undo_request(match_id, entry["request"]) if entry.get("request") else None
            if request is None:
                return "applied", entry
            return "requested", self.as_of(match_id, request, self.matches.store.version(match_id))
        for request in self.records.kept_undo_requests(match_id):
            if _holds_key(request, key):
                stored = request["fingerprint"] if request.get("key") == key else request["more_keys"][key]
                if stored != fingerprint:
                    raise key_reused("undo")
                return "requested", self.as_of(match_id, request, self.matches.store.version(match_id))
        record = self.matches.record(match_id)
        if has_drafts(self.matches.game(record)):
            draft = self.matches.store.draft(match_id, seat)
            undone = draft.undone.get(key)
            if undone is not None:
                if undone[1] != fingerprint:
                    raise key_reused("undo")
                return "applied", None
            if key in draft.keys or key in draft.dropped:  # a sealed step's, kept or undone
                raise key_reused("undo")
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

    def _apply(
        self, loaded: Loaded, seat: int, plan: UndoPlan, key: str | None, fingerprint: str | None
    ) -> dict | None:
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
    ) -> dict | None:
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
        return self.as_of(match_id, self._stored(match_id, request_id), self.matches.store.version(match_id))

    def _stored(self, match_id: str, request_id: str) -> dict:
        request = self.records.undo_request(match_id, request_id)
        if request is None:
            raise NotFound(f"No undo request {request_id}.", code="unknown-undo-request")
        return request

    def as_of(self, match_id: str, request: dict, version: int) -> dict:
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
        requests = (self.as_of(match_id, r, version) for r in self.records.pending_undo_requests(match_id))
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
            request = self.as_of(match_id, stored, self.matches.store.version(match_id))
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
