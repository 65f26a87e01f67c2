"""Malformed and out-of-phase moves are refused with a rule code; AI hooks behave."""

import random

from gameroom.core.decider import fold
from gameroom.core.rng import rng_for
from gameroom.plugin_api import IllegalMove
from gameroom.plugins.stars_are_right import StarsAreRight
from gameroom.plugins.stars_are_right.moves import MOVE_TYPES
from gameroom.plugins.stars_are_right.scenario import position
from gameroom.plugins.stars_are_right.schemas import MOVE_FIELDS
from gameroom.testing.conformance import play_random_match

GAME = StarsAreRight()
JUNK = [
    None,
    True,
    -1,
    0,
    25,
    76,
    10_000,
    "",
    "row",
    "draw",
    1.5,
    [],
    [1],
    [0, 1],
    [[0], 1],
    {},
    {"a": 1},
    [1, 2, 3],
]


def test_fuzzed_moves_raise_only_illegal_move():
    rnd = random.Random(3)
    _folded, entries = play_random_match(GAME, 3, "fuzz", thorough=False, options=GAME.playout_options)
    # Replay the match and take states from every phase.
    samples = [fold(GAME, entries[:k]).state for k in range(1, len(entries), 23)]
    seen_phases = {s["phase"] for s in samples}
    assert {"invoke", "services", "sky", "summon", "discard"} <= seen_phases
    for state in samples:
        legal = GAME.legal_moves(state, state["active"])
        for _ in range(60):
            kind = rnd.choice(MOVE_TYPES + ("nope",))
            move = {"type": kind}
            for field in MOVE_FIELDS.get(kind, ()):
                move[field] = rnd.choice(JUNK)
            if move in legal:
                continue
            try:
                GAME.decide(state, state["active"], move, rng_for("f", 1))
            except IllegalMove as exc:
                assert exc.code and exc.code == exc.code.lower() and " " not in exc.code
            else:
                raise AssertionError(f"accepted {move} in phase {state['phase']}")


def test_X1_to_X5_setup_randomness_is_logged_as_separate_events():
    events = GAME.setup(2, GAME.load_options({}), rng_for("x", 1))
    assert [e["type"] for e in events] == [
        "match_started",
        "sky_laid",
        "deck_shuffled",
        "dealt",
        "first_player",
    ]
    assert sorted(events[1]["sky"]) == list(range(25)) and len(events[1]["faces"]) == 25
    assert sorted(events[2]["order"]) == list(range(1, 76))
    assert GAME.redact(events[2], 0) == {"type": "deck_shuffled", "count": 75}


def test_evaluate_prefers_the_vp_lead():
    ahead = position(2, tables=[[4, 13], [34]])
    assert GAME.evaluate(ahead, 0) > GAME.evaluate(ahead, 1)
    won = dict(ahead, winners=[0], phase="over")
    assert GAME.evaluate(won, 0) == 100.0 and GAME.evaluate(won, 1) == -100.0
