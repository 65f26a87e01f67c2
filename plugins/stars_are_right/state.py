"""The match state: a flat dict of JSON data, and the queries every module shares.

The state::

    n        number of seats            opts     loaded match options
    sky      tile id per cell (25)      faces    up face per tile id (0 = A, 1 = B)
    deck     draw pile, top first       discard  discard pile, bottom first
    hands    hand per seat              tables   creatures in play per seat
    tapped   the active seat's tapped creatures (SAR-B5.7)
    active   seat whose turn it is (the view calls it ``current``)
    phase    invoke | services | dhole | sky | summon | limit | discard | over
    invoked  card invoked this turn     pool     {"P": n, "S": n, "F": n}
    nc       phase-3 no-cancel bookkeeping (SAR-B6.5), else None
    summoned card summoned this turn    discards hand cards discarded in phase 5
    dhole    pile chosen by a Dhole awaiting ``dhole_take``, else None
    turn     completed turns            first    first player
    winners  None while running         end      why the match ended
    round_cap  only in matches begun under rules version 1 without a ``turn_limit``:
             that version's 100-round safeguard (see ``StarsAreRight.upcast``)

:mod:`.evolve` builds it from events and never mutates it. The keys are
not renamed lightly: the server caches folded states (snapshots) that a new
key name would not match.
"""

from __future__ import annotations

from .content import CARDS

#: The symbol pool of a turn before anything is invoked (SAR-B4).
EMPTY_POOL = {"P": 0, "S": 0, "F": 0}


def has_power(state: dict, seat: int, letter: str) -> bool:
    """Whether ``seat`` controls a minion with power ``letter`` (static powers D, E)."""
    return any(CARDS[c].power == letter for c in state["tables"][seat])
