"""Re-checking a match's log against the rules: what an import trusts, and nothing else.

:func:`verified_log` replays an exported log by re-deciding every command with the
game's rules and the match's seeds (every draw, reveal, undo, sealed step and a fork's
deal), checks the fields nothing re-decides with :mod:`gameroom.application.logform` and the order of
lifecycle entries and moves with :mod:`gameroom.application.logorder`, and returns
the log as the server would have written it. Pure: no Redis, no HTTP.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, NoReturn, cast

from .. import tagged
from ..core import decider, lifecycle
from ..core.decider import CONFIRMS, Folded
from ..core.rng import seed_at
from ..core.undo import has_base, selective_keeps, state_after
from ..errors import GameroomError
from ..plugin_api import IllegalMove
from . import logform, logorder


class TamperedLog(GameroomError):
    status, code, title = 422, "tampered-log", "The log does not follow the rules"


def _check_lifecycle(
    game,
    folded: Folded,
    entry: dict,
    num_seats: int,
    version: int,
    levels: Collection[str],
    order: tuple[Collection[int], bool],
    bad: logform.Bad,
) -> dict:
    """A lifecycle entry as the log may hold it: a known action by a seat of the match (none for
    the clocks' start, none or one for a rematch) that the match could take where it stands
    (:mod:`gameroom.application.logorder`; ``order``: the fork points and whether anything was played yet),
    with a resignation's or forfeit's outcome the one the game gives."""
    action = entry.get("action")
    if not isinstance(action, str) or action not in lifecycle.ACTIONS:
        bad(version, "an unknown lifecycle action or seat")
    optional = action in (lifecycle.START, lifecycle.REMATCH)
    seat = logform.seat(entry.get("seat"), num_seats, version, bad, optional=optional)
    logform.no_events(entry, version, bad)
    if entry.get("num_seats", num_seats) != num_seats:
        bad(version, "the entry names another number of seats")
    fields = logform.lifecycle_fields(entry, levels, version, bad)
    logorder.check_lifecycle(game, folded, action, seat, fields, version, *order, bad)
    ends = action == lifecycle.RESIGN or (
        action == lifecycle.TIMEOUT and fields["policy"]["action"] == lifecycle.FORFEIT
    )
    if ends:
        # stored as the game computes it: an outcome that only compares equal (``winners: [true]``) is not
        fields["outcome"] = lifecycle.forfeit_outcome(game, folded.state, [cast(int, seat)], num_seats)
        if entry.get("outcome") != fields["outcome"]:
            bad(version, "the outcome is not what the game says a resignation or forfeit means")
    elif "outcome" in entry:
        bad(version, "only a resignation or a forfeit carries an outcome")
    return {**lifecycle.entry(action, seat, num_seats=num_seats), **fields}


def _sealed_steps(game, folded: Folded, entry: dict, seed: str, version: int, bad: logform.Bad) -> list[dict]:
    """The sealed steps a move entry carries, each re-decided on the state the ones before made:
    steps its seat could keep in a draft (no draw, no reveal, no confirm), with the events
    they produce (and each step's time and actor, as the server writes them)."""
    sealed = entry.get("sealed") or []
    if not isinstance(sealed, list):
        bad(version, "its sealed steps are not a list")
    seen, steps = folded, []
    for step in sealed:
        if not isinstance(step, dict):
            bad(version, "a sealed step is not an object")
        decided = decider.decide(game, seen, cast(int, entry.get("seat")), cast(dict, step.get("move")), seed)
        if decided["events"] != step.get("events"):
            bad(version, "a sealed step's events are not what its move produces")
        if not decider.sealable(game, seen, cast(int, entry.get("seat")), decided):
            bad(version, "a step is sealed that the game does not keep sealed")
        steps.append(
            logform.step(step, {"move": step.get("move"), "events": decided["events"]}, version, bad)
        )
        seen = decider.with_steps(game, seen, steps[-1:])
    return steps


def verify_log(game, entries: list[dict], num_seats: int, options: dict, seed: str | list) -> Folded:
    """Replay ``entries`` by re-deciding every command; raise TamperedLog at the first that differs.

    ``seed``: the match's seed, or a fork's ``[[from_version, seed], ...]`` schedule.
    """
    return verified_log(game, entries, num_seats, options, seed)[0]


def verified_log(
    game,
    entries: list[dict],
    num_seats: int,
    options: dict,
    seed: str | list,
    levels: Collection[str] = (),
) -> tuple[Folded, list[dict]]:
    """:func:`verify_log`, and the log as the server would have written it: each entry rebuilt
    from what was re-decided, with the fields nothing re-decides checked by
    :mod:`gameroom.application.logform` (``levels``: the AI levels its lifecycle entries may name).
    This, not the entries as given, is what an import stores."""
    schedule: list[list[Any]] = [[1, seed]] if isinstance(seed, str) else seed
    bad = _tampered
    if not entries or not all(isinstance(e, dict) for e in entries):
        bad(1, "the log is not a list of entries")
    rules_version = game.info.rules_version
    folded, first = _verified_setup(game, entries, num_seats, options, schedule, levels)
    log_ = [first]
    states = {1: folded.state}
    decided: dict[int, dict] = {}  # version -> the move entry as re-decided (for undo's refold)
    allowed_keys = tagged.move_keys(game.schemas())
    fork_points = {v for start, _ in schedule[1:] for v in (start, start + 1)}
    moved = False  # whether an entry after the setup changed the game
    for i, entry in enumerate(entries[1:], start=2):
        if entry.get("version", i) != i:
            bad(i, "versions are not consecutive")
        kind = entry.get("kind")
        meta = logform.meta(entry, i, rules_version, bad)
        try:
            if kind == "move":
                move = entry.get("move")
                if isinstance(move, dict) and tagged.unknown_keys(allowed_keys, move):
                    bad(i, "the move carries fields its type does not take")
                seat = logform.seat(entry.get("seat"), num_seats, i, bad)
                if "actor" in entry:
                    meta["actor"] = logform.actor(entry["actor"], i, bad)
                logorder.check_move(folded, seat, meta.get("actor"), i, bad)
                expected = _expected_move(game, folded, entry, seed_at(schedule, i), i)
                logform.same_flags(entry, expected, i, bad)
                expected["seat"] = seat
            elif kind == "undo":
                logform.seat(entry.get("seat"), num_seats, i, bad)
                expected = _expected_undo(game, folded, entry, i, states, decided)
                meta |= logform.undo_fields(entry, _cancelled(folded, expected), i, bad)
            elif kind == "lifecycle":
                order = (fork_points, moved)
                expected = _check_lifecycle(game, folded, entry, num_seats, i, levels, order, bad)
            elif kind == decider.DEAL:
                expected = _expected_deal(game, folded, entry, schedule, i)
            else:
                bad(i, f"unknown entry kind {str(kind)[:40]!r}")
        except GameroomError as exc:
            if isinstance(exc, TamperedLog):
                raise
            bad(i, f"the move is refused ({exc.code}: {exc.detail})")
        canonical = {**expected, **meta}
        if kind in ("undo", "lifecycle"):
            canonical |= {"drew": False, "reveal": False}
        moved = moved or kind in ("move", "undo", decider.DEAL)
        folded = decider.apply_entry(game, folded, {**canonical, "version": i})
        log_.append(canonical)
        states[i] = folded.state
        if kind == "move":
            decided[i] = {**expected, "version": i}
    return folded, [{**e, "version": v} for v, e in enumerate(log_, start=1)]


def _cancelled(folded: Folded, undo: dict) -> list[int]:
    """The versions ``undo`` cancels: the steps after its target that it does not keep."""
    keeps = set(undo.get("keeps") or ())
    return [c[0] for c in folded.checkpoints if c[0] > undo["target"] and c[0] not in keeps]


def _tampered(version: int, why: str) -> NoReturn:
    raise TamperedLog(f"Version {version}: {why}", version=version)


def _verified_setup(
    game, entries: list[dict], num_seats: int, options: dict, schedule: list, levels: Collection[str]
) -> tuple[Folded, dict]:
    """The fold of the log's first entry, which must be the setup the seed and options give,
    and that entry as the server writes it."""
    bad = _tampered
    if not entries:
        bad(1, "the log is empty")
    try:
        opts = game.load_options(options)
    except Exception:
        bad(1, "the options are not valid for this game")
    try:
        game.check_seats(num_seats, opts)
    except IllegalMove as exc:
        bad(1, exc.message)
    setup = decider.setup_entry(game, num_seats, opts, seed_at(schedule, 1))
    first = entries[0]
    if first.get("kind") != "setup" or first.get("events") != setup["events"]:
        bad(1, "the setup does not follow from the seed and options")
    if first.get("version", 1) != 1:
        bad(1, "versions are not consecutive")
    for key in ("seat", "game", "num_seats", "options"):
        if key in first and first[key] != setup[key]:
            bad(1, f"the setup's {key!r} is not the match's")
    logform.same_flags(first, setup, 1, bad)
    setup |= logform.meta(first, 1, game.info.rules_version, bad) | logform.setup_fields(first, levels, bad)
    return decider.apply_entry(game, Folded(), {**setup, "version": 1}), setup


def _expected_move(game, folded: Folded, entry: dict, seed: str, version: int) -> dict:
    """A move entry as re-decided (with its sealed steps); its events must be the log's."""
    sealed = _sealed_steps(game, folded, entry, seed, version, _tampered)
    seen = decider.with_steps(game, folded, sealed)
    expected = decider.decide(game, seen, cast(int, entry.get("seat")), cast(dict, entry.get("move")), seed)
    if expected["events"] != entry.get("events"):
        _tampered(version, "its events are not what the move produces")
    if sealed:
        expected["sealed"] = sealed
    return expected


def _expected_deal(game, folded: Folded, entry: dict, schedule: list, version: int) -> dict:
    """A fork's deal as the server writes it: only where the log's seed changes (the fork's
    first own entry), with the events the game deals there from that seed.

    A fork's log without one (made before forks dealt anew) is still a log the server
    wrote; the deal is checked where there is one."""
    bad = _tampered
    if version == 1 or not any(start == version for start, _ in schedule[1:]):
        bad(version, "a deal comes only right after the history a fork copied, where its seed changes")
    logform.seat(entry.get("seat"), 0, version, bad, optional=True)
    expected = decider.deal_entry(game, folded, seed_at(schedule, version))
    if expected is None or expected["events"] != entry.get("events"):
        bad(version, "the deal is not what the game deals from the fork's seed")
    logform.same_flags(entry, expected, version, bad)
    return expected


def _expected_undo(game, folded: Folded, entry: dict, i: int, states: dict, decided: dict) -> dict:
    """An undo entry as it may be: to a state it may return to, with the state it restores.

    Who consented is not part of the log; what can be checked is that the undo
    returns to a state it may return to (never across a draw or reveal), cancels
    no confirmed step, and keeps only what a selective undo may keep.
    """
    bad = _tampered
    target, seat = entry.get("target"), cast(int, entry.get("seat"))
    logform.no_events(entry, i, bad)
    if (
        not isinstance(target, int)
        or isinstance(target, bool)
        or target not in [c[0] for c in folded.checkpoints[:-1]]
    ):
        bad(i, "the undo crosses a random draw or a reveal")
    logorder.check_undo(folded, seat, target, i, bad)
    keeps = logform.versions(entry.get("keeps", []), i, bad)
    if keeps and tuple(keeps) != selective_keeps(folded, seat, target):
        bad(i, "the undo keeps steps a selective undo may not keep")
    if any(c[2] & CONFIRMS for c in folded.checkpoints if c[0] > target and c[0] not in keeps):
        bad(i, "the undo cancels a confirmed step")
    if has_base(folded):
        base = folded.checkpoints[0][0]
        # the entries as re-decided here, not as the log spells them
        between = [decided[v] for v in range(base + 1, i) if v in decided]
        restored = state_after(game, folded, target, keeps, states[base], between)
    else:
        restored = states[target]
    if entry.get("state") != restored:
        bad(i, "the undo does not restore the state of its target version")
    return {"kind": "undo", "seat": seat, "target": target, "events": [], "state": restored} | (
        {"keeps": keeps} if keeps else {}
    )
