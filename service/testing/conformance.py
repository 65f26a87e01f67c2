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

The checks live in :mod:`~gameroom.testing.playouts` (a whole random match, each step
checked), :mod:`~gameroom.testing.hidden` (the leak tracer), :mod:`~gameroom.testing.checks`
(sampling, leaks through views and choices, independent steps) and
:mod:`~gameroom.testing.forks`; this module is the test class that runs them, and re-exports them.
"""

from __future__ import annotations

import json
import os

import pytest
from marshmallow import ValidationError

from ..core.decider import Folded, fold
from ..plugin_api import Game, IllegalMove
from .checks import check_independent_steps, check_no_leaks, check_sampling
from .forks import check_fork_events
from .hidden import check_secrets_stay_hidden
from .playouts import UNBOUNDED_PLAYOUT_CAP, corrupt, play_random_match, player_counts, seats_allowed

__all__ = [
    "PLAYOUTS",
    "UNBOUNDED_PLAYOUT_CAP",
    "GameConformance",
    "check_independent_steps",
    "check_no_leaks",
    "check_sampling",
    "check_secrets_stay_hidden",
    "corrupt",
    "play_random_match",
    "player_counts",
    "seats_allowed",
]


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
