"""LATS-H2: until the turn ends, other seats learn nothing of a seat's steps but that
it acted -- not what it drew, nor whether a Power Bonus fired, nor how many steps
it took -- in views, redacted events, their text and their own legal moves.

On the served stack the steps do not even reach the match's log before the
seat confirms (``sealed_steps``): tests/serving/test_hidden_sealed_steps.py.
"""

from gameroom.plugins.look_at_the_stars.scenario import GAME, canon, new_state, step, with_lines

NAMES = ["Ana", "Bo"]


def opening():
    """Two seats; seat 0 has lines that make card 3 at (4, 1) fire the Line power twice
    (worked example 10)."""
    state = new_state(2, sheets=[0, 1], card=3, power_bonus_card="line")
    return with_lines(state, 0, "4,1-5,2", "2,6-3,7", "4,8-5,9")


def short_turn():
    """Seat 0 skips the card: one sealed step."""
    state, events = step(opening(), 0, {"type": "skip_card"})
    return state, [events]


def long_turn():
    """Seat 0 draws the card and uses the Line power twice: three sealed steps."""
    state, steps = opening(), []
    for move in (
        {"type": "place_card", "rotation": 0, "dx": 4, "dy": 1},
        {"type": "use_power", "line": canon("3,7-4,8")},
        {"type": "use_power", "line": canon("7,4-8,5")},
    ):
        state, events = step(state, 0, move)
        steps.append(events)
    return state, steps


def test_H2_others_views_do_not_depend_on_how_many_steps_a_seat_took():
    (short, _), (long, steps) = short_turn(), long_turn()
    assert len(steps) == 3 and short["players"][0]["log"] != long["players"][0]["log"]
    for viewer in (1, None):
        assert GAME.view(short, viewer) == GAME.view(long, viewer)
    assert GAME.view(short, 0) != GAME.view(long, 0)  # the seat itself sees its own sheet


def test_H2_others_legal_moves_do_not_depend_on_a_seats_sealed_steps():
    (short, _), (long, _) = short_turn(), long_turn()
    assert GAME.legal_moves(short, 1) == GAME.legal_moves(long, 1) != []


def test_H2_every_sealed_step_looks_the_same_to_others_in_events_and_text():
    _, short_steps = short_turn()
    _, long_steps = long_turn()
    for viewer in (1, None):
        seen = {repr([GAME.redact(e, viewer) for e in events]) for events in short_steps + long_steps}
        assert seen == {repr([{"type": "step_taken", "seat": 0}])}
        texts = {
            tuple(GAME.describe(GAME.redact(e, viewer), viewer, NAMES) for e in events)
            for events in short_steps + long_steps
        }
        assert texts == {("Ana is drawing.",)}


def test_H2_confirming_shows_others_no_count_of_the_steps_before_the_reveal():
    (short, _), (long, _) = short_turn(), long_turn()
    short, short_events = step(short, 0, {"type": "confirm_turn"})
    long, long_events = step(long, 0, {"type": "confirm_turn"})
    for viewer in (1, None):
        assert [GAME.redact(e, viewer) for e in short_events] == [GAME.redact(e, viewer) for e in long_events]
        assert GAME.view(short, viewer) == GAME.view(long, viewer)


def test_H2_the_reveal_makes_the_whole_turn_public_at_once():
    long, _ = long_turn()
    long, _ = step(long, 0, {"type": "confirm_turn"})
    long, events = step(long, 1, {"type": "skip_card"})
    long, events = step(long, 1, {"type": "confirm_turn"})
    revealed = [e for e in events if e["type"] == "turn_revealed"][0]
    assert GAME.redact(revealed, 1) == revealed
    assert [e["type"] for e in revealed["drawings"][0]] == ["card_placed", "power_used", "power_used"]
    theirs, own = GAME.view(long, 1)["sheets"][0], GAME.view(long, 0)["sheets"][0]
    assert theirs["lines"] == own["lines"] and canon("7,4-8,5") in theirs["lines"]
