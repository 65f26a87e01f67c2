"""Creating a match and claiming its seats.

A match is created in one transaction (record, tokens, lobby entry and its first log entry); a
claim takes an open seat in one script. Once every seat is taken, :func:`seat_claimed` starts
the clocks (:mod:`gameroom.application.clocks`) or schedules the AI's first move.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from marshmallow import ValidationError

from .. import faults
from ..core import decider, lifecycle
from ..core.matches import (
    MatchRecord,
    Seat,
    claim_token,
    hash_token,
    new_match_id,
    new_token,
    status_of,
    status_when_full,
)
from ..core.moves import ai_to_move
from ..errors import Conflict, NotFound, ValidationFailed, unknown_match
from ..plugin_api import IllegalMove
from .appending import announce
from .clocks import start_clocks
from .idempotency import key_reused
from .loaded import Loaded
from .reading import remember_record

if TYPE_CHECKING:
    from .matches import Matches

log = logging.getLogger("gameroom.application")  # its name from before the split: log lines are unchanged


def create(
    matches: Matches,
    game_slug: str,
    seats: list[dict | None],
    options: dict | None = None,
    seed: str | None = None,
    *,
    settings: dict | None = None,
    admin_hash: str | None = None,
    match_id: str | None = None,
) -> tuple[Loaded, dict[int, str]]:
    """See :meth:`gameroom.application.Matches.create`."""
    installed = matches.registry.installed(game_slug)
    game = installed.game
    n = len(seats)
    seat_objs = seats_for(matches, game, seats)
    opts = checked_options(game, options, n)
    match_id = match_id or new_match_id()
    # A client's seed only feeds the effective seed, which mixes in the server's secret.
    record = MatchRecord(
        id=match_id,
        game=game_slug,
        options=opts,
        seed=matches.seeding.match_seed(match_id, seed),
        created=matches.clock(),
        seats=seat_objs,
        settings=dict(settings or {}),
    )
    entry = setup_entry(game, record)
    tokens = {i: new_token() for i, s in enumerate(seat_objs) if s.filled and not s.ai}
    # The new match is folded here, not read back: its only entry is the one being written.
    loaded = Loaded(record, decider.fold(game, [entry | {"version": 1}]))
    # Record, tokens, lobby and first entry in one transaction: one round trip.
    matches.records.create_match(
        record,
        tokens,
        entry,
        status=status_of(record, game, loaded.folded.state),
        ai_seats=ai_to_move(record, game, loaded.folded),
        admin_hash=admin_hash,
        clocks=lifecycle.timed_seats(record, loaded.folded),
    )
    remember_created(matches, loaded, tokens)
    announce(matches, loaded, entry | {"version": 1}, progress_saved=True)
    log.info("match %s created: %s, %d seats", record.id, game_slug, n)
    return loaded, tokens


def checked_options(game, options: dict | None, num_seats: int):
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
        raise ValidationFailed(exc.message, code="bad-seat-count", errors={"seats": [exc.message]}) from None
    return opts


def setup_entry(game, record: MatchRecord) -> dict:
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


def remember_created(matches: Matches, loaded: Loaded, tokens: dict[int, str]) -> None:
    """Cache what a new match's first reads would fetch: its fold, its record once full, its seats."""
    record = loaded.record
    matches.caches.folds.put(record.id, loaded.folded)
    remember_record(matches, record)
    for seat, token in tokens.items():
        matches.caches.seats.put((record.id, hash_token(token)), seat)


def creation_settings(matches: Matches, body: dict) -> dict:
    """The settings of a creation request (clock, timeout policy, unlisted, hide_names), checked."""
    settings: dict[str, Any] = {k: body.get(k) for k in ("clock", "timeout") if body.get(k)}
    settings.update({k: True for k in ("unlisted", "hide_names") if body.get(k)})
    if "timeout" in settings:
        game = matches.registry.get(body["game"])
        if settings["timeout"]["level"] not in matches.ai_levels(game):
            raise ValidationFailed(
                f"Unknown AI level '{settings['timeout']['level']}'.",
                code="unknown-ai-level",
                errors={"timeout": {"level": [f"one of {matches.ai_levels(game)}"]}},
            )
        if "clock" not in settings:
            raise ValidationFailed(
                "A timeout policy needs a clock.",
                code="timeout-without-clock",
                errors={"timeout": ["needs a clock"]},
            )
    return settings


def seats_for(matches: Matches, game, seats: Sequence[dict | None]) -> list[Seat]:
    """See :meth:`gameroom.application.Matches.seats_for`."""
    n = len(seats)
    if not game.info.min_players <= n <= game.info.max_players:
        raise ValidationFailed(
            f"{game.info.title} takes {game.info.min_players}–{game.info.max_players} seats, not {n}.",
            code="bad-seat-count",
            errors={"seats": [f"needs {game.info.min_players}–{game.info.max_players} seats"]},
        )
    # An AI level is any string given, "" too: a falsy test would make "" a human seat.
    levels = set(matches.ai_levels(game)) if any(s and s.get("ai") is not None for s in seats) else set()
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


def claim_seat(
    matches: Matches, match_id: str, seat: int, name: str, idempotency_key: str | None = None
) -> tuple[Loaded, str]:
    """See :meth:`gameroom.application.Matches.claim_seat`."""
    caches = matches.caches
    record = caches.records.get(match_id) or caches.claimable.get(match_id) or matches.record(match_id)
    if not 0 <= seat < record.num_seats:
        raise NotFound(f"Match {match_id} has no seat {seat}.", code="no-such-seat")
    if record.kept(seat):
        # The creator may have released it, or its player taken it, since this process read the
        # record (never the reverse); a taken seat is refused by the claim below (seat-taken).
        record = matches.record(match_id)
        remember_record(matches, record)
    if record.kept(seat):
        raise Conflict(
            f"Seat {seat} is kept for its player in the previous match (rematch).", code="seat-reserved"
        )
    if idempotency_key is None:
        token = new_token()
    else:
        token = claim_token(matches.token_secret, match_id, seat, idempotency_key)
    if record.ai_seats():  # the claim may start a match whose AI moves first: the intent comes first
        matches.store.ai_turns.note(match_id)
    if record.settings.get("clock"):  # ... or its clocks, with a start entry after the claim
        matches.store.clocks.note(match_id)
    folded = caches.folds.get(match_id)
    when_full = None
    if folded is not None:  # the lobby's status once full, saved by the claim that fills it
        when_full = (status_when_full(matches.game(record), folded.state, folded), folded.version)
    claimed = matches.records.claim(match_id, seat, name, token, record.num_seats, when_full)
    if claimed.record is None:  # gone since this process saw it (only a flushed Redis does that)
        caches.claimable.forget(match_id)
        raise unknown_match(match_id)
    if not claimed.won:
        if idempotency_key is not None:
            replay = claimed_before(matches, match_id, seat, name, token, claimed.record)
            if replay is not None:
                return replay, token
        raise Conflict(f"Seat {seat} is taken.", code="seat-taken")
    caches.seats.put((match_id, hash_token(token)), seat)
    if claimed.record.full:  # one line per match at INFO: its start (each claim at DEBUG)
        log.info("match %s: seat %d claimed, every seat is filled", match_id, seat)
    else:
        log.debug("match %s: seat %d claimed", match_id, seat)
    faults.point("after-claim")  # crash tests: the seat is taken, the clocks not started yet
    # The claim read the record and the log's length: a cached fold that long is the latest.
    fresh = None
    if folded is not None and folded.version == claimed.version:
        if claimed.record.full:
            caches.records.put(match_id, claimed.record)
        fresh = matches.with_draft(Loaded(claimed.record, folded), None)
    return seat_claimed(matches, match_id, fresh, claimed.progress_saved), token


def claimed_before(
    matches: Matches, match_id: str, seat: int, name: str, token: str, record: MatchRecord
) -> Loaded | None:
    """The answer to a repeated claim: the match, if ``token`` (derived from the claim's key)
    still acts for ``seat``, else None (someone else holds the seat, or its player left it).
    What followed the first claim is done again, in case it died before (the clocks' start)."""
    loaded, holder, _ok = matches.open(match_id, token)
    if holder != seat:
        return None
    if record.seats[seat].name != name:
        raise key_reused("claim")
    log.debug("match %s: seat %d claimed again with its key", match_id, seat)
    return seat_claimed(matches, match_id, loaded)


def seat_claimed(
    matches: Matches, match_id: str, loaded: Loaded | None = None, progress_saved: bool = False
) -> Loaded:
    """See :meth:`gameroom.application.Matches.seat_claimed`."""
    loaded = loaded or matches.load(match_id)
    if loaded.record.full:
        if loaded.folded.lifecycle is not None and not loaded.folded.lifecycle["started"]:
            loaded = start_clocks(matches, loaded)
        else:
            ai_seats = ai_to_move(loaded.record, matches.game(loaded.record), loaded.folded)
            if ai_seats:
                matches.store.ai_turns.set(match_id, loaded.version, ai_seats)
            announce(matches, loaded, None, progress_saved=progress_saved)
    return loaded
