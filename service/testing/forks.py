"""The conformance kit's check of ``Game.fork_events``: a fork deals anew only what no seat sees.

A fork's history up to the fork is public (the original is over), so the game deals
anew what nobody could see there. What it deals must stay hidden from every seat and
from spectators while the fork runs, and it must change nothing any of them can see:
their views and legal moves are the position the fork asks "what if" about.
"""

from __future__ import annotations

import json
import random

from .. import tagged
from ..core.decider import fold
from ..plugin_api import Game, Rng, clone
from .hidden import check_secrets_stay_hidden
from .playouts import _check_schema, _check_variant, play_random_match

#: Steps played on after a deal, to show the fork stays playable.
PLAY_ON = 20


def check_fork_events(game: Game, num_seats: int, options: dict, seed: str, points: int = 6) -> int:
    """Play a random match; at up to ``points`` versions of it, deal as a fork would and check
    that the deal is deterministic for its ``rng``, passes the event schemas whole and redacted,
    leaves every viewer's view and every seat's legal moves as they were, and looks the same to
    every viewer whatever the ``rng`` drew (and no text names what it hides). Returns the number of deals that
    dealt something."""
    _, entries = play_random_match(game, num_seats, seed, thorough=False, options=options)
    schemas = game.schemas()
    union = tagged.variants(schemas, "event")
    viewers = [None, *range(num_seats)]
    names = [f"Seat {i}" for i in range(num_seats)]
    rnd = random.Random(seed)
    last = len(entries) - 1  # the final entry ends the match: a fork there deals nothing
    versions = sorted(rnd.sample(range(1, last + 1), min(points, last))) if last > 0 else []
    dealt = 0
    for version in versions:
        state = fold(game, entries[:version]).state
        before = clone(state)
        one = game.fork_events(state, Rng(f"{seed}:{version}:one"))
        assert state == before, "fork_events mutated the state"
        assert one == game.fork_events(state, Rng(f"{seed}:{version}:one")), (
            "fork_events is not deterministic"
        )
        other = game.fork_events(state, Rng(f"{seed}:{version}:other"))
        json.dumps(one)
        if not one:
            assert not other, "fork_events deals something or nothing whatever its rng draws"
            continue
        dealt += 1
        after = state
        for event in one:
            _check_variant(union, event, "fork event")
            after = game.evolve(after, event)
        for viewer in viewers:
            assert game.view(after, viewer) == game.view(state, viewer), (
                f"the deal changed what viewer {viewer} sees: it may deal only what no seat can see"
            )
            mine = [game.redact(e, viewer) for e in one]
            theirs = [game.redact(e, viewer) for e in other]
            for event in mine:
                _check_schema(schemas.event, event, f"fork event redacted for {viewer}")
                _check_variant(union, event, f"fork event redacted for {viewer}")
            assert mine == theirs, f"viewer {viewer} sees what the deal drew:\n{mine}\nvs\n{theirs}"
            check_secrets_stay_hidden(game, one, viewer, names)
        for seat in range(num_seats):
            assert game.legal_moves(after, seat) == game.legal_moves(state, seat), (
                f"the deal changed seat {seat}'s legal moves"
            )
        _play_on(game, after, rnd)
    return dealt


def _play_on(game: Game, state, rnd: random.Random) -> None:
    """A few random steps from the dealt state: the fork plays on."""
    for step in range(PLAY_ON):
        active = game.active_seats(state)
        if not active or game.outcome(state) is not None:
            return
        seat = rnd.choice(active)
        move = rnd.choice(game.legal_moves(state, seat))
        for event in game.decide(state, seat, move, Rng(f"play-on:{step}")):
            state = game.evolve(state, event)
