"""Deciding commands and folding entries, over any game's pure functions.

A match's stream holds *entries*, one per accepted command::

    {"version": 7, "kind": "move", "seat": 1, "move": {...},
     "events": [...], "drew": false, "reveal": false,
     "rules_version": 1, "time": 1764445000.0}

A move entry may also carry ``"sealed": [{"move", "events", "time"}, ...]``:
its seat's sealed steps (``Game.sealed_steps``), kept in the seat's draft
until this move, folded before the entry's own events.

``kind`` is ``setup`` (version 1: the game's opening events, plus the game's
slug), ``move`` (a seat's command and the events it produced), ``undo``
(a compensating entry that returns the match to the state at ``target``, or,
for a *selective* undo, to that state plus the other seats' ``keeps``; it
carries the resulting state, so folding never has to keep old states around)
or ``deal`` (a fork's first own entry, right after the history it copied: the
game's ``fork_events``, which deal anew what no seat can see; see
:func:`deal_entry`). Folding only ever calls ``evolve``; it never validates
and never draws.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ..errors import Conflict, NotYourTurn, RuleViolation
from ..plugin_api import Game, IllegalMove
from . import lifecycle
from .rng import rng_for

SETUP, MOVE, UNDO, DEAL = "setup", "move", "undo", "deal"
LIFECYCLE = lifecycle.LIFECYCLE

#: Undo reaches back at most this many effective steps (a bound on what a
#: folded match carries; a turn is far shorter in every game).
MAX_UNDO_DEPTH = 200

#: Flags of a checkpoint (its third item): the step was made while the game declared
#: its seat's steps independent of the other seats' (``Game.independent_steps``); the
#: step confirms its seat's steps (``Game.confirms``); the checkpoint is the barrier
#: itself (the window of checkpoints was not cut by ``MAX_UNDO_DEPTH``).
INDEPENDENT, CONFIRMS, BASE = 1, 2, 4


@dataclass
class Folded:
    """The state of a match after folding its entries up to ``version``.

    ``rules_version`` is the version the match started under (its setup
    entry's). ``checkpoints`` holds ``(version, seat)`` of each effective
    entry since the last barrier (an entry that drew randomness or revealed
    hidden information), at most ``MAX_UNDO_DEPTH`` of them: exactly the
    versions undo may return to; a third item holds the checkpoint's flags
    (``INDEPENDENT``, ``CONFIRMS``, ``BASE``). ``undone`` lists the versions
    that compensating entries cancelled.
    """

    state: object = None
    version: int = 0
    rules_version: int = 0
    slug: str = ""
    checkpoints: list = field(default_factory=list)
    undone: set = field(default_factory=set)
    #: seats that have made at least one move (undo tells "nothing to undo" from "behind a reveal")
    movers: frozenset = frozenset()
    #: clocks, takeovers and resignations (:mod:`gameroom.core.lifecycle`); None when there are none
    lifecycle: dict | None = None
    #: the version of the last entry that changed what is hidden (the setup, a draw, a reveal):
    #: the base of seats' drafts, which lifecycle entries (no game events) leave valid
    revealed: int = 0

    def to_snapshot(self) -> dict:
        return {
            "lifecycle": self.lifecycle,
            "state": self.state,
            "version": self.version,
            "rules_version": self.rules_version,
            "slug": self.slug,
            "checkpoints": [list(c) for c in self.checkpoints],
            "undone": sorted(self.undone),
            "movers": sorted(self.movers),
            "revealed": self.revealed,
        }

    @classmethod
    def from_snapshot(cls, data: dict) -> Folded:
        return cls(
            state=data["state"],
            version=data["version"],
            rules_version=data["rules_version"],
            slug=data["slug"],
            # a snapshot written before the flags: no flag (no selective undo until the next barrier)
            checkpoints=[(c[0], c[1], c[2] if len(c) > 2 else 0) for c in data["checkpoints"]],
            undone=set(data["undone"]),
            movers=frozenset(data.get("movers", ())),
            lifecycle=data.get("lifecycle"),
            # a snapshot written before the field: its last barrier (drafts from before it are stale)
            revealed=data.get("revealed", data["checkpoints"][0][0] if data["checkpoints"] else 0),
        )


def setup_entry(game: Game, num_seats: int, options: dict, seed: str) -> dict:
    """The first entry of a match: the game's opening events."""
    rng = rng_for(seed, 1, "setup")
    events = game.setup(num_seats, options, rng)
    return {
        "kind": SETUP,
        "seat": None,
        "game": game.info.slug,
        "num_seats": num_seats,
        "options": options,
        "events": events,
        "drew": rng.used,
        "reveal": True,
        "rules_version": game.info.rules_version,
    }


def deal_entry(game: Game, folded: Folded, seed: str) -> dict | None:
    """The entry a fork appends right after the history it copied (``folded``), or None.

    The game deals anew what no seat can see (``Game.fork_events``), with randomness from
    the fork's own ``seed`` and the entry's version, so that an importer re-derives it from
    the export's reseeds. None when the game deals nothing (a perfect-information game, a
    pile too small to shuffle) or the match is already over there. It drew: an undo
    never crosses it.
    """
    if game.outcome(folded.state) is not None or lifecycle.ended(folded):
        return None
    events = game.fork_events(folded.state, rng_for(seed, folded.version + 1, DEAL))
    if not events:
        return None
    return {
        "kind": DEAL,
        "seat": None,
        "events": events,
        "drew": True,
        "reveal": False,
        "rules_version": game.info.rules_version,
    }


def apply_entry(game: Game, folded: Folded, entry: dict) -> Folded:
    """Fold one entry. Returns a new :class:`Folded`; ``folded`` is not changed."""
    new = _apply_entry(game, folded, entry)
    kind = entry["kind"]
    if kind == SETUP and entry.get("lifecycle"):
        overlay = lifecycle.initial(
            entry["lifecycle"], entry["num_seats"], entry.get("time"), entry.get("started", True)
        )
        new.lifecycle = lifecycle.evolve(
            overlay,
            entry,
            entry["num_seats"],
            game.active_seats(new.state),
            game.outcome(new.state) is not None,
        )
    elif kind == DEAL:  # no seat's time: the deal is made before the fork's clocks start
        new.lifecycle = folded.lifecycle
    elif folded.lifecycle is not None or kind == LIFECYCLE:
        num_seats = len(folded.lifecycle["turn_start"]) if folded.lifecycle else entry["num_seats"]
        over = game.outcome(new.state) is not None
        new.lifecycle = lifecycle.evolve(
            folded.lifecycle,
            entry,
            num_seats,
            [] if over else game.active_seats(new.state),
            over,
            turns_ended(game, entry),
        )
    return new


def turns_ended(game: Game, entry: dict) -> list[int]:
    """The seat whose turn ``entry`` ends even if it stays active (its clock restarts): a move's
    seat, when one of the move's events ends its turn (``Game.ends_turn``). A seat that becomes
    inactive needs no such signal; sealed steps never end a turn (see :func:`sealable`)."""
    seat = entry.get("seat")
    if entry["kind"] != MOVE or seat is None:
        return []
    return [seat] if any(game.ends_turn(e) for e in entry["events"]) else []


def _apply_entry(game: Game, folded: Folded, entry: dict) -> Folded:
    kind = entry["kind"]
    version = folded.version + 1
    if entry.get("version", version) != version:
        raise ValueError(f"entry {entry.get('version')} does not follow version {folded.version}")
    if kind == UNDO:
        return _apply_undo(folded, entry, version)
    if kind == LIFECYCLE:  # no game events; nothing is undone across a takeover or a resignation
        return Folded(
            state=folded.state,
            version=version,
            rules_version=folded.rules_version,
            slug=folded.slug,
            checkpoints=[(version, entry.get("seat"), BASE)],
            undone=folded.undone,
            movers=folded.movers,
            revealed=folded.revealed,
        )
    # Each entry records the rules version of the code that decided it; events
    # written under an older version are upcast to the current one on the way in.
    written_under = entry.get("rules_version", folded.rules_version)
    rules_version = written_under if kind == SETUP else folded.rules_version
    state = fold_events(game, folded.state, entry, written_under)
    seat = entry.get("seat")
    barrier = kind == SETUP or entry.get("drew") or entry.get("reveal")
    if barrier:
        checkpoints = [(version, seat, BASE)]
    else:
        flags = 0
        if kind == MOVE and seat is not None and game.independent_steps(folded.state, seat):
            flags |= INDEPENDENT
        if kind == MOVE and any(game.confirms(e) for e in entry["events"]):
            flags |= CONFIRMS
        checkpoints = folded.checkpoints + [(version, seat, flags)]
        if len(checkpoints) > MAX_UNDO_DEPTH + 1:
            checkpoints = checkpoints[-MAX_UNDO_DEPTH - 1 :]
            first = checkpoints[0]
            checkpoints[0] = (first[0], first[1], first[2] & ~BASE)
    return Folded(
        state=state,
        version=version,
        rules_version=rules_version,
        slug=entry.get("game", folded.slug),
        checkpoints=checkpoints,
        undone=folded.undone,
        movers=folded.movers | {entry["seat"]} if kind == MOVE else folded.movers,
        revealed=version if barrier else folded.revealed,
    )


def _apply_undo(folded: Folded, entry: dict, version: int) -> Folded:
    """``folded`` after the undo ``entry`` (version ``version``): its state, and the checkpoints
    up to its target plus the steps it keeps."""
    target = entry["target"]
    keeps = set(entry.get("keeps") or ())
    keep = [c for c in folded.checkpoints if c[0] <= target]
    if not keep or keep[-1][0] != target:
        raise ValueError(f"undo to {target} crosses a barrier")
    later = [c for c in folded.checkpoints if c[0] > target]
    if not keeps <= {c[0] for c in later}:
        raise ValueError(f"undo keeps versions {sorted(keeps)} that are not after {target}")
    cancelled = {c[0] for c in later if c[0] not in keeps}
    return Folded(
        state=entry["state"],
        version=version,
        rules_version=folded.rules_version,
        slug=folded.slug,
        checkpoints=keep + [c for c in later if c[0] in keeps],
        undone=folded.undone | cancelled,
        movers=folded.movers,
        revealed=folded.revealed,
    )


def fold_events(game: Game, state, entry: dict, written_under: int):
    """``state`` with ``entry``'s events folded in (upcast from ``written_under``)."""
    current = game.info.rules_version
    for event in sealed_events(entry) + list(entry["events"]):
        if written_under != current:
            event = game.upcast(event, written_under)
        state = game.evolve(state, event)
    return state


def sealed_events(entry: dict) -> list:
    """The events of the sealed steps ``entry`` carries, in order (none for most entries)."""
    return [e for step in entry.get("sealed") or () for e in step["events"]]


def with_steps(game: Game, folded: Folded, steps: Iterable[dict]) -> Folded:
    """``folded`` with the events of draft ``steps`` folded into its state (same version):
    the match as the seat whose draft they are sees it."""
    state = folded.state
    for step in steps:
        for event in step["events"]:
            state = game.evolve(state, event)
    return replace(folded, state=state)


def barrier(folded: Folded) -> int:
    """The base of seats' drafts: the version of the last setup, draw or reveal. Lifecycle
    entries (clocks, takeovers) carry no game events, so a draft stays valid across them."""
    return folded.revealed


def sealable(game: Game, folded: Folded, seat: int, entry: dict) -> bool:
    """Whether the step ``entry`` (as :func:`decide` built it on ``folded``) goes to ``seat``'s draft
    (never a step that confirms or ends the seat's turn: the others, and the clocks, see those)."""
    return (
        not entry["drew"]
        and not entry["reveal"]
        and not any(game.confirms(e) or game.ends_turn(e) for e in entry["events"])
        and bool(game.sealed_steps(folded.state, seat))
    )


def fold(game: Game, entries: Iterable[dict], start: Folded | None = None) -> Folded:
    """Fold ``entries`` (in version order) onto ``start`` (default: nothing)."""
    folded = start or Folded()
    for entry in entries:
        folded = apply_entry(game, folded, entry)
    return folded


def decide(game: Game, folded: Folded, seat: int, move: dict, seed: str) -> dict:
    """Validate ``move`` by ``seat`` against ``folded`` and build its entry.

    Raises :class:`NotYourTurn`, :class:`Conflict` (``match-over``) or
    :class:`RuleViolation`. The randomness is derived from the match seed and
    the version the entry will take, so deciding again draws the same.
    """
    state = folded.state
    if game.outcome(state) is not None or lifecycle.ended(folded):
        raise Conflict("The match is over.", code="match-over")
    if seat not in game.active_seats(state):
        raise NotYourTurn(f"Seat {seat} may not act now.")
    if not isinstance(move, dict):
        raise RuleViolation("malformed-move", "A move is a JSON object.")
    rng = rng_for(seed, folded.version + 1)
    try:
        events = game.decide(state, seat, move, rng)
    except IllegalMove as exc:
        raise RuleViolation(exc.code, exc.message) from None
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        # A game that trips over a malformed move must not turn it into a 500.
        raise RuleViolation("malformed-move", f"The move is malformed ({type(exc).__name__}).") from None
    return {
        "kind": MOVE,
        "seat": seat,
        "move": move,
        "events": events,
        "drew": rng.used,
        "reveal": any(game.reveals(e) for e in events),
        "rules_version": game.info.rules_version,
    }
