"""The order of an imported log: what the live actions check before they append an entry.

:mod:`gameroom.application.logcheck` re-decides every move with the game's rules, which know nothing
of clocks, takeovers or resignations. The checks here are the preconditions that
:mod:`gameroom.application.absence`, :mod:`gameroom.application.rematch` and ``Matches.submit`` apply to the match as it stands, judged
on the match folded so far, so that an import stores no lifecycle entry or move that no
live match could have appended. Pure: no Redis, no HTTP.

What they cannot judge, because a log does not record it: who holds which token, the
record's AI seats and a rematch's reserved seats, and whether a timeout's time had run out.
"""

from __future__ import annotations

from collections.abc import Collection

from ..core import lifecycle
from ..core.decider import Folded
from .logform import Bad


def _over(game, folded: Folded) -> bool:
    return game.outcome(folded.state) is not None or bool(lifecycle.ended(folded))


def _clock(folded: Folded) -> dict | None:
    """The overlay of a match with a clock, else None."""
    overlay = folded.lifecycle
    return overlay if overlay is not None and overlay["clock"] else None


def check_lifecycle(
    game,
    folded: Folded,
    action: str,
    seat: int | None,
    fields: dict,
    version: int,
    fork_points: Collection[int],
    moved: bool,
    bad: Bad,
) -> None:
    """Whether ``action`` by ``seat`` could be appended to ``folded``.

    ``fork_points``: the versions where a fork appends its own ``start`` (right after the
    history it copied, or after the deal there); ``moved``: an entry after the setup
    changed the game (a release comes before anyone plays)."""
    clock = _clock(folded)
    if action == lifecycle.START:
        if seat is not None:
            bad(version, "the clocks' start is no seat's entry")
        if version in fork_points:  # a fork's players take their seats (written whatever the fork's clock)
            return
        if clock is None or clock["started"] or _over(game, folded):
            bad(version, "the clocks start once, in a match with a clock, when its last seat is taken")
    elif action == lifecycle.REMATCH:
        if not _over(game, folded):
            bad(version, "a rematch is offered once the match is over")
    elif action == lifecycle.RELEASE:
        if moved or (clock is not None and clock["started"]):
            bad(version, "a seat is released only before the match starts")
    else:
        assert seat is not None  # logcheck requires a seat for every other action
        if _over(game, folded):
            bad(version, "the match is over")
        if clock is not None and not clock["started"]:
            bad(version, "the match has open seats and has not started")
        if action == lifecycle.LEAVE and lifecycle.taken_over(folded, seat):
            bad(version, "an AI plays this seat already")
        elif action == lifecycle.RECLAIM and not (folded.lifecycle and folded.lifecycle["left"][seat]):
            bad(version, "only a seat that was left can be reclaimed")
        elif action == lifecycle.TIMEOUT:
            if clock is None or clock["turn_start"][seat] is None or clock["ai"][seat]:
                bad(version, "the seat has no running clock that a person holds")
            if fields["policy"] != dict(clock["policy"] or lifecycle.DEFAULT_POLICY):
                bad(version, "the timeout does not apply the match's timeout policy")


def check_move(folded: Folded, seat: int, actor: str | None, version: int, bad: Bad) -> None:
    """A move is made in a started match, and by an AI where one plays the seat now."""
    clock = _clock(folded)
    if clock is not None and not clock["started"]:
        bad(version, "a move before the match started")
    if lifecycle.taken_over(folded, seat) and not (actor or "").startswith("ai:"):
        bad(version, "a person moves for a seat an AI plays")


def check_undo(folded: Folded, seat: int, target: int, version: int, bad: Bad) -> None:
    """An undo is its seat's: the first step it cancels is that seat's own (``plan_undo``)."""
    later = [c for c in folded.checkpoints if c[0] > target]
    if not later or later[0][1] != seat:
        bad(version, "the undo's seat did not make the first step it undoes")
