"""What happens to a match around its players: clocks, timeouts, resigning, leaving, AI takeover.

Pure: no Flask, Redis or RQ, and no clock of its own. Every function takes
the time it needs as an argument, so the same arithmetic runs in the API, in
a worker, in replay and in a test with an injected clock.

A match's stream carries the platform's own *lifecycle entries* next to its
moves (``kind: "lifecycle"``, no game events)::

    {"kind": "lifecycle", "action": "resign", "seat": 1, "events": [], ...}

Actions: ``start`` (the last open seat was claimed, or a fork begins: clocks
start now, every seat is played by its own player), ``resign``
(the seat concedes; the match ends with the outcome written into the entry),
``leave`` (the seat hands itself to an AI for the rest of the match; its
token stops working), ``reclaim`` (a left seat is human again, with a token
its creator issued), ``timeout`` (the seat's time ran out; the match's
policy is applied: an AI plays its turn or the rest of the match, or the
seat forfeits), ``rematch`` (after the end: the next match was created, or
a seat accepted it; ``next`` names it), ``release`` (in a rematch that waits
for its players: the creator opened a seat kept for its player to anyone).

Folding keeps an *overlay* next to the game's state (``Folded.lifecycle``):
a JSON-compatible dict, so snapshots carry it. It is ``None`` for a match
that has no clock and no lifecycle entry, which costs nothing.

**Clocks.** A time control is a per-move limit (``per_move`` seconds for
each turn: from the entry that makes a seat active until the entry that
makes it inactive, or until the seat's own entry that ends its turn although
it stays active: ``Game.ends_turn``, say the last confirm of a simultaneous
turn, which starts the next turn at once), a Fischer time bank (``bank``
seconds to start with, less the time the seat was active, plus ``increment``
each time its turn ends), or both (the earlier deadline counts). An AI that
took a seat over for the rest of its turn (``ai-turn``) hands it back when
that turn ends. A game's turn may take several atomic
steps; the clock counts the turn, not each step. Time comes only from the
``time`` of each entry (the server's clock when it was appended), so replay
reproduces every clock exactly and ``state?version=N`` shows them as they
were at entry *N*. A bank never goes below zero: a seat whose bank ran out
has only its increment for later turns.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

LIFECYCLE = "lifecycle"
START, RESIGN, LEAVE, RECLAIM, TIMEOUT, REMATCH = "start", "resign", "leave", "reclaim", "timeout", "rematch"
RELEASE = "release"
ACTIONS = (START, RESIGN, LEAVE, RECLAIM, TIMEOUT, REMATCH, RELEASE)

#: Timeout policies: an AI plays the rest of the seat's turn, or the rest of the match; or the seat forfeits.
AI_TURN, AI_MATCH, FORFEIT = "ai-turn", "ai-match", "forfeit"
POLICIES = (AI_TURN, AI_MATCH, FORFEIT)
#: The level that takes over when the match's policy names none (the platform's own, always installed).
DEFAULT_LEVEL = "random"
DEFAULT_POLICY = {"action": AI_TURN, "level": DEFAULT_LEVEL}


# -- the overlay ---------------------------------------------------------------


def initial(settings: dict | None, num_seats: int, time: float | None, started: bool) -> dict | None:
    """The overlay after the setup entry, or None for a match with no clock."""
    clock = (settings or {}).get("clock")
    if not clock:
        return None
    overlay = _blank(num_seats)
    overlay["clock"] = dict(clock)
    overlay["policy"] = dict((settings or {}).get("timeout") or DEFAULT_POLICY)
    overlay["started"] = bool(started)
    overlay["at"] = time
    if clock.get("bank") is not None:
        overlay["banks"] = [float(clock["bank"])] * num_seats
    return overlay


def _blank(num_seats: int) -> dict:
    return {
        "clock": None,
        "policy": None,
        "started": True,
        "at": None,
        "banks": None,
        "turn_start": [None] * num_seats,
        "ai": [None] * num_seats,
        "left": [False] * num_seats,
        "revoked": [],
        "ended": None,
        "timeouts": 0,
    }


def evolve(
    overlay: dict | None,
    entry: dict,
    num_seats: int,
    active_after: list[int],
    over: bool,
    turns_ended: Iterable[int] = (),
) -> dict | None:
    """The overlay after ``entry``; ``active_after``: the game's active seats after it; ``over``: its outcome is set;
    ``turns_ended``: the seats whose turn ``entry`` ends even if they are active after it (``Game.ends_turn``).

    Does not change ``overlay``.
    """
    if overlay is None and entry.get("kind") != LIFECYCLE:
        return None
    new = _copy(overlay) if overlay is not None else _blank(num_seats)
    if entry.get("kind") == LIFECYCLE:
        _apply_action(new, entry)
    _tick(new, entry.get("time"), [] if over or new["ended"] else active_after, turns_ended)
    return new


def _copy(overlay: dict) -> dict:
    """A copy that the fold step may change: the per-seat lists are new; everything else in the
    overlay is replaced, never changed in place."""
    new = dict(overlay)
    for key in ("turn_start", "ai", "left"):
        new[key] = list(overlay[key])
    if overlay["banks"] is not None:
        new["banks"] = list(overlay["banks"])
    return new


def _apply_action(overlay: dict, entry: dict) -> None:
    action, seat = entry["action"], entry.get("seat")
    if action == START:  # also a fork's first own entry: its seats are its players', its clocks start now
        n = len(overlay["turn_start"])
        overlay.update(started=True, turn_start=[None] * n, ai=[None] * n, left=[False] * n)
    elif action == RESIGN:
        overlay["ended"] = {"reason": RESIGN, "seats": [seat], "outcome": entry["outcome"]}
    elif action == LEAVE:
        overlay["ai"][seat] = {"level": entry["level"], "until": "match"}
        overlay["left"][seat] = True
        overlay["revoked"] = overlay["revoked"] + list(entry.get("revoked", []))
    elif action == RECLAIM:
        overlay["ai"][seat] = None
        overlay["left"][seat] = False
    elif action == TIMEOUT:
        overlay["timeouts"] += 1
        policy = entry["policy"]
        if policy["action"] == FORFEIT:
            overlay["ended"] = {"reason": FORFEIT, "seats": [seat], "outcome": entry["outcome"]}
        else:
            until = "turn" if policy["action"] == AI_TURN else "match"
            overlay["ai"][seat] = {"level": policy["level"], "until": until}
    elif action not in (REMATCH, RELEASE):  # a rematch changes nothing in this match; a release, its record
        raise ValueError(f"unknown lifecycle action {action!r}")


def _tick(overlay: dict, time: float | None, active_after: list[int], turns_ended: Iterable[int]) -> None:
    """Charge the running clocks up to ``time``, end the turns that ended (the seat is no longer
    active, or ``turns_ended`` says so), then start a turn for each active seat without one."""
    running = {s for s, t in enumerate(overlay["turn_start"]) if t is not None}
    now_active = set(active_after) if overlay["started"] else set()
    clock = overlay["clock"]
    if clock and time is not None and overlay["banks"] is not None and overlay["at"] is not None:
        spent = max(0.0, time - overlay["at"])
        for s in running:
            overlay["banks"][s] = max(0.0, overlay["banks"][s] - spent)
    ended = (running - now_active) | (running & set(turns_ended))
    for s in ended:
        overlay["turn_start"][s] = None
        if clock and overlay["banks"] is not None:
            overlay["banks"][s] += float(clock.get("increment") or 0)
        if overlay["ai"][s] and overlay["ai"][s]["until"] == "turn":
            overlay["ai"][s] = None
    for s in now_active - (running - ended):  # a new turn, or the next one of a seat still active
        overlay["turn_start"][s] = time
    if time is not None:
        overlay["at"] = time


# -- reading the overlay -------------------------------------------------------


def ended(folded) -> dict | None:
    overlay = getattr(folded, "lifecycle", None)
    return overlay["ended"] if overlay else None


def outcome(game, folded) -> dict | None:
    """The match's outcome: a resignation's or forfeit's if one ended it, else the game's."""
    over = ended(folded)
    return over["outcome"] if over else game.outcome(folded.state)


def active_seats(game, folded) -> list[int]:
    return [] if ended(folded) else game.active_seats(folded.state)


def ai_level(record, folded, seat: int) -> str | None:
    """Who plays ``seat`` now: the AI level of an AI seat or of a takeover, or None for its human."""
    overlay = getattr(folded, "lifecycle", None)
    if overlay and overlay["ai"][seat]:
        return overlay["ai"][seat]["level"]
    return record.seats[seat].ai


def taken_over(folded, seat: int) -> bool:
    """Whether an AI plays ``seat`` instead of its human now (after leaving or a timeout)."""
    overlay = getattr(folded, "lifecycle", None)
    return bool(overlay and overlay["ai"][seat])


def ai_seats(record, folded) -> dict[int, str]:
    """Every seat an AI plays now (the record's AI seats and the takeovers), seat -> level."""
    seats = record.ai_seats()
    overlay = getattr(folded, "lifecycle", None)
    if overlay:
        seats = {**seats, **{i: a["level"] for i, a in enumerate(overlay["ai"]) if a}}
    return seats


def token_digest(token_hash: str) -> str:
    """What a ``leave`` entry records of the token it revokes (not the stored hash itself)."""
    return hashlib.sha256(f"revoked:{token_hash}".encode()).hexdigest()[:32]


def revoked(folded, token_hash: str) -> bool:
    overlay = getattr(folded, "lifecycle", None)
    return bool(overlay and overlay["revoked"] and token_digest(token_hash) in overlay["revoked"])


# -- clocks ----------------------------------------------------------------------


def deadline(overlay: dict | None, seat: int) -> float | None:
    """When ``seat``'s time runs out (a server timestamp), or None if its clock is not running."""
    if not overlay or not overlay["clock"] or overlay["ended"]:
        return None
    start = overlay["turn_start"][seat]
    if start is None:
        return None
    found = []
    if overlay["clock"].get("per_move") is not None:
        found.append(start + float(overlay["clock"]["per_move"]))
    if overlay["banks"] is not None:
        found.append(overlay["at"] + overlay["banks"][seat])
    return min(found) if found else None


def deadlines(overlay: dict | None) -> dict[int, float]:
    """Every running clock's deadline, seat -> timestamp."""
    if not overlay or not overlay["clock"]:
        return {}
    found = {s: deadline(overlay, s) for s in range(len(overlay["turn_start"]))}
    return {s: d for s, d in found.items() if d is not None}


def timed_seats(record, folded) -> dict[int, float]:
    """The running clocks that a person holds, seat -> deadline: the seats whose time running out
    applies the timeout policy (an AI seat, or a seat an AI plays now, has none; nor has an import)."""
    overlay = getattr(folded, "lifecycle", None)
    if overlay is None or record.read_only:
        return {}
    return {
        seat: due
        for seat, due in deadlines(overlay).items()
        if not record.seats[seat].ai and not overlay["ai"][seat]
    }


def out_of_time(record, folded, seat: int, now: float) -> bool:
    """Whether ``seat``'s time has run out at ``now`` and the timeout policy applies to it."""
    due = timed_seats(record, folded).get(seat)
    return due is not None and now >= due


def clock_view(overlay: dict | None, now: float | None) -> dict | None:
    """The clocks as a client sees them at ``now`` (None: as they were at the overlay's own entry)."""
    if not overlay or not overlay["clock"]:
        return None
    at = overlay["at"] if now is None else max(now, overlay["at"] or now)
    seats = []
    for s, _start in enumerate(overlay["turn_start"]):
        due = deadline(overlay, s)
        left = None
        if due is not None:
            left = max(0.0, due - at)
        elif overlay["banks"] is not None:
            left = overlay["banks"][s]
        elif overlay["clock"].get("per_move") is not None:
            left = float(overlay["clock"]["per_move"])
        seats.append(
            {
                "seat": s,
                "running": due is not None,
                "remaining": round(left, 3) if left is not None else None,
                "deadline": due,
                "bank": overlay["banks"][s] if overlay["banks"] is not None else None,
            }
        )
    return {
        "control": overlay["clock"],
        "timeout": overlay["policy"],
        "at": at,
        "seats": seats,
        "running": [s["seat"] for s in seats if s["running"]],
    }


def seat_status(overlay: dict | None, num_seats: int) -> list[dict]:
    """Per seat: who plays it now (``human`` or an AI takeover) and whether it left."""
    out = []
    for s in range(num_seats):
        ai = overlay["ai"][s] if overlay else None
        out.append(
            {"seat": s, "left": bool(overlay and overlay["left"][s]), "takeover": dict(ai) if ai else None}
        )
    return out


# -- deciding lifecycle entries -------------------------------------------------


def forfeit_outcome(game, state, losers: list[int], num_seats: int) -> dict:
    """The outcome when ``losers`` resign or forfeit: the game's ``forfeit_outcome`` if it has one,
    else every other seat wins (score 1, losers 0)."""
    own = getattr(game, "forfeit_outcome", None)
    if own is not None:
        result = own(state, list(losers), num_seats)
        if result is not None:
            return result
    winners = [s for s in range(num_seats) if s not in losers]
    return {"scores": [0.0 if s in losers else 1.0 for s in range(num_seats)], "winners": winners}


def entry(action: str, seat: int | None, **fields) -> dict:
    """A lifecycle entry (no game events; a barrier for undo)."""
    return {
        "kind": LIFECYCLE,
        "action": action,
        "seat": seat,
        "events": [],
        "drew": False,
        "reveal": False,
        **fields,
    }


def timeout_entry(game, folded, seat: int, num_seats: int) -> dict:
    """The entry that applies the match's timeout policy to ``seat``."""
    policy = dict(folded.lifecycle["policy"] or DEFAULT_POLICY)
    fields = {"policy": policy}
    if policy["action"] == FORFEIT:
        fields["outcome"] = forfeit_outcome(game, folded.state, [seat], num_seats)
    return entry(TIMEOUT, seat, **fields)


def describe(entry: dict, names: list[str]) -> list[str]:
    """One sentence for a lifecycle entry (public: it reveals nothing of the game)."""
    action, seat = entry["action"], entry.get("seat")
    who = names[seat] if seat is not None and seat < len(names) else "The match"
    if action == START:
        return ["Every seat is taken: the clocks start."]
    if action == RESIGN:
        return [f"{who} resigned."]
    if action == LEAVE:
        return [f"{who} left; an AI ({entry['level']}) plays the seat from now on."]
    if action == RECLAIM:
        return [f"{who} is back: the seat is played by a person again."]
    if action == TIMEOUT:
        policy = entry["policy"]
        if policy["action"] == FORFEIT:
            return [f"{who} ran out of time and forfeits."]
        span = "this turn" if policy["action"] == AI_TURN else "the rest of the match"
        return [f"{who} ran out of time; an AI ({policy['level']}) plays {span}."]
    if action == REMATCH:
        if seat is None:
            return [f"A rematch was set up: match {entry['next']}."]
        # The first seat to call asks for it, the others accept: the entry does not say which,
        # so the sentence is true of both.
        return [f"{who} is in the rematch: match {entry['next']}."]
    if action == RELEASE and seat is not None:  # not the name: the seat's next player may be another
        return [f"Seat {seat + 1} is open to anyone: the creator released it from its previous player."]
    return [f"{who}: {action}."]


def public_fields(entry: dict) -> dict:
    """What history shows of a lifecycle entry besides the common fields (never revoked token digests)."""
    out = {"action": entry["action"]}
    if "level" in entry:
        out["level"] = entry["level"]
    if "policy" in entry:
        out["policy"] = entry["policy"]
    if "outcome" in entry:
        out["outcome"] = entry["outcome"]
    if "next" in entry:
        out["next"] = entry["next"]
    return out
