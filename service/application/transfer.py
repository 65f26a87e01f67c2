"""Export and import of a match's log.

An export is a self-describing document (:data:`EXPORT_FORMAT`): the full log once the match
is over, else redacted for the viewer. An import trusts nothing in it: every step is re-decided
with the game's rules and the match's seeds (:mod:`gameroom.application.logcheck`, with the
entries' form checked by :mod:`~gameroom.application.logform` and their order by
:mod:`~gameroom.application.logorder`), and the match is stored read-only.
"""

from __future__ import annotations

from ..core import lifecycle
from ..core.matches import FINISHED, MatchRecord, new_match_id, status_of
from ..errors import ValidationFailed
from .fork import store_copy
from .loaded import Loaded
from .logcheck import TamperedLog, verified_log
from .matches import Matches

EXPORT_FORMAT = "gameroom-match"
EXPORT_FORMAT_VERSION = 1


def export(matches: Matches, match_id: str, viewer: int | None) -> dict:
    """A self-describing document: the full log once the match is over, else redacted for ``viewer``."""
    loaded = matches.load(match_id)
    record = loaded.record
    game = matches.game(record)
    finished = status_of(record, game, loaded.folded.state, loaded.folded) == FINISHED
    raw = matches.store.read(match_id)
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
        doc["entries"] = matches.redact(loaded, raw, viewer)
    return doc


def import_match(matches: Matches, doc: dict) -> Loaded:
    """Re-check every step of an exported log against the rules, then store it read-only."""
    if doc.get("format") != EXPORT_FORMAT or doc.get("format_version") != EXPORT_FORMAT_VERSION:
        raise ValidationFailed("Not a gameroom match export.", code="bad-export-format")
    if not doc.get("complete") or "seed" not in doc:
        raise ValidationFailed(
            "Only the complete log of a finished match can be imported.", code="export-incomplete"
        )
    game = matches.registry.get(doc["game"])
    if doc.get("rules_version") != game.info.rules_version:
        raise ValidationFailed(
            f"The log was played under rules version {doc.get('rules_version')}; this server can re-check "
            f"only version {game.info.rules_version}.",
            code="rules-version-mismatch",
        )
    # Seat count, names and AI levels as create checks them, before anything is replayed.
    seat_objs = matches.seats_for(game, doc["seats"])
    entries = doc.get("entries") or []
    schedule = [[1, doc["seed"]]] + [[r["version"], r["seed"]] for r in doc.get("reseeds") or []]
    if any(a[0] >= b[0] for a, b in zip(schedule, schedule[1:])):
        raise TamperedLog("The reseeds are not in increasing version order.", version=1)
    verified, entries = verified_log(
        game, entries, len(seat_objs), doc["options"], schedule, matches.ai_levels(game)
    )
    if lifecycle.outcome(game, verified) is None:
        raise TamperedLog("The log ends before the match is over.", version=verified.version)
    record = MatchRecord(
        id=new_match_id(),
        game=doc["game"],
        options=entries[0]["options"],  # as the game loads them, like the setup entry's
        seed=schedule[-1][1],
        created=matches.clock(),
        seats=seat_objs,
        read_only=True,
        seed_log=schedule if len(schedule) > 1 else None,
    )
    loaded, _ = store_copy(matches, record, entries)
    return loaded
