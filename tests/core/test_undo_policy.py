"""The undo policy, on the pure core, with a game that rolls dice mid-game."""

import pytest

from gameroom.core import decider
from gameroom.core.decider import MAX_UNDO_DEPTH, Folded
from gameroom.core.undo import APPLY, REQUEST, UndoRefused, plan_undo, undo_entry
from gameroom.errors import Conflict
from gameroom.testing.dice import DiceRace

GAME = DiceRace()


class Match:
    def __init__(self, players=2, **options):
        entry = decider.setup_entry(GAME, players, GAME.load_options(options), "seed")
        self.entries = [{**entry, "version": 1}]
        self.folded = decider.apply_entry(GAME, Folded(), self.entries[0])
        self.states = {1: self.folded.state}

    def play(self, kind):
        seat = GAME.active_seats(self.folded.state)[0]
        entry = decider.decide(GAME, self.folded, seat, {"type": kind}, "seed")
        self._add(entry)
        return seat

    def undo(self, seat, steps=1):
        plan = plan_undo(self.folded, seat, steps)
        self._add(undo_entry(seat, plan, self.states[plan.target]))
        return plan

    def _add(self, entry):
        entry = {**entry, "version": self.folded.version + 1}
        self.entries.append(entry)
        self.folded = decider.apply_entry(GAME, self.folded, entry)
        self.states[self.folded.version] = self.folded.state


def test_self_undo_of_the_last_step_applies_at_once():
    m = Match()
    seat = m.play("step")
    plan = plan_undo(m.folded, seat)
    assert (plan.kind, plan.target, plan.undoes, plan.others) == (APPLY, 1, (2,), ())


def test_undo_across_another_seats_step_needs_a_request():
    m = Match()
    a = m.play("step")
    b = m.play("step")
    plan = plan_undo(m.folded, a)
    assert (plan.kind, plan.target, plan.undoes, plan.others) == (REQUEST, 1, (2, 3), (b,))


def test_nothing_is_undone_across_a_roll():
    m = Match()
    a = m.play("roll")
    with pytest.raises(UndoRefused):
        plan_undo(m.folded, a)
    m.play("step")  # b
    m.play("step")  # a again: undoable, it is after the roll
    assert plan_undo(m.folded, a).target == 3
    with pytest.raises(UndoRefused):
        plan_undo(m.folded, a, steps=2)  # the second-last of a's steps is the roll


def test_a_seat_that_never_moved_has_nothing_to_undo():
    m = Match()
    m.play("step")
    with pytest.raises(Conflict) as caught:
        plan_undo(m.folded, 1)
    assert caught.value.code == "nothing-to-undo"


def test_more_steps_than_the_seat_made_since_the_start_are_refused_as_not_there():
    """Nothing but the match's start is in the way: no draw, no reveal to speak of."""
    m = Match()
    a = m.play("step")
    m.play("step")
    m.play("step")  # a again
    for steps in (3, 5):
        with pytest.raises(Conflict) as caught:
            plan_undo(m.folded, a, steps=steps)
        assert (caught.value.code, caught.value.detail) == (
            "bad-undo-steps",
            "You have only 2 steps to undo.",
        )
    assert plan_undo(m.folded, a, steps=2).target == 1


def test_a_seat_whose_every_step_was_undone_has_nothing_to_undo():
    m = Match()
    a = m.play("step")
    m.undo(a)
    with pytest.raises(Conflict) as caught:
        plan_undo(m.folded, a)
    assert caught.value.code == "nothing-to-undo"


def test_more_steps_than_undo_reaches_back_are_refused_naming_the_limit():
    m = Match(players=4, goal=100)
    for _ in range(MAX_UNDO_DEPTH + 10):
        m.play("step")
    have = sum(1 for p in m.folded.checkpoints[1:] if p[1] == 0)
    with pytest.raises(Conflict) as caught:
        plan_undo(m.folded, 0, steps=have + 1)
    assert caught.value.code == "bad-undo-steps"
    assert caught.value.detail == (
        f"Only {have} of your last steps can be undone: the one before is more than {MAX_UNDO_DEPTH} "
        "steps back, farther than undo reaches."
    )


def test_after_undo_replay_equals_the_state_at_the_target_and_history_marks_undone():
    m = Match()
    m.play("step")
    m.play("step")
    a = m.play("step")
    target_state = m.states[3]
    plan = m.undo(a)
    assert plan.target == 3
    assert m.folded.state == target_state
    assert m.folded.undone == {4}
    assert decider.fold(GAME, m.entries).state == target_state
    # The undone step is a's to play again; and b may now undo its own, now last, step.
    assert GAME.active_seats(m.folded.state) == [a]
    plan = plan_undo(m.folded, 1 - a)
    assert plan.target == 2 and plan.kind == APPLY


@pytest.mark.parametrize("seed", range(40))
def test_property_random_undos_fold_to_the_live_state_at_every_version(seed):
    import random

    rnd = random.Random(seed)
    m = Match(players=rnd.choice([2, 3]))
    live = {1: m.folded.state}
    while GAME.outcome(m.folded.state) is None and m.folded.version < 200:
        if rnd.random() < 0.3:
            seat = rnd.randrange(len(m.folded.state["positions"]))
            try:
                m.undo(seat, rnd.choice([1, 1, 2]))
            except Conflict:
                pass
            else:
                target_version = m.entries[-1]["target"]
                assert m.folded.state == live[target_version]
        else:
            m.play(rnd.choice(["step", "step", "roll"]))
        live[m.folded.version] = m.folded.state
    for version in range(1, m.folded.version + 1):
        assert decider.fold(GAME, m.entries[:version]).state == live[version]


def test_undo_depth_is_bounded():
    from gameroom.core.decider import MAX_UNDO_DEPTH
    from gameroom.testing.dice import DiceRace

    game = DiceRace()
    entry = decider.setup_entry(
        game, 3, game.load_options({"goal": 100}), "seed"
    )  # 298 steps before anyone wins
    folded = decider.apply_entry(game, Folded(), {**entry, "version": 1})
    for v in range(2, 2 + MAX_UNDO_DEPTH + 50):
        seat = game.active_seats(folded.state)[0]
        step = decider.decide(game, folded, seat, {"type": "step"}, "seed")
        folded = decider.apply_entry(game, folded, {**step, "version": v})
        if game.outcome(folded.state) is not None:
            break
    assert folded.version > MAX_UNDO_DEPTH + 40
    assert len(folded.checkpoints) == MAX_UNDO_DEPTH + 1


# -- selective undo (Game.independent_steps / Game.confirms), on the pure core ----------------------


class Sheets(DiceRace):
    """DiceRace declaring every seat's steps independent (a roll is still a barrier)."""

    def independent_steps(self, state, seat):
        return True


def _fold_steps(game, plan_seats):
    entry = decider.setup_entry(game, 2, game.load_options({}), "seed")
    folded = decider.apply_entry(game, Folded(), {**entry, "version": 1})
    for seat in plan_seats:
        step = decider.decide(game, folded, seat, {"type": "step"}, "seed")
        folded = decider.apply_entry(game, folded, {**step, "version": folded.version + 1})
    return folded


def test_selective_undo_keeps_the_other_seats_independent_steps():
    game = Sheets()
    folded = _fold_steps(game, [0, 1])
    plan = plan_undo(folded, 0)
    assert (plan.kind, plan.target, plan.undoes, plan.others, plan.keeps) == (APPLY, 1, (2,), (), (3,))
    entry = {**undo_entry(0, plan, "the state"), "version": 4}
    assert entry["keeps"] == [3]
    after = decider.apply_entry(game, folded, entry)
    assert after.undone == {2} and [c[0] for c in after.checkpoints] == [1, 3]
    # The same steps in a game that declares nothing still need consent.
    folded = _fold_steps(GAME, [0, 1])
    assert plan_undo(folded, 0).kind == REQUEST and plan_undo(folded, 0).keeps == ()


def test_default_confirms_reads_the_event_flag_and_a_confirmed_step_is_never_cancelled():
    from gameroom.core.decider import CONFIRMS
    from gameroom.core.undo import UndoConfirmed

    game = Sheets()
    assert game.confirms({"type": "x", "confirms": True}) and not game.confirms({"type": "x"})
    folded = _fold_steps(game, [0, 1])
    # Mark seat 0's step as a confirm, as folding a confirming event would.
    folded.checkpoints[1] = (2, 0, folded.checkpoints[1][2] | CONFIRMS)
    with pytest.raises(UndoConfirmed) as caught:
        plan_undo(folded, 0)
    assert caught.value.code == "undo-crosses-confirm"
    assert plan_undo(folded, 1).keeps == ()  # seat 1's own last step: no one acted since


def test_snapshots_keep_checkpoint_flags_and_old_ones_allow_no_selective_undo():
    game = Sheets()
    folded = _fold_steps(game, [0, 1])
    again = Folded.from_snapshot(folded.to_snapshot())
    assert again.checkpoints == folded.checkpoints and plan_undo(again, 0).keeps == (3,)
    old = folded.to_snapshot()
    old["checkpoints"] = [c[:2] for c in old["checkpoints"]]  # written before the flags
    assert plan_undo(Folded.from_snapshot(old), 0).kind == REQUEST


class SharedTally(DiceRace):
    """Both seats act at once and each step writes the shared tally into its event: the
    steps do not commute, so declaring them independent is a lie the kit must catch."""

    def setup(self, num_seats, options, rng):
        return [{"type": "start", "n": num_seats}]

    def evolve(self, state, event):
        if event["type"] == "start":
            return {"tally": 0, "left": [3] * event["n"]}
        left = list(state["left"])
        left[event["seat"]] -= 1
        return {"tally": event["tally"] + 1, "left": left}

    def active_seats(self, state):
        return [s for s, k in enumerate(state["left"]) if k > 0]

    def legal_moves(self, state, seat):
        return [{"type": "tick"}] if state["left"][seat] > 0 else []

    def decide(self, state, seat, move, rng):
        return [{"type": "tick", "seat": seat, "tally": state["tally"]}]

    def outcome(self, state):
        return None if any(state["left"]) else {"scores": [0] * len(state["left"]), "winners": []}

    def independent_steps(self, state, seat):
        return True


def test_the_conformance_kit_catches_a_false_independence_declaration():
    from gameroom.testing.conformance import check_independent_steps

    with pytest.raises(AssertionError, match="events differ"):
        check_independent_steps(SharedTally(), 2, {}, "lie")
    # LATS' declaration holds on its own playouts
    from gameroom.plugins.look_at_the_stars.game import LookAtTheStars

    lats = LookAtTheStars()
    assert check_independent_steps(lats, 3, lats.load_options({}), "truth") > 0
