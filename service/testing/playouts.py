"""Random playouts for the conformance kit: a whole match, each step checked.

:func:`play_random_match` plays a game from setup to its end with random legal moves and
corrupted ones, checking every step (schemas, views, outcome, determinism, hidden values); the
other checks of :mod:`gameroom.testing.conformance` and :mod:`gameroom.testing.forks` build on it.
"""

from __future__ import annotations

import json
import random

from .. import tagged
from ..core.decider import Folded, apply_entry, decide, fold, setup_entry
from ..core.rng import rng_for
from ..errors import RuleViolation
from ..plugin_api import Game, IllegalMove, clone
from .hidden import check_secrets_stay_hidden

#: The kit's own cap on a playout whose options put no bound on a match, so that a
#: game that never ends fails instead of hanging the test run.
UNBOUNDED_PLAYOUT_CAP = 200_000


def player_counts(game: Game) -> list[int]:
    lo, hi = game.info.min_players, game.info.max_players
    counts = sorted({lo, hi, (lo + hi) // 2})
    return counts


def seats_allowed(game: Game, num_seats: int, options: dict) -> bool:
    """Whether ``check_seats`` lets ``num_seats`` play with these loaded options."""
    try:
        game.check_seats(num_seats, options)
    except IllegalMove:
        return False
    return True


def corrupt(move: dict, rnd: random.Random) -> list[dict]:
    """Moves derived from ``move`` that are very likely illegal."""
    bad = [{}, {"type": "no-such-move-type"}, {**move, "type": move.get("type", "") + "-x"}]
    for key, value in move.items():
        if key == "type":
            continue
        bad.append({k: v for k, v in move.items() if k != key})
        if isinstance(value, bool):
            bad.append({**move, key: "yes"})
        elif isinstance(value, int):
            bad.append({**move, key: rnd.choice([-7, 10_000, "3", None])})
        elif isinstance(value, str):
            bad.append({**move, key: rnd.choice(["", "definitely-not-valid", 12])})
        elif isinstance(value, list):
            bad.append({**move, key: [*value, 10_000]})
            bad.append({**move, key: "not-a-list"})
        elif isinstance(value, dict):
            bad.append({**move, key: "not-an-object"})
    return bad


_SCHEMAS: dict = {}


def _check_schema(schema_cls, data, what: str):
    schema = _SCHEMAS.get(schema_cls)
    if schema is None:
        schema = _SCHEMAS[schema_cls] = schema_cls()
    errors = schema.validate(data)
    assert not errors, f"{what} does not pass its schema: {errors}\n{json.dumps(data)[:2000]}"


def _check_variant(union: dict | None, data: dict, what: str):
    """``data`` passes the schema of its ``type`` (what the OpenAPI document promises a client)."""
    if union is None:
        return
    assert data.get("type") in union, f"{what} has a type with no schema of its own: {data.get('type')!r}"
    _check_schema(union[data["type"]], data, f"{what} ({data['type']})")


def play_random_match(
    game: Game, num_seats: int, seed: str, *, thorough: bool = True, options: dict | None = None, on_step=None
) -> tuple[Folded, list[dict]]:
    """Play one random match to its end, checking the contract on every step.

    Returns the final :class:`Folded` and the entries. ``on_step(folded)`` lets a
    game's own tests assert invariants (card conservation ...) after each step.
    """
    rnd = random.Random(seed)
    schemas = game.schemas()
    unions = tagged.variants(schemas, "move"), tagged.variants(schemas, "event")
    opts = game.load_options(options)
    game.check_seats(num_seats, opts)
    bound = game.max_steps_for(num_seats, opts)
    max_steps = UNBOUNDED_PLAYOUT_CAP if bound is None else bound
    entries = [_checked_setup(game, num_seats, opts, seed)]
    folded = apply_entry(game, Folded(), entries[0])
    steps = 0
    while True:
        state = folded.state
        if on_step:
            on_step(folded)
        active = game.active_seats(state)
        result = game.outcome(state)
        if result is not None:
            _check_outcome(result, active, num_seats)
            break
        assert active, "a match that is not over must have an active seat"
        assert steps < max_steps, f"match exceeded max_steps={max_steps} (options {opts})"
        if thorough:
            _check_views_and_idle_seats(game, schemas, state, active, num_seats)
        seat = rnd.choice(active)
        moves = game.legal_moves(state, seat)
        assert moves, f"active seat {seat} has no legal move"
        move = rnd.choice(moves)
        json.dumps(move)
        if thorough:
            _check_move_and_corruptions(game, schemas, unions[0], folded, seat, move, moves, rnd, seed)
        new = _checked_step(game, folded, seat, move, seed)
        if thorough:
            snapshot = clone(state)
            _check_step_events(game, schemas, unions[1], new["events"], seat, num_seats)
        folded = apply_entry(game, folded, new)
        if thorough:
            assert state == snapshot, "evolve mutated its input state"
        entries.append(new)
        steps += 1
    replayed = fold(game, entries)
    assert replayed.state == folded.state, "replay from scratch differs from the live state"
    assert json.loads(json.dumps(folded.state)) == folded.state, "state is not JSON round-trippable"
    return folded, entries


def _checked_setup(game: Game, num_seats: int, opts, seed: str) -> dict:
    """The setup entry (version 1), checked deterministic and JSON-encodable."""
    entry = setup_entry(game, num_seats, opts, seed)
    assert entry == setup_entry(game, num_seats, opts, seed), "setup is not deterministic for one seed"
    json.dumps(entry)
    entry["version"] = 1
    return entry


def _check_outcome(result: dict, active: list, num_seats: int) -> None:
    assert active == [], "a finished match still has active seats"
    assert len(result["scores"]) == num_seats, "outcome must score every seat"
    assert set(result["winners"]) <= set(range(num_seats))
    json.dumps(result)


def _check_views_and_idle_seats(game: Game, schemas, state, active: list, num_seats: int) -> None:
    """Every viewer's view passes its schema; a seat that is not active has no legal move."""
    for seat in [None, *range(num_seats)]:
        view = game.view(state, seat)
        json.dumps(view)
        _check_schema(schemas.view, view, f"view for seat {seat}")
    for seat in range(num_seats):
        if seat not in active:
            assert game.legal_moves(state, seat) == [], f"inactive seat {seat} has legal moves"


def _check_move_and_corruptions(
    game: Game, schemas, move_union, folded: Folded, seat: int, move: dict, moves: list, rnd, seed: str
) -> None:
    """``move`` passes its schemas; corrupted copies of it are refused; ``decide`` mutates nothing."""
    state = folded.state
    _check_schema(schemas.move, move, "legal move")
    _check_variant(move_union, move, "legal move")
    before = clone(state)
    legal = {json.dumps(m, sort_keys=True) for m in moves}
    for bad in corrupt(move, rnd)[:6]:
        if json.dumps(bad, sort_keys=True) in legal:
            continue
        try:
            game.decide(state, seat, bad, rng_for(seed, folded.version + 1))
        except IllegalMove as exc:
            assert exc.code and isinstance(exc.code, str)
        else:
            raise AssertionError(f"corrupted move accepted: {bad}")
    assert state == before, "decide mutated the state"


def _checked_step(game: Game, folded: Folded, seat: int, move: dict, seed: str) -> dict:
    """The entry of a legal ``move`` (next version), which the game must accept."""
    try:
        new = decide(game, folded, seat, move, seed)
    except RuleViolation as exc:  # pragma: no cover - a failing game
        raise AssertionError(f"legal move refused ({exc.rule}: {exc.detail}): {move}") from None
    new["version"] = folded.version + 1
    json.dumps(new)
    return new


def _check_step_events(game: Game, schemas, event_union, events: list, seat: int, num_seats: int) -> None:
    """Each event, whole and redacted for every viewer, passes its schemas; no secret reaches another viewer."""
    for event in events:
        # whole, as everyone sees it once the match is over
        _check_variant(event_union, event, "event")
        for viewer in [None, *range(num_seats)]:
            red = game.redact(event, viewer)
            json.dumps(red)
            _check_schema(schemas.event, red, f"event redacted for {viewer}")
            _check_variant(event_union, red, f"event redacted for {viewer}")
    names = [f"Seat {i}" for i in range(num_seats)]
    for viewer in [None, *range(num_seats)]:
        if viewer != seat:
            check_secrets_stay_hidden(game, events, viewer, names)
