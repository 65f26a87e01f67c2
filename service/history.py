"""The event history as a feature: undo (direct or by request), fork, export and import.

Built on :class:`service.application.Matches`; like it, free of HTTP and RQ.
"""
from __future__ import annotations

import json
import logging
import secrets

from .application import Loaded, Matches
from .core import decider
from .core.decider import Folded
from .core.matches import FINISHED, MatchRecord, Seat, new_match_id, new_token, status_of
from .core.undo import APPLY, plan_undo, undo_entry
from .errors import Conflict, GameroomError, NotFound, ValidationFailed, VersionConflict
from .plugin_api import IllegalMove
from .eventstore import keys

log = logging.getLogger(__name__)

EXPORT_FORMAT = "gameroom-match"
EXPORT_FORMAT_VERSION = 1


class TamperedLog(GameroomError):
    status, code, title = 422, "tampered-log", "The log does not follow the rules"


class History:
    def __init__(self, matches: Matches):
        self.matches = matches
        self.redis = matches.store.redis

    # -- undo ------------------------------------------------------------

    def undo(self, match_id: str, seat: int, steps: int = 1) -> tuple[str, dict]:
        """Undo ``seat``'s last ``steps`` steps: ``("applied", entry)`` or ``("requested", request)``."""
        loaded = self.matches.load(match_id)
        self._playable(loaded)
        plan = plan_undo(loaded.folded, seat, steps)
        # Every other human seat votes; AI seats never block an undo.
        voters = sorted(i for i, s in enumerate(loaded.record.seats) if not s.ai and i != seat)
        if plan.kind == APPLY or not voters:
            return "applied", self._apply(loaded, seat, plan)
        request = {"id": secrets.token_hex(6), "seat": seat, "steps": steps, "target": plan.target,
                   "undoes": list(plan.undoes), "base_version": loaded.version,
                   "votes": {str(v): None for v in voters}, "status": "pending"}
        self.redis.hset(keys.undo_requests(match_id), request["id"], json.dumps(request))
        log.info("match %s: seat %d asks to undo to v%d (request %s)", match_id, seat, plan.target, request["id"])
        return "requested", request

    def _apply(self, loaded: Loaded, seat: int, plan, request_id: str | None = None) -> dict:
        target_state = self.matches.load(loaded.record.id, plan.target).folded.state
        try:
            new = self.matches.append(loaded, undo_entry(seat, plan, target_state, request_id))
        except VersionConflict:
            raise Conflict("The match moved on; try the undo again.", code="stale-version") from None
        log.info("match %s: seat %d undid v%s", loaded.record.id, seat, plan.undoes)
        return self.matches.store.entry(loaded.record.id, new.version)

    def request(self, match_id: str, request_id: str) -> dict:
        raw = self.redis.hget(keys.undo_requests(match_id), request_id)
        if raw is None:
            raise NotFound(f"No undo request {request_id}.", code="unknown-undo-request")
        request = json.loads(raw)
        if request["status"] == "pending" and self.matches.store.version(match_id) != request["base_version"]:
            request["status"] = "withdrawn"  # a move was made since: the request no longer applies
            self._save(match_id, request)
        return request

    def vote(self, match_id: str, request_id: str, seat: int, approve: bool) -> tuple[dict, dict | None]:
        """Record ``seat``'s vote; when all approve, the undo is applied. Returns (request, entry)."""
        self.matches.record(match_id)
        request = self.request(match_id, request_id)
        if request["status"] != "pending":
            raise Conflict(f"The undo request is {request['status']}.", code=f"undo-request-{request['status']}")
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
        self.redis.hset(keys.undo_requests(match_id), request["id"], json.dumps(request))

    def _playable(self, loaded: Loaded) -> None:
        record = loaded.record
        if record.read_only:
            raise Conflict("This match is a read-only import.", code="read-only")
        if status_of(record, self.matches.game(record), loaded.folded.state) == FINISHED:
            raise Conflict("The match is over.", code="match-over")

    # -- fork --------------------------------------------------------------

    def fork(self, match_id: str, version: int, seats: list[dict] | None = None) -> tuple[Loaded, dict[int, str]]:
        """A new match from a finished match's first ``version`` entries, with new tokens."""
        loaded = self.matches.load(match_id)
        record = loaded.record
        if status_of(record, self.matches.game(record), loaded.folded.state) != FINISHED:
            raise Conflict("Only a finished match can be forked (its history is public then).",
                           code="match-not-finished")
        if not 1 <= version <= loaded.version:
            raise NotFound(f"Match {match_id} has versions 1–{loaded.version}.", code="no-such-version")
        if seats is None:
            seats = [{"name": s.name, "ai": s.ai} for s in record.seats]
        if len(seats) != record.num_seats:
            raise ValidationFailed(f"A fork keeps the {record.num_seats} seats of the match.", code="bad-seat-count",
                                   errors={"seats": [f"needs {record.num_seats} seats"]})
        entries = self.matches.store.read(match_id, 0, version)
        new = MatchRecord(id=new_match_id(), game=record.game, options=record.options, seed=record.seed,
                          created=self.matches.clock(), seats=[Seat(s["name"], s.get("ai")) for s in seats],
                          forked_from={"match": match_id, "version": version})
        return self._store_copy(new, entries)

    def _store_copy(self, record: MatchRecord, entries: list[dict]) -> tuple[Loaded, dict[int, str]]:
        tokens = {i: new_token() for i, s in enumerate(record.seats) if s.filled and not s.ai and not record.read_only}
        self.matches.records.create(record, tokens)
        for i, entry in enumerate(entries):
            self.matches.store.append(record.id, {k: v for k, v in entry.items() if k != "version"}, i)
        loaded = self.matches.load(record.id)
        self.matches._after(loaded, None)
        log.info("match %s stored from %d entries (%s)", record.id, len(entries),
                 "import" if record.read_only else f"fork of {record.forked_from}")
        return loaded, tokens

    # -- export / import -----------------------------------------------------

    def export(self, match_id: str, viewer: int | None) -> dict:
        """A self-describing document: the full log once the match is over, else redacted for ``viewer``."""
        loaded = self.matches.load(match_id)
        record = loaded.record
        game = self.matches.game(record)
        finished = status_of(record, game, loaded.folded.state) == FINISHED
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
            "outcome": game.outcome(loaded.folded.state),
        }
        if finished:
            # Over: nothing is hidden any more, and the seed lets an importer re-check every draw.
            doc["seed"] = record.seed
            doc["entries"] = raw
        else:
            doc["entries"] = self.matches.redact(loaded, raw, viewer)
        return doc

    def import_(self, doc: dict) -> Loaded:
        """Re-check every step of an exported log against the rules, then store it read-only."""
        if doc.get("format") != EXPORT_FORMAT or doc.get("format_version") != EXPORT_FORMAT_VERSION:
            raise ValidationFailed("Not a gameroom match export.", code="bad-export-format")
        if not doc.get("complete") or "seed" not in doc:
            raise ValidationFailed("Only the complete log of a finished match can be imported.",
                                   code="export-incomplete")
        game = self.matches.registry.get(doc["game"])
        if doc.get("rules_version") != game.info.rules_version:
            raise ValidationFailed(
                f"The log was played under rules version {doc.get('rules_version')}; this server can re-check "
                f"only version {game.info.rules_version}.", code="rules-version-mismatch")
        seats = doc.get("seats") or []
        entries = doc.get("entries") or []
        verified = verify_log(game, entries, len(seats), doc["options"], doc["seed"])
        if game.outcome(verified.state) is None:
            raise TamperedLog("The log ends before the match is over.", version=verified.version)
        record = MatchRecord(id=new_match_id(), game=doc["game"], options=doc["options"], seed=doc["seed"],
                             created=self.matches.clock(),
                             seats=[Seat(s.get("name") or f"Seat {i + 1}", s.get("ai")) for i, s in enumerate(seats)],
                             read_only=True)
        loaded, _ = self._store_copy(record, entries)
        return loaded


def verify_log(game, entries: list[dict], num_seats: int, options: dict, seed: str) -> Folded:
    """Replay ``entries`` by re-deciding every command; raise TamperedLog at the first that differs."""
    def bad(version, why):
        raise TamperedLog(f"Version {version}: {why}", version=version)

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
    setup = decider.setup_entry(game, num_seats, opts, seed)
    first = entries[0]
    if first.get("kind") != "setup" or first.get("events") != setup["events"]:
        bad(1, "the setup does not follow from the seed and options")
    folded = decider.apply_entry(game, Folded(), {**setup, "version": 1})
    states = {1: folded.state}
    for i, entry in enumerate(entries[1:], start=2):
        if entry.get("version", i) != i:
            bad(i, "versions are not consecutive")
        kind = entry.get("kind")
        try:
            if kind == "move":
                expected = decider.decide(game, folded, entry.get("seat"), entry.get("move"), seed)
                if expected["events"] != entry.get("events"):
                    bad(i, "its events are not what the move produces")
            elif kind == "undo":
                # Who consented is not part of the log; what can be checked is that the
                # undo returns to a state it may return to (never across a draw or reveal).
                target = entry.get("target")
                if target not in [c[0] for c in folded.checkpoints[:-1]]:
                    bad(i, "the undo crosses a random draw or a reveal")
                if entry.get("state") != states[target]:
                    bad(i, "the undo does not restore the state of its target version")
                expected = {"kind": "undo", "seat": entry.get("seat"), "target": target, "events": [],
                            "state": states[target]}
            else:
                bad(i, f"unknown entry kind {kind!r}")
        except GameroomError as exc:
            if isinstance(exc, TamperedLog):
                raise
            bad(i, f"the move is refused ({exc.code}: {exc.detail})")
        folded = decider.apply_entry(game, folded, {**expected, "version": i, "drew": expected.get("drew"),
                                                    "reveal": expected.get("reveal")})
        states[i] = folded.state
    return folded
