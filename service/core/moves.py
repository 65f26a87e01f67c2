"""A move decided in one call: :func:`decide_move` turns a seat's move into everything its
append needs (:class:`NewEntry`: the entry, the match after it, the lobby's status, the AI
seats to move next, the clocks' deadlines), or into a step for the seat's draft
(:class:`SealedStep`).

Pure, like the rest of the core: the application loads the match, calls this once, then
appends what it returns (:mod:`gameroom.application.moves`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..plugin_api import Game
from . import decider, lifecycle
from .decider import Folded
from .matches import MatchRecord, status_of

#: What of a sealed step its seat's draft keeps.
STEP_FIELDS = ("move", "events", "time", "actor")


def has_drafts(game: Game) -> bool:
    """Whether ``game`` may keep steps in drafts (it implements ``Game.sealed_steps``)."""
    return game.overrides("sealed_steps")


def ai_to_move(record: MatchRecord, game: Game, folded: Folded) -> list[int]:
    """The AI seats to move in ``folded`` (none while seats are open, or once it is over),
    an AI that took over a seat (see :mod:`gameroom.core.lifecycle`) among them."""
    ai = lifecycle.ai_seats(record, folded)
    if not ai or record.read_only or not record.full or lifecycle.outcome(game, folded) is not None:
        return []
    return [seat for seat in game.active_seats(folded.state) if seat in ai]


@dataclass(frozen=True)
class SealedStep:
    """A step for the seat's draft (nothing is appended; see :mod:`gameroom.eventstore.drafts`)."""

    #: the move's entry as decided (stamped with its time and actor)
    entry: dict
    #: the step as the draft keeps it, and the match as its seat then sees it
    step: dict
    own: Folded
    #: the base of the draft it joins
    barrier: int


@dataclass(frozen=True)
class NewEntry:
    """An entry to append, with what the append stores along with it."""

    #: the move's entry (stamped with its time and actor; carrying the seat's draft, if any)
    entry: dict
    #: the match after the entry, the lobby's status, the AI seats to move, the deadlines of
    #: the running clocks
    after: Folded
    status: str
    ai_seats: list[int] = field(default_factory=list)
    clocks: dict[int, float] = field(default_factory=dict)
    #: whether the game keeps drafts (then the append checks the seat's draft at ``barrier``)
    drafts: bool = False
    barrier: int = 0


MoveDecision = SealedStep | NewEntry


def decide_move(
    game: Game,
    record: MatchRecord,
    folded: Folded,
    seen: Folded,
    draft: tuple,
    seat: int,
    move: dict,
    now: float,
    actor: str | None = None,
) -> MoveDecision:
    """Decide ``move`` of ``seat`` on ``seen`` (``folded``, the log's match, with ``draft``, the
    seat's sealed steps), made at ``now`` by ``actor``; raises what :func:`decider.decide` raises."""
    entry = decider.decide(game, seen, seat, move, record.seed)
    entry["time"] = now
    if actor:
        entry["actor"] = actor
    drafts = has_drafts(game)
    if drafts and decider.sealable(game, seen, seat, entry):
        step = {k: entry[k] for k in STEP_FIELDS if k in entry}
        own = decider.with_steps(game, seen, [step])
        return SealedStep(entry, step, own, decider.barrier(folded))
    if drafts and draft:
        # This step ends the seat's draft: one entry carries both.
        entry["sealed"] = list(draft)
    after = decider.apply_entry(game, folded, {**entry, "version": folded.version + 1})
    return NewEntry(
        entry,
        after=after,
        status=status_of(record, game, after.state, after),
        ai_seats=ai_to_move(record, game, after),
        clocks=lifecycle.timed_seats(record, after),
        drafts=drafts,
        barrier=decider.barrier(folded),
    )
