"""The undo policy (architecture §5), as a pure function of the folded match.

- A seat may undo its own most recent steps at once while no other seat has
  acted since and none of those steps drew randomness or revealed hidden
  information.
- Reaching back across other seats' steps (but no draw or reveal) needs the
  consent of every other human seat: the caller gets a *request*.
- Nothing is ever undone across a random draw or a reveal.

Undo itself is a compensating entry (``kind: "undo"``, ``target``: the
version whose state the match returns to); nothing is deleted.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Conflict
from .decider import Folded

APPLY, REQUEST = "apply", "request"


class UndoRefused(Conflict):
    code, title = "undo-crosses-reveal", "Undo refused"


@dataclass(frozen=True)
class UndoPlan:
    kind: str  # APPLY or REQUEST
    target: int  # the version whose state the match returns to
    undoes: tuple  # versions cancelled
    others: tuple  # seats other than the caller whose steps are undone


def plan_undo(folded: Folded, seat: int, steps: int = 1) -> UndoPlan:
    """Decide how ``seat`` may undo its last ``steps`` steps, or raise a Conflict."""
    if steps < 1:
        raise Conflict("Undo at least one step.", code="bad-undo-steps")
    points = folded.checkpoints  # [(version, seat)], the first is the last barrier
    own = [i for i, p in enumerate(points) if i > 0 and p[1] == seat]
    if len(own) < steps:
        if seat not in folded.movers:
            raise Conflict("You have no step to undo.", code="nothing-to-undo")
        raise UndoRefused(
            f"Only {len(own)} of your last steps can be undone: the one before is behind a random draw "
            "or a reveal, or there is none."
        )
    first = own[-steps]
    target = points[first - 1][0]
    undone = points[first:]
    others = tuple(sorted({p[1] for p in undone if p[1] != seat and p[1] is not None}))
    return UndoPlan(APPLY if not others else REQUEST, target, tuple(p[0] for p in undone), others)


def undo_entry(seat: int, plan: UndoPlan, target_state, request_id: str | None = None) -> dict:
    """The compensating entry. It carries the state at ``plan.target`` (never shown
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
    if request_id:
        entry["request"] = request_id
    return entry
