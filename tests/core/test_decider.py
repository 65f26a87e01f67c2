"""The pure core: deterministic randomness, folding, deciding, undo checkpoints."""

import pytest

from gameroom.core import decider
from gameroom.core.decider import Folded
from gameroom.core.rng import rng_for
from gameroom.errors import Conflict, NotYourTurn, RuleViolation


@pytest.fixture
def nim(registry):
    return registry.get("nim")


def _start(nim, seed="s", piles=(3, 4, 5)):
    entry = decider.setup_entry(nim, 2, nim.load_options({"piles": list(piles)}), seed)
    entry["version"] = 1
    return decider.apply_entry(nim, Folded(), entry), [entry]


def test_randomness_is_derived_per_match_and_version():
    draws = lambda seed, v: [rng_for(seed, v).randrange(1000) for _ in range(5)]  # noqa: E731
    assert draws("a", 3) == draws("a", 3)
    assert draws("a", 3) != draws("a", 4)
    assert draws("a", 3) != draws("b", 3)


def test_setup_records_game_and_rules_version_and_whether_it_drew(nim):
    folded, [entry] = _start(nim)
    assert entry["game"] == "nim" and entry["rules_version"] == nim.info.rules_version
    assert entry["drew"] is True  # Nim draws the first player
    assert folded.slug == "nim" and folded.version == 1


def test_decide_refuses_the_wrong_seat_an_illegal_move_and_a_finished_match(nim):
    folded, _ = _start(nim, piles=[1])
    turn = nim.active_seats(folded.state)[0]
    with pytest.raises(NotYourTurn):
        decider.decide(nim, folded, 1 - turn, {"type": "take", "pile": 0, "count": 1}, "s")
    with pytest.raises(RuleViolation) as caught:
        decider.decide(nim, folded, turn, {"type": "take", "pile": 0, "count": 2}, "s")
    assert caught.value.rule == "too-many"
    entry = decider.decide(nim, folded, turn, {"type": "take", "pile": 0, "count": 1}, "s")
    assert entry["drew"] is False and entry["seat"] == turn
    entry["version"] = 2
    over = decider.apply_entry(nim, folded, entry)
    with pytest.raises(Conflict, match="over"):
        decider.decide(nim, over, turn, {"type": "take", "pile": 0, "count": 1}, "s")


def test_undo_returns_to_the_checkpoint_and_marks_the_cancelled_versions(nim):
    folded, entries = _start(nim)
    turn = nim.active_seats(folded.state)[0]
    states = {1: folded.state}
    for v, seat in [(2, turn), (3, 1 - turn)]:
        entry = decider.decide(nim, folded, seat, {"type": "take", "pile": 2, "count": 1}, "s")
        entry["version"] = v
        folded = decider.apply_entry(nim, folded, entry)
        states[v] = folded.state
        entries.append(entry)
    undo = {"kind": "undo", "version": 4, "target": 2, "seat": 1 - turn, "events": [], "state": states[2]}
    after = decider.apply_entry(nim, folded, undo)
    assert after.state == states[2] and after.undone == {3} and after.version == 4
    assert decider.fold(nim, entries + [undo]).state == states[2]
    # The setup drew randomness: nothing can be undone across it.
    with pytest.raises(ValueError, match="barrier"):
        decider.apply_entry(nim, folded, {**undo, "target": 0})


def test_snapshots_round_trip(nim):
    folded, _ = _start(nim)
    again = Folded.from_snapshot(folded.to_snapshot())
    assert again.state == folded.state and again.version == folded.version and again.slug == "nim"
