"""The event history as a feature: undo (direct or by request), fork, export and import.

Built on :class:`gameroom.application.Matches`; like it, free of HTTP and RQ.
"""

from __future__ import annotations

import logging
import secrets

from .application import Loaded, Matches, has_drafts
from .core import decider, lifecycle
from .core.decider import CONFIRMS, Folded
from .core.matches import FINISHED, MatchRecord, new_match_id, new_token, status_of
from .core.rng import seed_at
from .core.undo import (
    APPLY,
    UndoConfirmed,
    UndoPlan,
    UndoRefused,
    has_base,
    plan_undo,
    selective_keeps,
    state_after,
    undo_entry,
)
from .errors import Conflict, GameroomError, NotFound, ValidationFailed, VersionConflict
from .plugin_api import IllegalMove

log = logging.getLogger(__name__)

EXPORT_FORMAT = "gameroom-match"
EXPORT_FORMAT_VERSION = 1


class TamperedLog(GameroomError):
    status, code, title = 422, "tampered-log", "The log does not follow the rules"


class History:
    def __init__(self, matches: Matches):
        self.matches = matches
        self.records = matches.records

    # -- undo ------------------------------------------------------------

    def undo(self, match_id: str, seat: int, steps: int = 1) -> tuple[str, dict | None]:
        """Undo ``seat``'s last ``steps`` steps: ``("applied", entry)`` or ``("requested", request)``."""
        loaded = self.matches.load(match_id)
        self._playable(loaded)
        mine = self.matches.with_draft(loaded, seat)
        if mine.draft:
            return "applied", self._undo_draft(mine, seat, steps)
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
            return "applied", self._apply(loaded, seat, plan)
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
        self.records.save_undo_request(match_id, request)
        log.info(
            "match %s: seat %d asks to undo to v%d (request %s)", match_id, seat, plan.target, request["id"]
        )
        return "requested", request

    def _undo_draft(self, mine: Loaded, seat: int, steps: int) -> None:
        """Undo steps of ``seat``'s draft (its sealed steps): they were never in the log, so
        nothing is appended and no one else learns of it. Steps before the draft are behind
        the last barrier (the draft starts there): they cannot be undone."""
        if steps < 1:
            raise Conflict("Undo at least one step.", code="bad-undo-steps")
        if steps > len(mine.draft):
            raise UndoRefused(
                f"Only {len(mine.draft)} of your last steps can be undone: the one before is behind a "
                "random draw or a reveal, or there is none."
            )
        try:
            self.matches.undo_draft(mine, seat, steps)
        except VersionConflict:
            raise Conflict("The match moved on; try the undo again.", code="stale-version") from None
        log.info("match %s: seat %d undid %d sealed step(s)", mine.record.id, seat, steps)

    def _apply(self, loaded: Loaded, seat: int, plan, request_id: str | None = None) -> dict:
        target_state = self._state_after(loaded, plan)
        try:
            new = self.matches.append(loaded, undo_entry(seat, plan, target_state, request_id))
        except VersionConflict:
            raise Conflict("The match moved on; try the undo again.", code="stale-version") from None
        log.info("match %s: seat %d undid v%s", loaded.record.id, seat, plan.undoes)
        return self.matches.store.entry(loaded.record.id, new.version)

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
        request = self.records.undo_request(match_id, request_id)
        if request is None:
            raise NotFound(f"No undo request {request_id}.", code="unknown-undo-request")
        if request["status"] == "pending" and self.matches.store.version(match_id) != request["base_version"]:
            request["status"] = "withdrawn"  # a move was made since: the request no longer applies
            self._save(match_id, request)
        return request

    def pending(self, match_id: str) -> list[dict]:
        """The match's undo requests still waiting for votes, oldest first."""
        requests = [
            self.request(match_id, request_id) for request_id in self.records.undo_request_ids(match_id)
        ]
        return [r for r in sorted(requests, key=lambda r: r["base_version"]) if r["status"] == "pending"]

    def vote(self, match_id: str, request_id: str, seat: int, approve: bool) -> tuple[dict, dict | None]:
        """Record ``seat``'s vote; when all approve, the undo is applied. Returns (request, entry)."""
        self.matches.record(match_id)
        request = self.request(match_id, request_id)
        if request["status"] != "pending":
            raise Conflict(
                f"The undo request is {request['status']}.", code=f"undo-request-{request['status']}"
            )
        if str(seat) not in request["votes"]:
            raise Conflict("Your seat does not vote on this request.", code="not-a-voter")
        request["votes"][str(seat)] = bool(approve)
        entry = None
        if not approve:
            request["status"] = "refused"
        elif all(request["votes"].values()):
            loaded = self.matches.load(match_id)
            if loaded.version != request["base_version"]:
                request["status"] = "withdrawn"
            else:
                plan = plan_undo(loaded.folded, request["seat"], request["steps"])
                entry = self._apply(loaded, request["seat"], plan, request["id"])
                request["status"] = "approved"
        self._save(match_id, request)
        return request, entry

    def _save(self, match_id: str, request: dict) -> None:
        self.records.save_undo_request(match_id, request)

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
        """A new match from a finished match's first ``version`` entries, with new tokens."""
        loaded = self.matches.load(match_id)
        record = loaded.record
        if status_of(record, self.matches.game(record), loaded.folded.state, loaded.folded) != FINISHED:
            raise Conflict(
                "Only a finished match can be forked (its history is public then).", code="match-not-finished"
            )
        if not 1 <= version <= loaded.version:
            raise NotFound(f"Match {match_id} has versions 1–{loaded.version}.", code="no-such-version")
        if seats is None:
            seats = [{"name": s.name, "ai": s.ai} for s in record.seats]
        if len(seats) != record.num_seats:
            raise ValidationFailed(
                f"A fork keeps the {record.num_seats} seats of the match.",
                code="bad-seat-count",
                errors={"seats": [f"needs {record.num_seats} seats"]},
            )
        seat_objs = self.matches.seats_for(
            self.matches.game(record), seats
        )  # AI levels, as create checks them
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
        loaded, tokens = self._store_copy(new, entries)
        if loaded.folded.lifecycle is not None:  # the fork's own players, and its clocks run from now
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
            "seats": [{"name": s.name, "ai": s.ai} for s in record.seats],
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
        verified = verify_log(game, entries, len(seat_objs), doc["options"], schedule)
        if lifecycle.outcome(game, verified) is None:
            raise TamperedLog("The log ends before the match is over.", version=verified.version)
        record = MatchRecord(
            id=new_match_id(),
            game=doc["game"],
            options=doc["options"],
            seed=schedule[-1][1],
            created=self.matches.clock(),
            seats=seat_objs,
            read_only=True,
            seed_log=schedule if len(schedule) > 1 else None,
        )
        loaded, _ = self._store_copy(record, entries)
        return loaded


def _check_lifecycle(game, folded: Folded, entry: dict, num_seats: int, version: int, bad) -> dict:
    """A lifecycle entry as the log may hold it: a known action by a seat of the match, and a
    resignation's or forfeit's outcome what the game says it is."""
    action, seat = entry.get("action"), entry.get("seat")
    if action not in lifecycle.ACTIONS or not (
        seat is None or isinstance(seat, int) and 0 <= seat < num_seats
    ):
        bad(version, "an unknown lifecycle action or seat")
    if entry.get("events"):
        bad(version, "a lifecycle entry carries no game events")
    ends = action == lifecycle.RESIGN or (
        action == lifecycle.TIMEOUT and (entry.get("policy") or {}).get("action") == lifecycle.FORFEIT
    )
    if ends and entry.get("outcome") != lifecycle.forfeit_outcome(game, folded.state, [seat], num_seats):
        bad(version, "the outcome is not what the game says a resignation or forfeit means")
    if action == lifecycle.TIMEOUT and (entry.get("policy") or {}).get("action") not in lifecycle.POLICIES:
        bad(version, "an unknown timeout policy")
    return {**entry, "num_seats": num_seats}


def _sealed_steps(game, folded: Folded, entry: dict, seed: str, version: int, bad) -> list[dict]:
    """The sealed steps a move entry carries, each re-decided on the state the ones before made:
    steps its seat could keep in a draft (no draw, no reveal, no confirm), with the events
    they produce."""
    sealed = entry.get("sealed") or []
    if not isinstance(sealed, list):
        bad(version, "its sealed steps are not a list")
    seen, steps = folded, []
    for step in sealed:
        if not isinstance(step, dict):
            bad(version, "a sealed step is not an object")
        decided = decider.decide(game, seen, entry.get("seat"), step.get("move"), seed)
        if decided["events"] != step.get("events"):
            bad(version, "a sealed step's events are not what its move produces")
        if not decider.sealable(game, seen, entry.get("seat"), decided):
            bad(version, "a step is sealed that the game does not keep sealed")
        steps.append({"move": step.get("move"), "events": decided["events"]})
        seen = decider.with_steps(game, seen, steps[-1:])
    return steps


def verify_log(game, entries: list[dict], num_seats: int, options: dict, seed: str | list) -> Folded:
    """Replay ``entries`` by re-deciding every command; raise TamperedLog at the first that differs.

    ``seed``: the match's seed, or a fork's ``[[from_version, seed], ...]`` schedule.
    """
    schedule = [[1, seed]] if isinstance(seed, str) else seed
    bad = _tampered
    folded = _verified_setup(game, entries, num_seats, options, schedule)
    states = {1: folded.state}
    decided: dict[int, dict] = {}  # version -> the move entry as re-decided (for undo's refold)
    for i, entry in enumerate(entries[1:], start=2):
        if entry.get("version", i) != i:
            bad(i, "versions are not consecutive")
        kind = entry.get("kind")
        try:
            if kind == "move":
                expected = _expected_move(game, folded, entry, seed_at(schedule, i), i)
            elif kind == "undo":
                expected = _expected_undo(game, folded, entry, i, states, decided)
            elif kind == "lifecycle":
                expected = _check_lifecycle(game, folded, entry, num_seats, i, bad)
            else:
                bad(i, f"unknown entry kind {kind!r}")
        except GameroomError as exc:
            if isinstance(exc, TamperedLog):
                raise
            bad(i, f"the move is refused ({exc.code}: {exc.detail})")
        folded = decider.apply_entry(
            game,
            folded,
            {**expected, "version": i, "drew": expected.get("drew"), "reveal": expected.get("reveal")},
        )
        states[i] = folded.state
        if kind == "move":
            decided[i] = {**expected, "version": i}
    return folded


def _tampered(version: int, why: str):
    raise TamperedLog(f"Version {version}: {why}", version=version)


def _verified_setup(game, entries: list[dict], num_seats: int, options: dict, schedule: list) -> Folded:
    """The fold of the log's first entry, which must be the setup the seed and options give."""
    bad = _tampered
    if not entries:
        bad(1, "the log is empty")
    try:
        opts = game.load_options(options)
    except Exception:
        bad(1, "the options are not valid for this game")
    try:
        game.check_seats(num_seats, opts)
    except IllegalMove as exc:
        bad(1, exc.message)
    setup = decider.setup_entry(game, num_seats, opts, seed_at(schedule, 1))
    first = entries[0]
    if first.get("kind") != "setup" or first.get("events") != setup["events"]:
        bad(1, "the setup does not follow from the seed and options")
    return decider.apply_entry(game, Folded(), {**setup, "version": 1})


def _expected_move(game, folded: Folded, entry: dict, seed: str, version: int) -> dict:
    """A move entry as re-decided (with its sealed steps); its events must be the log's."""
    sealed = _sealed_steps(game, folded, entry, seed, version, _tampered)
    seen = decider.with_steps(game, folded, sealed)
    expected = decider.decide(game, seen, entry.get("seat"), entry.get("move"), seed)
    if expected["events"] != entry.get("events"):
        _tampered(version, "its events are not what the move produces")
    if sealed:
        expected["sealed"] = sealed
    return expected


def _expected_undo(game, folded: Folded, entry: dict, i: int, states: dict, decided: dict) -> dict:
    """An undo entry as it may be: to a state it may return to, with the state it restores.

    Who consented is not part of the log; what can be checked is that the undo
    returns to a state it may return to (never across a draw or reveal), cancels
    no confirmed step, and keeps only what a selective undo may keep.
    """
    bad = _tampered
    target, seat = entry.get("target"), entry.get("seat")
    if target not in [c[0] for c in folded.checkpoints[:-1]]:
        bad(i, "the undo crosses a random draw or a reveal")
    keeps = entry.get("keeps") or []
    if not isinstance(keeps, list):
        bad(i, "the undo's keeps are not a list of versions")
    if keeps and tuple(keeps) != selective_keeps(folded, seat, target):
        bad(i, "the undo keeps steps a selective undo may not keep")
    if any(c[2] & CONFIRMS for c in folded.checkpoints if c[0] > target and c[0] not in keeps):
        bad(i, "the undo cancels a confirmed step")
    if has_base(folded):
        base = folded.checkpoints[0][0]
        # the entries as re-decided here, not as the log spells them
        between = [decided[v] for v in range(base + 1, i) if v in decided]
        restored = state_after(game, folded, target, keeps, states[base], between)
    else:
        restored = states[target]
    if entry.get("state") != restored:
        bad(i, "the undo does not restore the state of its target version")
    return {"kind": "undo", "seat": seat, "target": target, "keeps": keeps, "events": [], "state": restored}
