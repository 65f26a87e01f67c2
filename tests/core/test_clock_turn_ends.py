"""A seat's turn ends at its own turn-ending step even when it is active again at once
(``Game.ends_turn``): the last confirm of a simultaneous turn, a solo game, "go again".

Real entries folded through the decider at chosen times (no waiting): the clocks'
arithmetic is exact.
"""

import pytest

from gameroom.core import decider, lifecycle
from gameroom.core.decider import Folded

SKIP, CONFIRM = {"type": "skip_card"}, {"type": "confirm_turn"}
T0 = 1000.0


@pytest.fixture
def lats(registry):
    return registry.get("look-at-the-stars")


def _setup(game, num_seats, options, clock, timeout=None, seed="turn-ends"):
    entry = decider.setup_entry(game, num_seats, game.load_options(options), seed)
    entry.update(version=1, time=T0, lifecycle={"clock": clock, "timeout": timeout}, started=True)
    return decider.fold(game, [entry])


def _play(game, folded, seat, move, t):
    entry = decider.decide(game, folded, seat, move, "turn-ends")
    return decider.apply_entry(game, folded, {**entry, "time": t, "version": folded.version + 1})


def _turn(game, folded, seat, t):
    """``seat`` skips the card and confirms its turn, both at ``t``."""
    return _play(game, _play(game, folded, seat, SKIP, t), seat, CONFIRM, t)


def test_the_last_seat_to_confirm_starts_its_next_turn_with_a_fresh_clock_and_its_increment(lats):
    f = _setup(lats, 2, {}, {"per_move": 30, "bank": 100, "increment": 5})
    f = _turn(lats, f, 0, T0)  # seat 0 is done at once: 100 - 0 + 5
    assert f.lifecycle["turn_start"] == [None, T0]
    f = _turn(lats, f, 1, T0 + 10)  # seat 1 takes 10 s, and its confirm starts turn 2
    assert lats.active_seats(f.state) == [0, 1] and f.state["turn"] == 2
    assert f.lifecycle["turn_start"] == [T0 + 10, T0 + 10]
    assert f.lifecycle["banks"] == [105.0, 95.0]  # seat 1: 100 - 10 + 5
    assert lifecycle.deadlines(f.lifecycle) == {0: T0 + 40, 1: T0 + 40}
    view = lifecycle.clock_view(f.lifecycle, T0 + 10)
    assert [s["remaining"] for s in view["seats"]] == [30.0, 30.0]


def test_a_solo_seat_gets_a_new_turn_and_its_increment_at_each_confirm(lats):
    f = _setup(lats, 1, {"solo_variant": True}, {"per_move": 8, "bank": 100, "increment": 10})
    f = _turn(lats, f, 0, T0 + 3)
    assert f.lifecycle["turn_start"] == [T0 + 3] and f.lifecycle["banks"] == [107.0]
    assert lifecycle.deadline(f.lifecycle, 0) == T0 + 11
    assert lifecycle.clock_view(f.lifecycle, T0 + 3)["seats"][0]["remaining"] == 8.0
    f = _turn(lats, f, 0, T0 + 5)  # 107 - 2 + 10
    assert f.lifecycle["turn_start"] == [T0 + 5] and f.lifecycle["banks"] == [115.0]
    assert lifecycle.deadline(f.lifecycle, 0) == T0 + 13


def _timeout(game, folded, seat, t):
    entry = lifecycle.timeout_entry(game, folded, seat, len(folded.lifecycle["turn_start"]))
    return decider.apply_entry(game, folded, {**entry, "time": t, "version": folded.version + 1})


def test_an_ai_turn_takeover_of_a_solo_seat_ends_with_that_turn(lats):
    f = _setup(
        lats, 1, {"solo_variant": True}, {"per_move": 8}, timeout={"action": "ai-turn", "level": "greedy"}
    )
    f = _timeout(lats, f, 0, T0 + 8)
    assert f.lifecycle["ai"][0] == {"level": "greedy", "until": "turn"}
    f = _turn(lats, f, 0, T0 + 8.5)  # the AI's turn (played for the seat): the next is its person's
    assert f.lifecycle["ai"][0] is None and f.state["turn"] == 2
    assert lifecycle.deadline(f.lifecycle, 0) == T0 + 16.5


def test_an_ai_turn_takeover_of_the_last_seat_to_confirm_ends_with_that_turn(lats):
    f = _setup(lats, 3, {}, {"per_move": 10}, timeout={"action": "ai-turn", "level": "greedy"})
    f = _turn(lats, f, 0, T0 + 1)
    f = _timeout(lats, f, 1, T0 + 10)
    f = _timeout(lats, f, 2, T0 + 10)
    f = _turn(lats, f, 1, T0 + 10.5)  # seat 1 is done, and no longer active: its turn ended
    assert f.lifecycle["ai"][1] is None and f.lifecycle["ai"][2] is not None
    f = _turn(lats, f, 2, T0 + 11)  # the last confirm: seat 2 is active again, played by its person
    assert f.lifecycle["ai"] == [None, None, None]
    assert lifecycle.deadlines(f.lifecycle) == {0: T0 + 21, 1: T0 + 21, 2: T0 + 21}


def test_steps_that_do_not_end_the_turn_keep_its_clock_running(lats):
    f = _setup(lats, 1, {"solo_variant": True}, {"per_move": 8, "bank": 100, "increment": 10})
    f = _play(lats, f, 0, SKIP, T0 + 2)
    assert f.lifecycle["turn_start"] == [T0] and f.lifecycle["banks"] == [98.0]


def test_a_replay_from_a_snapshot_gives_the_same_clocks(lats):
    f = _setup(lats, 2, {}, {"per_move": 30, "bank": 100, "increment": 5})
    mid = Folded.from_snapshot(_turn(lats, f, 0, T0).to_snapshot())
    assert _turn(lats, mid, 1, T0 + 10).lifecycle == _turn(lats, _turn(lats, f, 0, T0), 1, T0 + 10).lifecycle


# -- a game that says which events end a turn ----------------------------------------------


@pytest.fixture
def go_again(registry):
    """Nim where whoever empties a pile goes again; each take ends its turn (``ends_turn``)."""
    nim = registry.get("nim")

    class GoAgainNim(type(nim)):
        def evolve(self, state, event):
            after = super().evolve(state, event)
            if event["type"] == "took" and after["winner"] is None and not after["piles"][event["pile"]]:
                after = {**after, "turn": event["seat"]}
            return after

        def ends_turn(self, event):
            return event["type"] == "took"

    return GoAgainNim()


def test_a_game_s_own_turn_ending_events_restart_the_clock_of_a_seat_that_goes_again(go_again):
    f = _setup(go_again, 2, {"piles": [1, 3]}, {"per_move": 5, "bank": 20, "increment": 2})
    [first] = go_again.active_seats(f.state)
    f = _play(go_again, f, first, {"type": "take", "pile": 0, "count": 1}, T0 + 3)
    assert go_again.active_seats(f.state) == [first]  # it emptied a pile: its turn again
    assert f.lifecycle["turn_start"][first] == T0 + 3 and f.lifecycle["banks"][first] == 19.0
    assert lifecycle.deadline(f.lifecycle, first) == T0 + 8


def test_turn_ends_default_to_confirms(registry):
    nim = registry.get("nim")
    assert nim.ends_turn({"type": "took", "confirms": True})
    assert not nim.ends_turn({"type": "took"})
