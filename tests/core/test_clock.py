"""Clocks and timeout policies: pure arithmetic over entry times (an injected clock, no waiting).

The overlay is folded with explicit active seats, as ``decider.apply_entry``
does with the game's ``active_seats`` after each entry; the last tests fold
real Nim entries through the decider.
"""

import pytest

from gameroom.core import decider, lifecycle
from gameroom.core.decider import Folded

FISCHER = {"clock": {"bank": 10.0, "increment": 2.0, "per_move": None}, "timeout": None}
PER_MOVE = {
    "clock": {"per_move": 5.0, "bank": None, "increment": 0},
    "timeout": {"action": "forfeit", "level": "random"},
}


def _start(settings, t=100.0, active=(0,), n=2, started=True):
    overlay = lifecycle.initial(settings, n, t, started)
    return lifecycle.evolve(overlay, {"kind": "setup", "time": t}, n, list(active), False)


def _step(overlay, t, active, kind="move", n=2, over=False, **fields):
    return lifecycle.evolve(overlay, {"kind": kind, "time": t, **fields}, n, list(active), over)


def test_fischer_bank_is_charged_for_the_turn_and_gets_the_increment_when_it_ends():
    o = _start(FISCHER)
    assert o["turn_start"] == [100.0, None]
    assert lifecycle.deadline(o, 0) == 110.0 and lifecycle.deadline(o, 1) is None
    o = _step(o, 103.0, [1])  # seat 0 used 3 s: 10 - 3 + 2
    assert o["banks"] == [9.0, 10.0]
    assert lifecycle.deadline(o, 1) == 113.0 and lifecycle.deadline(o, 0) is None
    o = _step(o, 110.5, [0])  # seat 1 used 7.5 s: 10 - 7.5 + 2
    assert o["banks"] == [9.0, 4.5]
    assert lifecycle.deadline(o, 0) == 119.5


def test_a_turn_of_several_steps_is_one_turn_of_the_clock():
    o = _start(FISCHER)
    o = _step(o, 101.0, [0])  # a first atomic step: still seat 0's turn
    o = _step(o, 102.0, [0])
    assert o["banks"] == [8.0, 10.0] and o["turn_start"][0] == 100.0
    o = _step(o, 104.0, [1])  # the turn ends: one increment, for 4 s of thinking
    assert o["banks"] == [8.0, 10.0]


def test_a_bank_never_goes_below_zero_and_then_holds_only_the_increment():
    o = _start(FISCHER)
    o = _step(o, 130.0, [1])  # 30 s on a 10 s bank
    assert o["banks"][0] == 2.0


def test_per_move_limit_counts_from_the_start_of_the_turn():
    o = _start(PER_MOVE)
    o = _step(o, 101.0, [0])
    assert lifecycle.deadline(o, 0) == 105.0
    o = _step(o, 104.0, [1])
    assert lifecycle.deadline(o, 1) == 109.0 and o["banks"] is None


def test_with_both_limits_the_earlier_deadline_counts():
    o = _start({"clock": {"per_move": 5.0, "bank": 3.0, "increment": 1.0}})
    assert lifecycle.deadline(o, 0) == 103.0
    o = _step(o, 102.0, [1])
    o = _step(o, 103.0, [0])  # seat 0's bank: 3 - 2 + 1 = 2
    assert lifecycle.deadline(o, 0) == 105.0


def test_simultaneous_phases_run_every_active_seats_clock():
    o = _start(FISCHER, active=(0, 1))
    o = _step(o, 104.0, [1])  # seat 0 is done: 10 - 4 + 2; seat 1 still thinking
    assert o["banks"] == [8.0, 6.0]
    assert lifecycle.deadline(o, 1) == 110.0


def test_clocks_wait_for_the_start_entry_when_seats_are_open():
    o = _start(FISCHER, started=False)
    assert o["turn_start"] == [None, None] and lifecycle.deadlines(o) == {}
    o = _step(o, 200.0, [0], kind="lifecycle", action="start", seat=None)
    assert o["turn_start"] == [200.0, None] and lifecycle.deadline(o, 0) == 210.0


def test_clocks_stop_when_the_match_is_over():
    o = _start(FISCHER)
    o = _step(o, 101.0, [], over=True)
    assert lifecycle.deadlines(o) == {}
    assert lifecycle.clock_view(o, 500.0)["running"] == []


def test_clock_view_shows_time_left_now_or_as_of_the_entry():
    o = _start(FISCHER)
    now = lifecycle.clock_view(o, 104.0)
    assert now["running"] == [0]
    assert now["seats"][0]["remaining"] == 6.0 and now["seats"][1]["remaining"] == 10.0
    assert lifecycle.clock_view(o, None)["seats"][0]["remaining"] == 10.0
    assert lifecycle.clock_view(o, 999.0)["seats"][0]["remaining"] == 0.0


# -- timeout policies ---------------------------------------------------------------------


def test_policy_ai_turn_takes_the_seat_for_the_rest_of_its_turn_only():
    o = _start({**FISCHER, "timeout": {"action": "ai-turn", "level": "greedy"}})
    timeout = lifecycle.entry(lifecycle.TIMEOUT, 0, policy={"action": "ai-turn", "level": "greedy"})
    o = _step(o, 110.0, [0], **timeout)
    assert o["ai"][0] == {"level": "greedy", "until": "turn"} and o["timeouts"] == 1
    o = _step(o, 111.0, [1])  # the AI ended the turn: the seat is its person's again
    assert o["ai"][0] is None and o["banks"][0] == 2.0


def test_policy_ai_match_keeps_the_ai_for_the_rest_of_the_match():
    o = _start(FISCHER)
    timeout = lifecycle.entry(lifecycle.TIMEOUT, 0, policy={"action": "ai-match", "level": "random"})
    o = _step(o, 110.0, [0], **timeout)
    o = _step(o, 111.0, [1])
    assert o["ai"][0] == {"level": "random", "until": "match"}


class _NoForfeitRule:
    def outcome(self, state):
        return None


class _OwnForfeitRule:
    def forfeit_outcome(self, state, losers, num_seats):
        return {"scores": [5.0] * num_seats, "winners": []}


def test_forfeit_by_default_the_others_win():
    assert lifecycle.forfeit_outcome(_NoForfeitRule(), None, [1], 3) == {
        "scores": [1.0, 0.0, 1.0],
        "winners": [0, 2],
    }


def test_forfeit_a_game_may_say_what_it_means():
    assert lifecycle.forfeit_outcome(_OwnForfeitRule(), None, [1], 2) == {"scores": [5.0, 5.0], "winners": []}


def test_policy_forfeit_ends_the_match_with_its_outcome():
    o = _start(PER_MOVE)
    folded = Folded(state=None, version=1, lifecycle=o)
    entry = lifecycle.timeout_entry(_NoForfeitRule(), folded, 0, 2)
    assert entry["policy"]["action"] == "forfeit" and entry["outcome"]["winners"] == [1]
    o = _step(o, 105.0, [0], **entry)
    assert o["ended"]["reason"] == "forfeit" and lifecycle.deadlines(o) == {}


def test_the_default_policy_is_an_ai_turn_at_the_random_level():
    o = _start({"clock": FISCHER["clock"]})
    assert o["policy"] == {"action": "ai-turn", "level": "random"}


# -- through the decider: replay and time travel ---------------------------------------------


@pytest.fixture
def nim(registry):
    return registry.get("nim")


def _entries(nim, times):
    """Nim entries: setup at times[0], then one move per later time (whoever is active)."""
    options = nim.load_options({"piles": [5, 5, 5]})
    setup = decider.setup_entry(nim, 2, options, "clock-seed")
    setup.update(time=times[0], lifecycle=FISCHER, started=True)
    entries = [setup | {"version": 1}]
    folded = decider.fold(nim, entries)
    for t in times[1:]:
        seat = nim.active_seats(folded.state)[0]
        entry = decider.decide(nim, folded, seat, nim.legal_moves(folded.state, seat)[0], "clock-seed")
        entry.update(time=t, version=folded.version + 1)
        entries.append(entry)
        folded = decider.apply_entry(nim, folded, entry)
    return entries, folded


def test_replay_reproduces_every_clock_exactly(nim):
    times = [1000.0, 1003.25, 1004.0, 1011.5, 1012.0]
    entries, live = _entries(nim, times)
    replayed = decider.fold(nim, entries)
    assert replayed.lifecycle == live.lifecycle
    # from a snapshot in the middle, too
    mid = Folded.from_snapshot(decider.fold(nim, entries[:3]).to_snapshot())
    assert decider.fold(nim, entries[3:], mid).lifecycle == live.lifecycle
    first = nim.active_seats(decider.fold(nim, entries[:1]).state)[0]
    used = {first: (3.25 + 7.5), 1 - first: (0.75 + 0.5)}
    assert live.lifecycle["banks"] == [10.0 - used[s] + 4.0 for s in (0, 1)]


def test_time_travel_shows_the_clocks_as_they_were(nim):
    entries, _live = _entries(nim, [1000.0, 1003.0, 1009.0])
    at_two = decider.fold(nim, entries[:2])
    view = lifecycle.clock_view(at_two.lifecycle, None)
    assert view["at"] == 1003.0
    mover = entries[1]["seat"]
    assert view["seats"][mover]["remaining"] == 9.0 and view["running"] == [1 - mover]


def test_folding_never_changes_the_overlay_it_starts_from():
    import copy

    o = _start({**FISCHER, "timeout": {"action": "ai-turn", "level": "greedy"}})
    before = copy.deepcopy(o)
    _step(o, 103.0, [1])
    _step(
        o,
        110.0,
        [0],
        **lifecycle.entry(lifecycle.TIMEOUT, 0, policy={"action": "ai-turn", "level": "greedy"}),
    )
    _step(o, 104.0, [0], **lifecycle.entry(lifecycle.LEAVE, 1, level="random", revoked=["x"]))
    assert o == before
