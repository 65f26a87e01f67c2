"""The match state: its layout and its phases.

State layout (all JSON)::

    set        compact card set (see content.compact), shared, never changed
    opts       rule options; n seats; T turns per player
    start      the start player (view: ``first``)
    cur        the seat whose turn it is (view: ``current``)
    phase      exchange | look | empire | pay | ability | threat | loss |
               attack | ambassador | over
    pending    details of the open decision (pay due, ability source, ...)
    deck       draw pile, top first          discard   face-up pile, top last
    hands      per seat                      rows      per seat, list of entries
    tucked     red cards under each homeworld
    out        cards removed from the game (red cards cleared by ambassadors)
    homeworlds one per seat                  removed   undealt homeworlds
    turns      finished turns per seat       reds      red cards played per seat
    bully      pending surcharges per seat   stuck     stuck redraw owed per seat
    attacked   opponents attacked this turn  ambs      ambassadors played this turn
    known      [card, holder, viewer]: hand cards a viewer saw (TSE-H3)
    bottom     [card, seat]: cards a seat put under the deck with Look

A row entry is ``{"id", "o": "A"|"B", "atk": {"id", "mode"}|None,
"amb": {"id", "end"}|None, "used": bool, "t": turn placed}``.

:mod:`.evolve` builds it from events (copy-on-write); :mod:`.rules` reads it.
The keys are not renamed lightly: the server caches folded states
(snapshots) that a new key name would not match.
"""

from __future__ import annotations

#: The steps of a turn a state can be in (``state["phase"]``), in turn order.
PHASES = [
    "exchange",
    "look",
    "empire",
    "pay",
    "ability",
    "threat",
    "loss",
    "attack",
    "ambassador",
    "over",
]
