"""Fork: a new match from a finished match's first versions, with new seats and fresh randomness.

Also :func:`store_copy`, which stores a match whole from a list of entries (a fork, or an import:
:mod:`gameroom.application.transfer`).
"""

from __future__ import annotations

import logging

from ..core import lifecycle
from ..core.decider import deal_entry
from ..core.matches import FINISHED, MatchRecord, new_match_id, new_token, status_of
from ..errors import Conflict, NotFound, ValidationFailed
from .appending import announce
from .loaded import Loaded
from .matches import Matches

log = logging.getLogger("gameroom.history")  # its name from before the split: log lines are unchanged


def fork(
    matches: Matches, match_id: str, version: int, seats: list[dict] | None = None
) -> tuple[Loaded, dict[int, str]]:
    """A new match from a finished match's first ``version`` entries, with new tokens, then
    the game's deal of what no seat could see there (:func:`gameroom.core.decider.deal_entry`)."""
    loaded = matches.load(match_id)
    record = loaded.record
    game = matches.game(record)
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
    seat_objs = matches.seats_for(game, seats)  # AI levels, as create checks them
    entries = matches.store.read(match_id, 0, version)
    # Fresh randomness after the fork: the original's seed is in its export, so a fork
    # that kept it would let anyone compute the fork's hidden draws.
    seed = matches.seeding.fork_seed(record.seed, version)
    schedule = [s for s in record.seed_schedule() if s[0] <= version] + [[version + 1, seed]]
    new = MatchRecord(
        id=new_match_id(),
        game=record.game,
        options=record.options,
        seed=seed,
        created=matches.clock(),
        seats=seat_objs,
        forked_from={"match": match_id, "version": version},
        seed_log=schedule,
    )
    deal = deal_entry(game, matches.load(match_id, version).folded, seed)
    if deal is not None:
        # Its history is public: what no seat could see there (the draw pile's order)
        # is dealt anew, before anyone can act in the fork.
        entries = entries + [{**deal, "time": matches.clock()}]
    loaded, tokens = store_copy(matches, new, entries)
    overlay = loaded.folded.lifecycle
    over = lifecycle.ended(loaded.folded) or game.outcome(loaded.folded.state) is not None
    if overlay is not None and not over and (overlay["clock"] or any(overlay["ai"]) or any(overlay["left"])):
        # The fork's seats are its own players' (no takeover of the original's carries over),
        # and its clocks run from now. A fork that is over, or has neither, gets no ``start``.
        loaded = matches.append(loaded, lifecycle.entry(lifecycle.START, None, num_seats=new.num_seats))
    return loaded, tokens


def store_copy(matches: Matches, record: MatchRecord, entries: list[dict]) -> tuple[Loaded, dict[int, str]]:
    """Store the match ``record`` whole, with ``entries`` as its log (new tokens for its human
    seats, none for a read-only import): the match and its tokens."""
    tokens = {
        i: new_token() for i, s in enumerate(record.seats) if s.filled and not s.ai and not record.read_only
    }
    matches.records.create(record, tokens)
    for i, entry in enumerate(entries):
        matches.store.append(record.id, {k: v for k, v in entry.items() if k != "version"}, i)
    loaded = matches.load(record.id)
    announce(matches, loaded, None)
    log.info(
        "match %s stored from %d entries (%s)",
        record.id,
        len(entries),
        "import" if record.read_only else f"fork of {record.forked_from}",
    )
    return loaded, tokens
