"""Loading a match and what its readers see: the record, the fold, a seat's draft, redacted entries.

Every function takes the :class:`~gameroom.application.Matches` whose store and caches it reads.
A load folds only the entries the in-process fold cache has not seen (or starts from the nearest
snapshot), so it costs about the same at any history length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ai import builtin_levels
from ..core import decider, lifecycle
from ..core.decider import Folded
from ..core.matches import FINISHED, MatchRecord, hash_token, redact_entry, status_of
from ..errors import NotFound, unknown_match
from ..eventstore.records import AFTER_SNAPSHOT
from .loaded import Loaded, has_drafts

if TYPE_CHECKING:
    from .matches import Matches


def record(matches: Matches, match_id: str) -> MatchRecord:
    found = matches.records.get(match_id)
    if found is None:
        raise unknown_match(match_id)
    return found


def remember_record(matches: Matches, record: MatchRecord) -> None:
    """Keep a record read or made: for good once its seats are all filled, else for claims."""
    if record.full:
        matches.caches.records.put(record.id, record)
    else:
        matches.caches.claimable.put(record.id, record)


def open_match(
    matches: Matches, match_id: str, token: str | None = None, *, fresh: bool = True
) -> tuple[Loaded, int | None, bool]:
    """See :meth:`gameroom.application.Matches.open`."""
    caches = matches.caches
    start = caches.folds.get(match_id)
    record = caches.records.get(match_id)
    token_hash = hash_token(token) if token is not None else None
    seat = caches.seats.get((match_id, token_hash)) if token is not None else None
    need_seat = token is not None and seat is None
    if not fresh and start is not None and record is not None and not need_seat:
        if start.lifecycle is not None and lifecycle.revoked(start, token_hash or ""):
            return Loaded(record, start), None, False
        return with_draft(matches, Loaded(record, start), seat), seat, True
    snapshot = None
    entries: list[dict] | None
    if record is not None and not need_seat and start is not None:
        entries = matches.store.read(match_id, start.version)
    else:
        found, found_seat, entries, snapshot = matches.records.read_parts(
            match_id,
            record=record is None,
            token_hash=token_hash if need_seat else None,
            after=start.version if start is not None else AFTER_SNAPSHOT,
        )
        if record is None:
            if found is None:
                raise unknown_match(match_id)
            record = found
            remember_record(matches, record)
        if need_seat:
            seat = found_seat
            if seat is not None:
                caches.seats.put((match_id, token_hash), seat)
    game = matches.game(record)
    if start is None and snapshot is not None:
        if snapshot.get("code_rules_version") == game.info.rules_version:
            start = Folded.from_snapshot(snapshot)
        else:  # made by other rules: fold every entry (the entries read follow the snapshot)
            entries = matches.store.read(match_id)
    folded = decider.fold(game, entries or [], start)
    caches.folds.put(match_id, folded)
    loaded = Loaded(record, folded)
    if (
        seat is not None
        and token_hash is not None  # (always, with a seat: it is the seat of the token)
        and loaded.folded.lifecycle is not None
        and lifecycle.revoked(loaded.folded, token_hash)
    ):
        return loaded, None, False  # the seat was left: its old token no longer acts for it
    return with_draft(matches, loaded, seat), seat, token is None or seat is not None


def with_draft(matches: Matches, loaded: Loaded, seat: int | None) -> Loaded:
    """See :meth:`gameroom.application.Matches.with_draft`."""
    bare = Loaded(loaded.record, loaded.folded, drafted=True)
    if seat is None or loaded.record.read_only:
        return bare
    game = matches.game(loaded.record)
    if not has_drafts(game) or lifecycle.outcome(game, loaded.folded) is not None:
        return bare
    steps = matches.store.draft(loaded.record.id, seat).current(decider.barrier(loaded.folded))
    if not steps:
        return bare
    own = decider.with_steps(game, loaded.folded, steps)
    return Loaded(loaded.record, loaded.folded, tuple(steps), own, drafted=True)


def load_at(matches: Matches, record: MatchRecord, version: int | None) -> Loaded:
    """Fold from the in-process cache or the nearest snapshot at or before
    ``version``, so loading costs about the same at any history length."""
    match_id = record.id
    game = matches.game(record)
    if version is not None:
        current = matches.store.version(match_id)
        if not 1 <= version <= current:
            raise NotFound(f"Match {match_id} has versions 1–{current}.", code="no-such-version")
    start = matches.caches.folds.get(match_id)
    if start is not None and version is not None and start.version > version:
        start = None
    if start is None:
        snap = matches.store.load_snapshot(match_id, version)
        if snap and snap.get("code_rules_version") == game.info.rules_version:
            start = Folded.from_snapshot(snap)
    after = start.version if start else 0
    folded = decider.fold(game, matches.store.read(match_id, after, version), start)
    if version is None:
        matches.caches.folds.put(match_id, folded)
    return Loaded(record, folded)


def redact(matches: Matches, loaded: Loaded, entries: list[dict], viewer: int | None) -> list[dict]:
    record, folded = loaded.record, loaded.folded
    game = matches.game(record)
    public = status_of(record, game, folded.state, folded) == FINISHED
    names = record.names()
    return [
        redact_entry(game, e, viewer, names, public=public, undone=e["version"] in folded.undone)
        for e in entries
    ]


def ai_levels(matches: Matches, game) -> list[str]:
    """The AI levels ``game`` offers: the platform's built-in ones and the plugins' policies."""
    return sorted(set(builtin_levels(game)) | set(matches.registry.ai_policies(game)))
