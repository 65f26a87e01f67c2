"""The undo policy (architecture §5), as a pure function of the folded match.

- A seat may undo its own most recent steps at once while no other seat has
  acted since and none of those steps drew randomness or revealed hidden
  information.
- *Selective undo*: where the game declares a seat's steps independent of the
  other seats' (:meth:`gameroom.plugin_api.Game.independent_steps`, say in a
  simultaneous phase where each seat plays on its own sheet), a seat may undo
  its own steps at once even though other seats acted in between: only the
  caller's steps are cancelled, the other seats' interleaved steps are kept
  (the entry lists them in ``keeps``), and no consent is needed.
- Reaching back across other seats' steps (but no draw or reveal) otherwise
  needs the consent of every other human seat: the caller gets a *request*.
- Nothing is ever undone across a random draw or a reveal, and no step that
  confirms its seat's steps (:meth:`gameroom.plugin_api.Game.confirms`) is
  ever cancelled: confirming ends the right to undo.

Undo itself is a compensating entry (``kind: "undo"``, ``target``: the
version whose state the match returns to; ``keeps``: the later versions that
stay in effect, for a selective undo); nothing is deleted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import Conflict
from .decider import BASE, CONFIRMS, INDEPENDENT, MAX_UNDO_DEPTH, Folded, fold_events

APPLY, REQUEST = "apply", "request"


class UndoRefused(Conflict):
    code, title = "undo-crosses-reveal", "Undo refused"


class UndoConfirmed(Conflict):
    code, title = "undo-crosses-confirm", "Undo refused"


@dataclass(frozen=True)
class UndoPlan:
    kind: str  # APPLY or REQUEST
    target: int  # the version whose state the match returns to
    undoes: tuple  # versions cancelled
    others: tuple  # seats other than the caller whose steps are undone
    keeps: tuple = ()  # later versions (other seats' steps) that stay in effect: a selective undo


def plan_undo(folded: Folded, seat: int, steps: int = 1) -> UndoPlan:
    """Decide how ``seat`` may undo its last ``steps`` steps, or raise a Conflict."""
    if steps < 1:
        raise Conflict("Undo at least one step.", code="bad-undo-steps")
    points = folded.checkpoints  # [(version, seat, flags)], the first is the last barrier
    own = [i for i, p in enumerate(points) if i > 0 and p[1] == seat]
    if len(own) < steps:
        if seat not in folded.movers or (not own and _from_the_start(points[0])):
            raise Conflict("You have no step to undo.", code="nothing-to-undo")
        raise fewer_steps(len(own), points[0], folded.revealed)
    first = own[-steps]
    target = points[first - 1][0]
    undone = points[first:]
    if any(p[2] & CONFIRMS for p in undone if p[1] == seat):
        raise UndoConfirmed("You confirmed these steps: they can no longer be undone.")
    others = tuple(sorted({p[1] for p in undone if p[1] != seat and p[1] is not None}))
    if not others:
        return UndoPlan(APPLY, target, tuple(p[0] for p in undone), ())
    keeps = selective_keeps(folded, seat, target)
    if keeps is not None:
        return UndoPlan(APPLY, target, tuple(p[0] for p in undone if p[1] == seat), (), keeps)
    if any(p[2] & CONFIRMS for p in undone):
        raise UndoConfirmed("Another seat confirmed its steps since: they can no longer be undone.")
    return UndoPlan(REQUEST, target, tuple(p[0] for p in undone), others)


def _from_the_start(barrier: tuple) -> bool:
    """The barrier is the match's setup (version 1): no step of any seat lies before it."""
    return barrier[0] == 1 and bool(barrier[2] & BASE)


def fewer_steps(have: int, barrier: tuple, revealed: int) -> Conflict:
    """The refusal of an undo of more steps than the ``have`` that the seat made since
    ``barrier`` (the first checkpoint, or the base of a seat's draft), saying what stops it:
    the match's start (there are no more steps), the limit of :data:`MAX_UNDO_DEPTH`, a
    random draw or a reveal (``revealed``: the last one), or a lifecycle entry."""
    if _from_the_start(barrier):
        return Conflict(
            f"You have only {have} step{'' if have == 1 else 's'} to undo.", code="bad-undo-steps"
        )
    if not barrier[2] & BASE:
        return Conflict(
            _earlier(have, f"is more than {MAX_UNDO_DEPTH} steps back, farther than undo reaches"),
            code="bad-undo-steps",
        )
    if barrier[0] == revealed:
        return UndoRefused(_earlier(have, "is behind a random draw or a reveal"))
    return Conflict(
        _earlier(have, "is behind the match's start or a change of hands (a leave, a reclaim or a timeout)"),
        code="bad-undo-steps",
    )


def _earlier(have: int, why: str) -> str:
    """The refusal's sentence: ``why`` the seat's step before its ``have`` last ones is out of reach."""
    if have:
        return f"Only {have} of your last steps can be undone: the one before {why}."
    return f"None of your steps can be undone: your last one {why}."


def selective_keeps(folded: Folded, seat: int, target: int) -> tuple | None:
    """The other seats' versions after ``target`` that a selective undo by ``seat`` keeps,
    or ``None`` when it may not undo selectively back to ``target``.

    It may when the checkpoints reach back to the barrier, the first step after
    ``target`` is the caller's, and every step after ``target`` (the caller's and
    the others') was made while the game declared its seat's steps independent.
    """
    points = folded.checkpoints
    if not points or not points[0][2] & BASE:
        return None
    later = [p for p in points if p[0] > target]
    if not later or later[0][1] != seat or not all(p[2] & INDEPENDENT for p in later):
        return None
    return tuple(p[0] for p in later if p[1] != seat)


def state_after(game, folded: Folded, target: int, keeps: Iterable[int], base_state, entries: Iterable[dict]):
    """The state an undo returns to: the state at the last barrier (``base_state``, at
    ``folded.checkpoints[0]``) with the events of the steps that stay in effect (the
    checkpoints up to ``target`` and ``keeps``) folded in again, in version order.

    ``entries`` holds (at least) the entries of those versions. Without keeps this equals
    the state at ``target`` in a match with no selective undo since the barrier; with one,
    it is also right where a step folded into the state at ``target`` was undone since.
    """
    stay = {c[0] for c in folded.checkpoints[1:] if c[0] <= target} | set(keeps)
    state = base_state
    for entry in sorted((e for e in entries if e["version"] in stay), key=lambda e: e["version"]):
        state = fold_events(game, state, entry, entry.get("rules_version", folded.rules_version))
    return state


def has_base(folded: Folded) -> bool:
    """Whether the checkpoints reach back to the last barrier (see :func:`state_after`).

    They do not after more than ``MAX_UNDO_DEPTH`` effective steps since it: then no
    selective undo is offered, and an undo returns to the state recorded at its target.
    """
    return bool(folded.checkpoints) and bool(folded.checkpoints[0][2] & BASE)


def undo_entry(seat: int, plan: UndoPlan, target_state, request_id: str | None = None) -> dict:
    """The compensating entry. It carries the state the match returns to (never shown
    to clients while the match runs: it holds hidden information)."""
    entry = {
        "kind": "undo",
        "seat": seat,
        "target": plan.target,
        "undoes": list(plan.undoes),
        "state": target_state,
        "events": [],
        "drew": False,
        "reveal": False,
    }
    if plan.keeps:
        entry["keeps"] = list(plan.keeps)
    if request_id:
        entry["request"] = request_id
    return entry
