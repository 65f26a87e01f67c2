"""Tic-tac-toe's rules as scenarios (examples/tic_tac_toe), and the figures of
uniform random play that the peer benchmark checks (12.7% draws, 7.63 moves)."""

from fractions import Fraction

import pytest

from gameroom.plugin_api import IllegalMove, Rng
from gameroom.registry import build_registry

GAME = build_registry().get("tic-tac-toe")


def _start():
    state = None
    for event in GAME.setup(2, GAME.load_options({}), Rng("t")):
        state = GAME.evolve(state, event)
    return state


def _play(cells):
    """Mark ``cells`` in order with the seats to move; returns the final state."""
    state = _start()
    for cell in cells:
        (seat,) = GAME.active_seats(state)
        for event in GAME.decide(state, seat, {"type": "mark", "cell": cell}, Rng("t")):
            state = GAME.evolve(state, event)
    return state


def test_seat_0_moves_first_and_the_grid_starts_empty():
    state = _start()
    assert GAME.active_seats(state) == [0]
    assert GAME.view(state, None)["cells"] == [None] * 9
    assert GAME.legal_moves(state, 1) == []
    assert GAME.legal_moves(state, 0) == [{"type": "mark", "cell": c} for c in range(9)]


def test_seats_alternate_and_the_view_shows_who_marked_each_cell():
    state = _play([4, 0, 8])
    view = GAME.view(state, 1)
    assert view["cells"] == [1, None, None, None, 0, None, None, None, 0]
    assert GAME.active_seats(state) == [1] and view["draw"] is False


@pytest.mark.parametrize(
    "line", [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
)
def test_three_in_a_line_wins_on_each_of_the_8_lines(line):
    others = [c for c in range(9) if c not in line]
    replies = others[:2]  # seat 1's two marks, off the line: two marks never make a line
    state = _play([line[0], replies[0], line[1], replies[1], line[2]])
    assert GAME.outcome(state) == {"scores": [1, 0], "winners": [0]}
    assert GAME.active_seats(state) == [] and state["line"] == list(line)


def test_a_full_grid_without_a_line_is_a_draw():
    # X O X / X O O / O X X
    state = _play([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert state["cells"] == [0, 1, 0, 0, 1, 1, 1, 0, 0]
    assert GAME.view(state, None)["draw"] is True
    assert GAME.outcome(state) == {"scores": [0.5, 0.5], "winners": []}


@pytest.mark.parametrize(
    "move,code",
    [
        ({"type": "mark", "cell": 4}, "cell-taken"),
        ({"type": "mark", "cell": 9}, "no-such-cell"),
        ({"type": "mark", "cell": True}, "no-such-cell"),
        ({"type": "take", "cell": 1}, "unknown-move"),
    ],
)
def test_marking_an_occupied_or_missing_cell_is_illegal(move, code):
    state = _play([4])
    with pytest.raises(IllegalMove) as refused:
        GAME.decide(state, 1, move, Rng("t"))
    assert refused.value.code == code


@pytest.mark.slow  # every game of uniform random play: CPU for a minute
def test_uniform_random_play_draws_12_7_percent_in_7_63_moves_on_average():
    """Exact figures over the whole game tree, each legal move equally likely:
    the ones the peer benchmark (boardgame.io's tic-tac-toe) validates against."""

    def walk(state):
        if GAME.outcome(state) is not None:
            return Fraction(int(state["draw"])), Fraction(0)
        (seat,) = GAME.active_seats(state)
        legal = GAME.legal_moves(state, seat)
        draw = moves = Fraction(0)
        for move in legal:
            child = state
            for event in GAME.decide(state, seat, move, Rng("t")):
                child = GAME.evolve(child, event)
            d, m = walk(child)
            draw += d / len(legal)
            moves += (m + 1) / len(legal)
        return draw, moves

    draw, moves = walk(_start())
    assert round(float(draw), 3) == 0.127
    assert round(float(moves), 2) == 7.63
