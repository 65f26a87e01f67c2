"""The form of an imported log: each entry rebuilt from what was checked.

:func:`gameroom.application.logcheck.verify_log` re-decides every command, so a log's events,
draws, reveals, undo targets and restored states are the rules' own. An entry
also carries fields that nothing re-decides: when it was made, the rules
version, the AI that made a move, what a lifecycle entry records (an AI level,
a timeout's policy, a rematch's next match, the digests of revoked tokens), a
match's clock settings. An export is a client's document, so an import stores
none of them as written: the functions here check each against the form in
which the server itself writes it and return that, and any other key makes the
log a tampered one. What is stored is then what the server could have written,
and nothing that later folds, lists, shows or exports the match can fail on it.

``bad(version, why)`` raises :class:`gameroom.application.logcheck.TamperedLog`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from typing import Any, Literal, NoReturn, overload

from marshmallow import ValidationError

from gameroom.schemas.settings import ClockControlSchema, TimeoutPolicySchema

from ..core import lifecycle

#: A log's times are Unix seconds; nothing the server writes is later than the year 3000.
MAX_TIME = 32503680000.0
#: Who made a move that a person did not: ``ai:<level>``, or ``ai:<level>:fallback``.
_ACTOR = re.compile(r"ai:[A-Za-z0-9_.-]{1,64}(:fallback)?")
_DIGEST = re.compile(r"[0-9a-f]{32}")  # lifecycle.token_digest
_MATCH_ID = re.compile(r"[0-9a-f]{16}")  # core.matches.new_match_id
_REQUEST_ID = re.compile(r"[0-9a-f]{12}")  # an undo request's id

_COMMON = frozenset({"version", "kind", "seat", "events", "drew", "reveal", "rules_version", "time"})
KEYS = {
    "setup": _COMMON | {"game", "num_seats", "options", "lifecycle", "started"},
    "move": _COMMON | {"move", "actor", "sealed"},
    "undo": _COMMON | {"target", "undoes", "state", "keeps", "request"},
    "deal": _COMMON,
}
#: What a lifecycle entry of each action carries besides the common keys.
LIFECYCLE_KEYS = {
    lifecycle.START: {"num_seats"},
    lifecycle.RESIGN: {"num_seats", "outcome"},
    lifecycle.LEAVE: {"num_seats", "level", "revoked"},
    lifecycle.RECLAIM: {"num_seats"},
    lifecycle.TIMEOUT: {"num_seats", "policy", "outcome"},
    lifecycle.REMATCH: {"num_seats", "next"},
    lifecycle.RELEASE: {"num_seats"},
}
_STEP_KEYS = frozenset({"move", "events", "time", "actor"})

Bad = Callable[[int, str], NoReturn]


def meta(entry: dict, version: int, rules_version: int, bad: Bad) -> dict:
    """The fields every entry may carry and nothing re-decides: ``time`` and ``rules_version``
    (an earlier version is accepted: the entry's events are what the current rules decide,
    so it is stored under the current one, and no upcast ever runs on it).

    Also refuses keys the entry's kind (a lifecycle entry's action) does not carry."""
    kind, action = entry.get("kind"), entry.get("action")
    if kind == lifecycle.LIFECYCLE:
        allowed = (
            _COMMON | {"action"} | (LIFECYCLE_KEYS.get(action, set()) if isinstance(action, str) else set())
        )
    else:
        allowed = KEYS.get(kind, _COMMON) if isinstance(kind, str) else _COMMON
    extra = sorted(str(k)[:40] for k in entry if k not in allowed)
    if extra:
        bad(version, f"the entry carries fields the server never writes ({', '.join(extra[:5])})")
    written = entry.get("rules_version", rules_version)
    if not _integer(written) or not 1 <= written <= rules_version:
        bad(version, f"the entry's rules version is not one from 1 to {rules_version}")
    # Re-deciding under the current rules gave the entry's events: they are current ones.
    out: dict[str, Any] = {"rules_version": rules_version}
    if "time" in entry:
        out["time"] = _time(entry["time"], version, bad)
    return out


def same_flags(entry: dict, expected: dict, version: int, bad: Bad) -> None:
    """The entry's ``drew`` and ``reveal`` are what re-deciding it gives."""
    for flag in ("drew", "reveal"):
        if entry.get(flag, expected[flag]) is not expected[flag]:
            bad(version, f"its {flag!r} is not what the move gives")


def no_events(entry: dict, version: int, bad: Bad) -> None:
    """An undo or lifecycle entry changes the game by no events of its own: the server writes
    ``events: []``, ``drew: false`` and ``reveal: false`` in it, and an import takes nothing else."""
    events = entry.get("events", [])
    if not isinstance(events, list) or events:
        bad(version, "an undo or lifecycle entry carries no game events")
    same_flags(entry, {"drew": False, "reveal": False}, version, bad)


def versions(value, version: int, bad: Bad) -> list[int]:
    """An undo's ``keeps``: a list of versions (integers, as the server writes them)."""
    if not isinstance(value, list) or not all(_integer(v) for v in value):
        bad(version, "the undo's keeps are not a list of versions")
    return value


@overload
def seat(value, num_seats: int, version: int, bad: Bad, *, optional: Literal[False] = False) -> int: ...
@overload
def seat(value, num_seats: int, version: int, bad: Bad, *, optional: bool) -> int | None: ...
def seat(value, num_seats: int, version: int, bad: Bad, *, optional: bool = False) -> int | None:
    """A seat number of the match (None where ``optional``)."""
    if value is None and optional:
        return None
    if not _integer(value) or not 0 <= value < num_seats:
        bad(version, "the entry's seat is not a seat of the match")
    return value


def step(raw: dict, redecided: dict, version: int, bad: Bad) -> dict:
    """A sealed step: its move and events as re-decided, with its time and actor checked."""
    extra = sorted(str(k)[:40] for k in raw if k not in _STEP_KEYS)
    if extra:
        bad(version, f"a sealed step carries fields the server never writes ({', '.join(extra[:5])})")
    out = dict(redecided)
    if "time" in raw:
        out["time"] = _time(raw["time"], version, bad)
    if "actor" in raw:
        out["actor"] = actor(raw["actor"], version, bad)
    return out


def actor(value, version: int, bad: Bad) -> str:
    if not isinstance(value, str) or not _ACTOR.fullmatch(value):
        bad(version, "the move's actor is not an AI the server names")
    return value


def undo_fields(entry: dict, cancelled: list[int], version: int, bad: Bad) -> dict:
    """An undo's ``undoes`` (the versions it cancels) and its undo request's id, if any."""
    if "undoes" in entry and entry["undoes"] != cancelled:
        bad(version, "the undo does not list the versions it cancels")
    out: dict = {"undoes": cancelled}
    if "request" in entry:
        if not isinstance(entry["request"], str) or not _REQUEST_ID.fullmatch(entry["request"]):
            bad(version, "the undo's request id is not one the server makes")
        out["request"] = entry["request"]
    return out


def lifecycle_fields(entry: dict, levels: Collection[str], version: int, bad: Bad) -> dict:
    """What a lifecycle entry records besides its action, seat and outcome (which
    :func:`gameroom.application.logcheck.verified_log` computes from the game): a leave's AI level and
    revoked token digests, a timeout's policy, a rematch's next match."""
    action = entry.get("action")
    out: dict[str, Any] = {}
    if action == lifecycle.LEAVE:
        out["level"] = _level(entry.get("level"), levels, version, bad)
        revoked = entry.get("revoked", [])
        if not (
            isinstance(revoked, list)
            and len(revoked) <= 16
            and all(isinstance(d, str) and _DIGEST.fullmatch(d) for d in revoked)
        ):
            bad(version, "the leave's revoked tokens are not digests the server writes")
        out["revoked"] = revoked
    elif action == lifecycle.TIMEOUT:
        policy = _policy(entry.get("policy"), levels, version, bad)
        out["policy"] = policy
    elif action == lifecycle.REMATCH:
        if not isinstance(entry.get("next"), str) or not _MATCH_ID.fullmatch(entry["next"]):
            bad(version, "the rematch does not name a match id")
        out["next"] = entry["next"]
    return out


def setup_fields(entry: dict, levels: Collection[str], bad: Bad) -> dict:
    """A setup entry's clock settings (``lifecycle``) and whether its clocks ``started``."""
    out: dict = {}
    settings = entry.get("lifecycle")
    if settings is not None:
        if (
            not isinstance(settings, dict)
            or not settings.get("clock")
            or set(settings) - {"clock", "timeout"}
        ):
            bad(1, "the setup's clock settings are not a clock and a timeout policy")
        try:
            clock = ClockControlSchema().load(settings["clock"])
        except (ValidationError, TypeError):
            bad(1, "the setup's clock is not a clock the server accepts")
        timeout = settings.get("timeout")
        if timeout is not None:
            timeout = _policy(timeout, levels, 1, bad)
        out["lifecycle"] = {"clock": clock, "timeout": timeout}
    if "started" in entry:
        if not isinstance(entry["started"], bool):
            bad(1, "the setup's 'started' is not true or false")
        out["started"] = entry["started"]
    return out


def _policy(value, levels: Collection[str], version: int, bad: Bad) -> dict:
    try:
        policy = TimeoutPolicySchema().load(value)
    except (ValidationError, TypeError):
        bad(version, "the timeout policy is not one the server accepts")
    _level(policy["level"], levels, version, bad)
    return policy


def _level(value, levels: Collection[str], version: int, bad: Bad) -> str:
    if not isinstance(value, str) or value not in levels:
        bad(version, "the AI level is not one of the game's")
    return value


def _time(value, version: int, bad: Bad) -> float:
    if not (isinstance(value, (int, float)) and not isinstance(value, bool)) or not (
        math.isfinite(value) and 0 <= value <= MAX_TIME
    ):
        bad(version, "the entry's time is not a time in seconds")
    return value


def _integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
