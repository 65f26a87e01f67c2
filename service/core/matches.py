"""Match lifecycle: the match record, seats, status, and who sees what of the history.

Pure: no Flask, Redis or RQ. Persistence lives in ``gameroom.eventstore.records``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from ..plugin_api import Game
from . import lifecycle

WAITING, ACTIVE, FINISHED = "waiting", "active", "finished"


#: The match ids the fast paths take (:mod:`gameroom.http.wire`, :mod:`gameroom.http.lean`), as a
#: regular expression: every id :func:`new_match_id` makes, and more. A request naming any other
#: id is answered by Flask, as every request once was.
MATCH_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"


def new_match_id() -> str:
    return secrets.token_hex(8)


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe. Shown once, stored only hashed."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def rematch_token(seat_token: str, next_id: str) -> str:
    """The token of a seat in rematch ``next_id``, for the holder of that seat's ``seat_token``.

    Derived (HMAC keyed with the seat's token, as long as :func:`new_token`'s), not drawn, so
    that each time its player asks, the seat gets the one same token: only the holder of
    ``seat_token`` can compute it, and that holder may ask for the rematch anyway."""
    digest = hmac.new(seat_token.encode(), f"rematch:{next_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


def claim_token(secret: bytes, match_id: str, seat: int, idempotency_key: str) -> str:
    """The token of ``seat`` claimed with ``idempotency_key``: derived (HMAC keyed with the
    server's secret), not drawn, as long as :func:`new_token`'s, so that a retry of the claim
    (its answer lost, the server maybe restarted) computes the token again and finds its hash
    stored with the seat: nothing records the key. Whoever knows the key can have the token
    by claiming again, so the key is as secret as the token."""
    message = "\x00".join(("claim", match_id, str(seat), idempotency_key)).encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


@dataclass
class Seat:
    name: str | None = None
    ai: str | None = None

    @property
    def filled(self) -> bool:
        return self.name is not None

    def as_dict(self, kept: bool = False) -> dict:
        """The seat as a summary shows it; ``kept``: a rematch keeps it for its player (see
        :meth:`MatchRecord.kept`), so it is not open to anyone."""
        return {"name": self.name, "ai": self.ai, "open": not self.filled and not kept, "reserved": kept}


@dataclass
class MatchRecord:
    """What the platform knows of a match besides its event stream."""

    id: str
    game: str
    options: dict
    seed: str
    created: float
    seats: list[Seat] = field(default_factory=list)
    #: an imported match: finished, replayable, never played on
    read_only: bool = False
    #: {"match": id, "version": n} for a fork
    forked_from: dict | None = None
    #: a fork's ``[[from_version, seed], ...]``: its log up to the fork was decided under its
    #: original's seed, the rest under ``seed`` (None: one seed from version 1)
    seed_log: list | None = None

    def seed_schedule(self) -> list:
        """``[[from_version, seed], ...]``: which seed decided which part of the log."""
        return self.seed_log or [[1, self.seed]]

    #: lifecycle settings chosen at creation: clock, timeout, unlisted, hide_names, rematch_of
    settings: dict = field(default_factory=dict)

    @property
    def num_seats(self) -> int:
        return len(self.seats)

    @property
    def full(self) -> bool:
        return all(s.filled for s in self.seats)

    def names(self) -> list[str]:
        return [s.name or f"Seat {i + 1}" for i, s in enumerate(self.seats)]

    def ai_seats(self) -> dict[int, str]:
        return {i: s.ai for i, s in enumerate(self.seats) if s.ai}

    def kept(self, seat: int) -> bool:
        """A rematch's ``seat`` waits for its player in the previous match: reserved, not
        released (the records take a release out of ``reserved``), and not taken yet."""
        return seat in self.settings.get("reserved", ()) and not self.seats[seat].filled


def status_of(record: MatchRecord, game: Game, state, folded=None) -> str:
    """``waiting``, ``active`` or ``finished``; pass the ``folded`` match too, so that a
    resignation or a forfeit (:mod:`gameroom.core.lifecycle`) counts."""
    if not record.full:
        return WAITING
    return status_when_full(game, state, folded)


def status_at(record: MatchRecord, game: Game, folded) -> str:
    """The status the match had while ``folded``'s version was its latest (``state?version=N``).

    :func:`status_of` reads the record as it is now. A clocked match appends its
    ``start`` entry when its last seat is claimed, so its versions before that (the
    overlay not ``started``) were ``waiting``. A match without a clock appends nothing
    then: its version 1 was ``waiting``, then ``active``, and nothing tells when it
    changed; it is shown as it ended (as the match itself shows while at version 1).
    Any later version was ``active`` or ``finished``: no one moves before every seat is filled.
    """
    if folded.lifecycle is not None and not folded.lifecycle["started"]:
        return WAITING
    return status_of(record, game, folded.state, folded)


def status_when_full(game: Game, state, folded=None) -> str:
    """:func:`status_of` a match whose seats are all filled: ``active`` or ``finished``."""
    if folded is not None and folded.lifecycle and folded.lifecycle["ended"]:
        return FINISHED
    return FINISHED if game.outcome(state) is not None else ACTIVE


def redact_entry(
    game: Game,
    entry: dict,
    viewer: int | None,
    names: list[str],
    *,
    public: bool = False,
    undone: bool = False,
) -> dict:
    """An entry as ``viewer`` may see it: events redacted, the command shown to its author only.

    ``public`` (the match is over) shows everything. The match seed is never
    part of an entry. The sealed steps an entry carries (``sealed``) are shown
    to its seat (and once the match is over), as events before the entry's own.
    """
    events = list(entry["events"])
    if entry.get("sealed") and (public or viewer == entry.get("seat")):
        # The seat's sealed steps, before its confirm: to anyone else they stay one entry,
        # which says nothing of how many steps it carries (see ``Game.sealed_steps``).
        events = [e for step in entry["sealed"] for e in step["events"]] + events
    if not public:
        events = [game.redact(e, viewer) for e in events]
    out = {
        "version": entry["version"],
        "kind": entry["kind"],
        "seat": entry.get("seat"),
        "time": entry.get("time"),
        "undone": undone,
        "events": events,
        "text": [game.describe(e, None if public else viewer, names) for e in events],
    }
    if entry["kind"] == "undo":
        out["target"] = entry["target"]
    if entry["kind"] == lifecycle.LIFECYCLE:  # the platform's own entry: nothing in it is hidden
        out.update(lifecycle.public_fields(entry))
        out["text"] = lifecycle.describe(entry, names)
    if entry.get("move") is not None and (public or viewer == entry.get("seat")):
        out["move"] = entry["move"]
    return out
