"""The conformance kit's checks over a position: sampling, leaks of hidden information through
views and choices, and independent steps. :class:`gameroom.testing.conformance.GameConformance`
runs them along its playouts; a game's own tests may call them directly.
"""

from __future__ import annotations

import random

from ..core.decider import Folded, apply_entry, decide, setup_entry
from ..core.rng import rng_for
from ..plugin_api import Game, IllegalMove, Rng
from .hidden import check_secrets_stay_hidden
from .playouts import corrupt


def check_sampling(game: Game, folded: Folded, num_seats: int, seed: str) -> None:
    """A state sampled from a seat's view shows that seat the same view."""
    for seat in range(num_seats):
        view = game.view(folded.state, seat)
        try:
            sampled = game.sample_state(view, seat, rng_for(seed, folded.version, "sample"))
        except NotImplementedError:
            return
        assert game.view(sampled, seat) == view, f"sample_state for seat {seat} changed its view"


def check_no_leaks(
    game: Game,
    num_seats: int,
    seed: str,
    max_steps: int = 400,
    options: dict | None = None,
    differential: bool = True,
) -> int:
    """Differential leak test: what a viewer gets must not depend on what it cannot see.

    At each step, for each viewer ``v`` (each seat and the spectator, except the
    actor), build a second state ``S'`` from ``v``'s view with
    ``sample_state`` (same view, different hidden cards). Then the viewer's
    legal moves must be the same in both; and when the actor's move is legal in
    both and leaves ``v``'s view the same in both (it revealed nothing to
    ``v``), its events redacted for ``v`` must be the same too: a draw shows
    the same "someone drew 2 cards" whatever the cards are. On every step, for every
    viewer, :func:`check_secrets_stay_hidden` also runs. ``differential=False``
    runs only that (for options under which a view forgets what events showed, such
    as a discard pile of which only the top stays visible). Returns the number of
    comparisons made.
    """
    rnd = random.Random(seed)
    entry = setup_entry(game, num_seats, game.load_options(options), seed)
    folded = apply_entry(game, Folded(), {**entry, "version": 1})
    compared = 0
    for _ in range(max_steps):
        state = folded.state
        active = game.active_seats(state)
        if not active:
            break
        actor = rnd.choice(active)
        move = rnd.choice(game.legal_moves(state, actor))
        rng_seed = f"{seed}:{folded.version}"
        real = game.decide(state, actor, move, _rng(rng_seed))
        names = [f"Seat {i}" for i in range(num_seats)]
        for viewer in [None, *range(num_seats)]:
            if viewer == actor:
                continue
            compared += check_secrets_stay_hidden(game, real, viewer, names)
            if not differential:
                continue
            same = _compare_with_a_sampled_state(
                game, state, active, actor, move, real, viewer, rnd, rng_seed
            )
            if same is None:
                return compared  # the game samples no states
            compared += same
        if differential:
            compared += _compare_choices(game, state, actor, move, real, rnd, rng_seed, num_seats)
        for event in real:
            state = game.evolve(state, event)
        folded = Folded(state=state, version=folded.version + 1)
    return compared


def _compare_with_a_sampled_state(
    game: Game, state, active: list, actor: int, move: dict, real: list, viewer, rnd, rng_seed: str
) -> int | None:
    """One viewer's differential check of :func:`check_no_leaks` (None: the game samples no states).

    Returns the number of comparisons made (0 or 1).
    """
    sampler_seat = viewer if viewer is not None else actor
    view = game.view(state, viewer)
    try:
        other = game.sample_state(game.view(state, sampler_seat), sampler_seat, _rng(rng_seed + f":{viewer}"))
    except NotImplementedError:
        return None
    if viewer is None:
        # A spectator knows less than any seat: a state consistent with the actor's
        # view is also consistent with the spectator's.
        if game.view(other, None) != view:
            return 0
    assert game.view(other, viewer) == view, f"sample_state changed the view of {viewer}"
    if viewer is not None:
        _check_same_choices(game, state, other, viewer, active, rnd)
    try:
        alt = game.decide(other, actor, move, _rng(rng_seed))
    except IllegalMove:
        return 0  # the actor's move depends on the actor's own hidden cards: nothing to compare
    if _views_along(game, state, real, viewer) != _views_along(game, other, alt, viewer):
        return 0  # the move showed this viewer something (a public discard, a reveal)
    mine = [game.redact(e, viewer) for e in real]
    theirs = [game.redact(e, viewer) for e in alt]
    assert mine == theirs, f"events redacted for {viewer} depend on hidden information:\n{mine}\nvs\n{theirs}"
    return 1


def _check_same_choices(game: Game, state, other, viewer: int, active: list, rnd) -> None:
    """Seat ``viewer``'s legal moves, and the refusals of corrupted ones, are the same in both states."""
    assert game.legal_moves(other, viewer) == game.legal_moves(state, viewer), (
        f"seat {viewer}'s legal moves depend on hidden information"
    )
    if viewer in active:
        for bad in corrupt(rnd.choice(game.legal_moves(state, viewer)), rnd)[:3]:
            assert _refusal(game, state, viewer, bad) == _refusal(game, other, viewer, bad), (
                f"the refusal of {bad} for seat {viewer} depends on hidden information"
            )


def _compare_choices(game, state, actor, move, real, rnd, rng_seed, num_seats) -> int:
    """The actor's private choices: two different moves that leave a viewer's view
    the same (e.g. two sealed placements) must look the same to that viewer."""
    moves = game.legal_moves(state, actor)
    other_move = rnd.choice(moves)
    if other_move == move:
        return 0
    alt = game.decide(state, actor, other_move, _rng(rng_seed))
    compared = 0
    for viewer in [None, *range(num_seats)]:
        if viewer == actor or _views_along(game, state, real, viewer) != _views_along(
            game, state, alt, viewer
        ):
            continue
        mine = [game.redact(e, viewer) for e in real]
        theirs = [game.redact(e, viewer) for e in alt]
        assert mine == theirs, (
            f"seat {actor}'s private choice shows in events redacted for {viewer}:\n{mine}\nvs\n{theirs}"
        )
        compared += 1
    return compared


def _views_along(game, state, events, viewer) -> list:
    """The viewer's view after each event: what the events showed it, even briefly."""
    views = []
    for event in events:
        state = game.evolve(state, event)
        views.append(game.view(state, viewer))
    return views


def _refusal(game, state, seat, move):
    try:
        game.decide(state, seat, move, _rng("refusal"))
    except IllegalMove as exc:
        return exc.code, exc.message
    return None


def _events_of(game: Game, state, seat: int, move: dict, seed: str):
    """``move``'s events and the state after them, or ``None`` if the step drew randomness."""
    rng = _rng(seed)
    events = game.decide(state, seat, move, rng)
    if rng.used:
        return None
    after = state
    for event in events:
        after = game.evolve(after, event)
    return events, after


def check_independent_steps(
    game: Game, num_seats: int, options: dict, seed: str, pairs: int = 40, cap: int = 20_000
) -> int:
    """Play a random match; at up to ``pairs`` states, pick two seats whose steps the game
    declares independent and a legal step of each, and check that they commute: the second
    seat's step is still legal after the first's and gives the same events (so a selective
    undo may cancel the first and keep the second), and both orders reach the same state.
    Pairs where a step draws randomness or reveals something are not compared (undo never
    crosses those). Returns the number of pairs compared."""
    rnd = random.Random(seed)
    entry = setup_entry(game, num_seats, options, seed)
    folded = apply_entry(game, Folded(), {**entry, "version": 1})
    compared = 0
    for _ in range(cap):
        state = folded.state
        active = game.active_seats(state)
        if not active:
            return compared
        free = [s for s in active if game.independent_steps(state, s)]
        if len(free) >= 2 and compared < pairs:
            s, t = rnd.sample(free, 2)
            a, b = rnd.choice(game.legal_moves(state, s)), rnd.choice(game.legal_moves(state, t))
            first_a, first_b = _events_of(game, state, s, a, seed), _events_of(game, state, t, b, seed)
            if first_a and first_b and not any(game.reveals(e) for e in first_a[0] + first_b[0]):
                try:
                    then_b = _events_of(game, first_a[1], t, b, seed)
                    then_a = _events_of(game, first_b[1], s, a, seed)
                except IllegalMove as exc:
                    raise AssertionError(
                        f"seats {s} and {t} are declared independent, but one's step {a} / {b} "
                        f"is refused after the other's ({exc.code})"
                    ) from None
                barrier = (
                    then_a is None or then_b is None or any(game.reveals(e) for e in then_a[0] + then_b[0])
                )
                if not barrier:  # (the last confirm of a turn reveals: undo never crosses it)
                    assert then_b[0] == first_b[0], (s, a, t, b, "the second step's events differ")
                    assert then_a[0] == first_a[0], (t, b, s, a, "the second step's events differ")
                    assert then_b[1] == then_a[1], (s, a, t, b, "the two orders reach different states")
                    compared += 1
        seat = rnd.choice(active)
        step = decide(game, folded, seat, rnd.choice(game.legal_moves(state, seat)), seed)
        folded = apply_entry(game, folded, {**step, "version": folded.version + 1})
    raise AssertionError(f"the match did not end within {cap} steps")


def _rng(seed: str) -> Rng:
    return Rng(seed)
