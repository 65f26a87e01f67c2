"""The conformance kit: the contract every game must honour, as a test suite.

Use it from your own package's tests::

    from gameroom.testing.conformance import GameConformance
    from my_game import MyGame

    class TestMyGame(GameConformance):
        game = MyGame()

Each test plays random matches to the end, over several seeds and every
player count the game allows, and checks on every step that:

- every move ``legal_moves`` lists is accepted by ``decide``, and a sample of
  corrupted moves is refused with ``IllegalMove``;
- ``decide`` and ``evolve`` never mutate their inputs;
- folding the log from scratch gives the incrementally built state;
- views and redacted events are JSON-serialisable and pass the game's schemas;
- a value one event's redaction hides from a viewer reaches it through no other
  event of the step and no event's text (``check_secrets_stay_hidden``);
- seats that are not active have no legal moves;
- the match ends within ``max_steps_for`` its options, with a well-formed outcome;
- setup is deterministic for a given seed;
- for games that implement ``sample_state``: a state sampled from a seat's
  view shows that seat exactly the same view (so views and sampling agree on
  what is hidden);
- for games that declare ``independent_steps`` (selective undo): two seats'
  steps made where both are declared independent commute -- each stays legal
  and gives the same events whether or not the other was made first, and both
  orders reach the same state (``check_independent_steps``);
- a fork's deal (``fork_events``, :mod:`gameroom.testing.forks`) is deterministic
  for its ``rng``, changes no viewer's view nor any seat's legal moves, and looks
  the same to every viewer whatever it drew.

``PLAYOUTS`` (or the environment variable ``GAMEROOM_PLAYOUTS``) sets how
many matches each player count gets. Playouts use the game's
``playout_options`` (its defaults unless it names options that bound a
match); player counts that ``check_seats`` refuses under them are skipped.

Over 400 lines because it is one test class a game author subclasses: each check above is
one of its methods, and they share the playouts.
"""

from __future__ import annotations

import json
import os
import random

import pytest
from marshmallow import ValidationError

from .. import tagged
from ..core.decider import Folded, apply_entry, decide, fold, setup_entry
from ..core.rng import rng_for
from ..errors import RuleViolation
from ..plugin_api import Game, IllegalMove, Rng, clone

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


def _leaves(data, key="", in_list=False):
    """``(key, value, in_list)`` for every scalar in ``data``; list items take their list's key."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, k)
    elif isinstance(data, list):
        for v in data:
            yield from _leaves(v, key, True)
    elif data is not None and not isinstance(data, bool):
        yield key, data, in_list


def _kind(key: str) -> str:
    """``cards`` and ``card`` name the same kind of thing."""
    return key[:-1] if key.endswith("s") else key


def secrets_of(raw: dict, redacted: dict) -> dict:
    """What redaction hid from a viewer: ``(kind, value)`` of ``raw`` that ``redacted`` lacks,
    each mapped to whether it was hidden inside a list (an order, a set of cards)."""
    shown = {(_kind(k), v) for k, v, _ in _leaves(redacted)}
    return {
        (_kind(k), v): in_list for k, v, in_list in _leaves(raw) if (_kind(k), v) not in shown and k != "type"
    }


def check_secrets_stay_hidden(game: Game, events: list[dict], viewer, names: list[str]) -> int:
    """A secret that one event's redaction hides from ``viewer`` must not reach it through
    another event of the same step, nor through any event's text.

    Example: ``info_taken`` hides the card a seat took from a hidden pile while
    ``ability_used`` in the same step still names it. Values are matched by field
    name (``card`` / ``cards``). A value hidden in one list and shown in another
    (a shuffled deck's order and the cards a seat drew from it) is not a leak;
    a single hidden value shown anywhere else, or any value shown alone, is; but a
    later event of the step that ``reveals`` (all seats have played: show the
    sealed cards) may show what an earlier one hid. Text is
    searched for single hidden strings of two characters or more. Returns the number of
    secrets checked.
    """
    redacted = [game.redact(e, viewer) for e in events]
    checked = 0
    texts = None
    for i, (raw, red) in enumerate(zip(events, redacted)):
        hidden = secrets_of(raw, red)
        if not hidden:
            continue
        checked += len(hidden)
        for j, other in enumerate(redacted):
            if j == i or (j > i and game.reveals(events[j])):
                continue  # a later reveal may make public what this event kept secret
            carried = sorted(
                (kind, value)
                for key, value, in_list in _leaves(other)
                if (kind := _kind(key), value) in hidden and not (in_list and hidden[(kind, value)])
            )
            assert not carried, (
                f"{other['type']} shows viewer {viewer} {carried}, which {raw['type']} hides from it:\n"
                f"{other}"
            )
        if texts is None:
            texts = [game.describe(e, viewer, names) for e in redacted]
        for (kind, value), in_list in hidden.items():
            if isinstance(value, str) and len(value) >= 2 and not in_list:
                for j, text in enumerate(texts):
                    if j > i and game.reveals(events[j]):
                        continue
                    assert value not in text, (
                        f"the text {text!r} shows viewer {viewer} the {kind} {value!r} that "
                        f"{raw['type']} hides from it"
                    )
    return checked


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


PLAYOUTS = int(os.environ.get("GAMEROOM_PLAYOUTS", "4"))


class GameConformance:
    """Subclass with ``game = YourGame()`` to run the kit on your game."""

    game: Game
    playouts: int = PLAYOUTS

    @pytest.fixture
    def subject(self):
        return self.game

    def test_info_is_sound(self, subject):
        info = subject.info
        assert info.slug and info.slug == info.slug.lower() and " " not in info.slug
        assert 1 <= info.min_players <= info.max_players
        schemas = subject.schemas()
        for schema in (schemas.options, schemas.move, schemas.view, schemas.event):
            schema()  # instantiable
        json.dumps(subject.load_options({}))

    def test_random_playouts(self, subject):
        options = subject.playout_options
        played = 0
        for n in player_counts(subject):
            if not seats_allowed(subject, n, subject.load_options(options)):
                continue
            for i in range(self.playouts):
                seed = f"conformance-{subject.info.slug}-{n}-{i}"
                folded, entries = play_random_match(subject, n, seed, thorough=True, options=options)
                check_sampling(subject, folded, n, seed)
                played += 1
        assert played, "check_seats refuses every player count under the playout options"

    def test_independent_steps_commute(self, subject):
        """Selective undo keeps other seats' steps: check the game's declaration holds."""
        options = subject.load_options(subject.playout_options)
        declares = subject.overrides("independent_steps")
        compared = 0
        for n in player_counts(subject):
            if n < 2 or not seats_allowed(subject, n, options):
                continue
            for i in range(self.playouts if declares else 1):
                seed = f"independent-{subject.info.slug}-{n}-{i}"
                compared += check_independent_steps(subject, n, options, seed)
        # a game that declares independence has states where it holds; one that does not, none
        assert (compared > 0) == declares, compared

    def test_fork_events_deal_only_what_no_seat_sees(self, subject):
        from .forks import check_fork_events  # (it builds on this module)

        options = subject.load_options(subject.playout_options)
        declares = subject.overrides("fork_events")
        dealt = 0
        for n in player_counts(subject):
            if seats_allowed(subject, n, options):
                dealt += check_fork_events(subject, n, options, f"fork-{subject.info.slug}-{n}")
        # a game that deals at a fork deals somewhere in a match; one that does not, nowhere
        assert (dealt > 0) == declares, dealt

    def test_seat_counts_outside_the_info_are_refused(self, subject):
        info, opts = subject.info, subject.load_options(subject.playout_options)
        for n in (0, info.min_players - 1, info.max_players + 1):
            if n < info.min_players or n > info.max_players:
                with pytest.raises(IllegalMove):
                    subject.check_seats(n, opts)

    def test_mid_game_sampling_and_replay(self, subject):
        """Half-way through a match, replay (a fold of the log's prefix from scratch) gives the
        live state the play loop has been carrying, step by step; sampling holds there too."""
        n = subject.info.max_players
        seed = f"midgame-{subject.info.slug}"
        live: dict[int, Folded] = {}

        def remember(folded: Folded) -> None:
            live[folded.version] = folded

        _, entries = play_random_match(
            subject, n, seed, thorough=False, options=subject.playout_options, on_step=remember
        )
        half = entries[: max(1, len(entries) // 2)]
        carried = live[len(half)]
        replayed = fold(subject, half)
        assert replayed.version == carried.version == half[-1]["version"]
        assert replayed.state == carried.state, "replay of the first half differs from the live state"
        assert replayed.checkpoints == carried.checkpoints and replayed.lifecycle == carried.lifecycle
        check_sampling(subject, replayed, n, seed)

    def test_hidden_information_does_not_leak(self, subject):
        if not subject.info.hidden_information:
            return
        compared = 0
        for n in player_counts(subject):
            if seats_allowed(subject, n, subject.load_options(subject.playout_options)):
                compared += check_no_leaks(
                    subject, n, f"leaks-{subject.info.slug}-{n}", options=subject.playout_options
                )
        compared += self._check_hidden_information_options(subject)
        assert compared > 0 or not subject.overrides("sample_state")

    def _check_hidden_information_options(self, subject) -> int:
        """Whole matches under each of ``hidden_information_options``, secret tracer only:
        under such options a view may forget what an event showed (TSE's exchanged cards
        under a hidden discard pile), which the differential comparison cannot allow for."""
        compared = 0
        for k, variant in enumerate(subject.hidden_information_options):
            options = subject.load_options({**subject.playout_options, **variant})
            for n in player_counts(subject):
                if not seats_allowed(subject, n, options):
                    continue
                bound = subject.max_steps_for(n, options)
                for i in range(self.playouts):
                    compared += check_no_leaks(
                        subject,
                        n,
                        f"hidden-{subject.info.slug}-{k}-{n}-{i}",
                        options=options,
                        max_steps=UNBOUNDED_PLAYOUT_CAP if bound is None else bound,
                        differential=False,
                    )
        return compared

    def test_unknown_options_are_refused(self, subject):
        with pytest.raises(ValidationError):
            subject.load_options({"surely_not_an_option_name": 1})
