"""A move decided in one call (gameroom.core.moves): what the append needs, or a step for the draft."""

import pytest

from gameroom.core import decider, lifecycle
from gameroom.core.decider import Folded
from gameroom.core.matches import MatchRecord, Seat, status_of
from gameroom.core.moves import NewEntry, SealedStep, ai_to_move, decide_move, has_drafts
from gameroom.errors import NotYourTurn

TAKE = {"type": "take", "pile": 0, "count": 1}


def _match(game, slug, seats, options=None, settings=None):
    record = MatchRecord(
        id="m1",
        game=slug,
        options=game.load_options(options),
        seed="s",
        created=100.0,
        seats=seats,
        settings=settings or {},
    )
    entry = decider.setup_entry(game, record.num_seats, record.options, record.seed)
    entry["time"] = 100.0
    if settings and settings.get("clock"):
        entry["lifecycle"] = {"clock": settings["clock"], "timeout": None}
        entry["started"] = True
    return record, decider.apply_entry(game, Folded(), entry | {"version": 1})


def test_a_move_is_decided_with_everything_its_append_stores(registry):
    nim = registry.get("nim")
    clock = {"per_move": 30.0, "bank": None, "increment": 0}
    record, folded = _match(
        nim, "nim", [Seat("a"), Seat("b", ai="random")], {"piles": [3, 4]}, {"clock": clock}
    )
    seat = nim.active_seats(folded.state)[0]
    if seat == 1:  # the AI's turn first: let it take, so that the person moves
        folded = decider.apply_entry(nim, folded, decider.decide(nim, folded, 1, TAKE, "s") | {"version": 2})
        seat = 0
    decision = decide_move(nim, record, folded, folded, (), seat, TAKE, 200.0, actor=None)
    assert isinstance(decision, NewEntry)
    assert (
        decision.entry["time"] == 200.0 and "actor" not in decision.entry and "sealed" not in decision.entry
    )
    expected = decider.apply_entry(nim, folded, decision.entry | {"version": folded.version + 1})
    assert decision.after == expected and decision.after.version == folded.version + 1
    assert decision.status == status_of(record, nim, expected.state, expected)
    assert decision.ai_seats == [1] == ai_to_move(record, nim, expected)  # the AI moves next
    assert decision.clocks == lifecycle.timed_seats(record, expected) == {}  # an AI seat has no timeout
    assert decision.drafts is False
    # the input is left as it was: the entry is the decision's own
    assert folded.version == expected.version - 1


def test_the_clock_of_the_seat_to_move_next_runs_from_the_move(registry):
    nim = registry.get("nim")
    clock = {"per_move": 30.0, "bank": None, "increment": 0}
    record, folded = _match(nim, "nim", [Seat("a"), Seat("b")], {"piles": [3, 4]}, {"clock": clock})
    seat = nim.active_seats(folded.state)[0]
    decision = decide_move(nim, record, folded, folded, (), seat, TAKE, 200.0)
    assert isinstance(decision, NewEntry)
    assert decision.clocks == {1 - seat: 230.0} and decision.ai_seats == []


def test_a_move_refused_by_the_rules_raises_what_decide_raises(registry):
    nim = registry.get("nim")
    record, folded = _match(nim, "nim", [Seat("a"), Seat("b")], {"piles": [3, 4]})
    other = 1 - nim.active_seats(folded.state)[0]
    with pytest.raises(NotYourTurn):
        decide_move(nim, record, folded, folded, (), other, TAKE, 200.0)


def test_an_actor_is_stamped_and_no_ai_moves_once_the_match_is_over(registry):
    nim = registry.get("nim")
    record, folded = _match(nim, "nim", [Seat("a"), Seat("b", ai="random")], {"piles": [1]})
    seat = nim.active_seats(folded.state)[0]
    decision = decide_move(nim, record, folded, folded, (), seat, TAKE, 200.0, actor="ai:random")
    assert isinstance(decision, NewEntry) and decision.entry["actor"] == "ai:random"
    assert nim.outcome(decision.after.state) is not None and decision.ai_seats == []


def test_a_sealed_step_goes_to_the_draft_and_the_confirm_carries_the_draft(registry):
    lats = registry.get("look-at-the-stars")
    assert has_drafts(lats) and not has_drafts(registry.get("nim"))
    record, folded = _match(lats, "look-at-the-stars", [Seat("a"), Seat("b")])
    seat = lats.active_seats(folded.state)[0]
    sealed = carried = None
    for move in lats.legal_moves(folded.state, seat):
        decision = decide_move(lats, record, folded, folded, (), seat, move, 200.0)
        if isinstance(decision, SealedStep) and sealed is None:
            sealed = decision
    assert sealed is not None, "no sealable step at the start of look-at-the-stars"
    assert sealed.step == {k: sealed.entry[k] for k in ("move", "events", "time")}
    assert sealed.own == decider.with_steps(lats, folded, [sealed.step])
    assert sealed.barrier == decider.barrier(folded)
    # with that step in the seat's draft, a step that is appended carries the draft
    seen = sealed.own
    for move in lats.legal_moves(seen.state, seat):
        decision = decide_move(lats, record, folded, seen, (sealed.step,), seat, move, 201.0)
        if isinstance(decision, NewEntry):
            carried = decision
            break
    assert carried is not None, "no step ends the draft"
    assert carried.entry["sealed"] == [sealed.step] and carried.drafts is True
    assert carried.after.version == folded.version + 1
