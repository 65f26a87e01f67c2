"""LATS-R2.3: "Until a player confirms, they may undo any of their own steps of this turn."

The platform's selective undo (``Game.independent_steps``, ``Game.confirms``) on
real matches (the application layer on the real Redis): a seat undoes its own
steps at once although the others acted in between, only its own steps are
cancelled, confirming ends the right, and such logs replay, export and import.
"""

import random

import pytest

from gameroom.core import decider
from gameroom.errors import Conflict
from gameroom.history import History, TamperedLog, verify_log

SLUG = "look-at-the-stars"
CONFIRM = {"type": "confirm_turn"}


def new_match(matches, n=3, seed="r23"):
    loaded, _ = matches.create(SLUG, [{"name": f"P{i}"} for i in range(n)], None, seed=seed)
    return loaded.record.id


def drawing_step(matches, match_id, seat):
    """A step of ``seat`` that is not a confirm (the first drawing the rules offer)."""
    state = matches.load(match_id).folded.state
    game = matches.game(matches.record(match_id))
    step = next(m for m in game.legal_moves(state, seat) if m != CONFIRM)
    return matches.submit(match_id, seat, step).version


def players(matches, match_id):
    return matches.load(match_id).folded.state["players"]


def test_R2_3_a_seat_undoes_its_own_steps_until_it_confirms_without_consent(plain_matches):
    history = History(plain_matches)
    match_id = new_match(plain_matches)
    start = players(plain_matches, match_id)
    mine = drawing_step(plain_matches, match_id, 0)
    drawing_step(plain_matches, match_id, 1)  # the others act in between: it needs no consent of theirs
    drawing_step(plain_matches, match_id, 2)
    kind, entry = history.undo(match_id, 0)
    assert kind == "applied"
    assert entry["undoes"] == [mine] and entry["target"] == mine - 1
    assert players(plain_matches, match_id)[0] == start[0]  # seat 0's sheet as at the turn's start
    assert history.pending(match_id) == []
    # and it may draw again, and undo again, as long as it has not confirmed
    again = drawing_step(plain_matches, match_id, 0)
    confirmed = plain_matches.submit(match_id, 2, CONFIRM).version  # another seat confirms in between
    kind, entry = history.undo(match_id, 0)
    assert kind == "applied" and entry["undoes"] == [again] and entry["keeps"] == [confirmed]
    assert players(plain_matches, match_id)[0] == start[0]
    assert players(plain_matches, match_id)[2]["confirmed"]


def test_R2_3_the_other_seats_steps_are_kept_and_only_the_callers_are_marked_undone(plain_matches):
    history = History(plain_matches)
    match_id = new_match(plain_matches)
    start = players(plain_matches, match_id)
    mine = drawing_step(plain_matches, match_id, 0)
    theirs = [drawing_step(plain_matches, match_id, 1), drawing_step(plain_matches, match_id, 2)]
    after_theirs = players(plain_matches, match_id)
    kind, entry = history.undo(match_id, 0)
    assert kind == "applied" and entry["keeps"] == theirs
    now = players(plain_matches, match_id)
    assert now[0] == start[0]
    assert now[1] == after_theirs[1] and now[2] == after_theirs[2]  # the others' drawings stay
    loaded = plain_matches.load(match_id)
    shown = plain_matches.redact(loaded, plain_matches.store.read(match_id), 1)
    assert [e["version"] for e in shown if e["undone"]] == [mine]
    # Seat 1 then undoes its own (kept) step: the state is the turn's start plus seat 2's step,
    # not the state recorded at its target version (which still held seat 0's undone drawing).
    kind, entry = history.undo(match_id, 1)
    assert kind == "applied" and entry["undoes"] == [theirs[0]] and entry["keeps"] == [theirs[1]]
    now = players(plain_matches, match_id)
    assert now[0] == start[0] and now[1] == start[1] and now[2] == after_theirs[2]
    game = plain_matches.game(loaded.record)
    assert (
        decider.fold(game, plain_matches.store.read(match_id)).state
        == plain_matches.load(match_id).folded.state
    )


def test_R2_3_confirming_ends_the_right_to_undo(plain_matches):
    history = History(plain_matches)
    match_id = new_match(plain_matches)
    drawing_step(plain_matches, match_id, 0)
    later = drawing_step(plain_matches, match_id, 1)
    plain_matches.submit(match_id, 0, CONFIRM)
    version = plain_matches.store.version(match_id)
    for steps in (1, 2):
        with pytest.raises(Conflict) as caught:
            history.undo(match_id, 0, steps)
        assert caught.value.code == "undo-crosses-confirm"
    assert plain_matches.store.version(match_id) == version  # refused: nothing written
    # The seats that have not confirmed still undo their own steps across seat 0's confirm,
    # which stays (seat 0 is still done with the turn).
    kind, entry = history.undo(match_id, 1)
    assert kind == "applied" and entry["undoes"] == [later]
    state = plain_matches.load(match_id).folded.state
    assert state["players"][0]["confirmed"] and not state["players"][1]["confirmed"]
    game = plain_matches.game(plain_matches.record(match_id))
    assert 0 not in game.active_seats(state)
    # When the last seat confirms, the turn's drawings and the next card are revealed:
    # nothing of the turn is undone any more, by anyone.
    for seat in (1, 2):
        if not players(plain_matches, match_id)[seat]["drawn"]:
            drawing_step(plain_matches, match_id, seat)
        plain_matches.submit(match_id, seat, CONFIRM)
    assert plain_matches.load(match_id).folded.state["turn"] == 2
    for seat in (0, 1, 2):
        with pytest.raises(Conflict) as caught:
            history.undo(match_id, seat)
        assert caught.value.code == "undo-crosses-reveal"


def play_with_undos(matches, history, match_id, rnd, limit=3000):
    game = matches.game(matches.record(match_id))
    counts = {"selective": 0, "confirmed": 0}
    for _ in range(limit):
        state = matches.load(match_id).folded.state
        active = game.active_seats(state)
        if not active:
            return counts
        if rnd.random() < 0.3:  # any seat, confirmed or not, asks to undo its last step
            try:
                kind, entry = history.undo(match_id, rnd.randrange(state["n"]))
            except Conflict as exc:
                assert exc.code in ("undo-crosses-reveal", "undo-crosses-confirm", "nothing-to-undo")
                counts["confirmed"] += exc.code == "undo-crosses-confirm"
            else:
                assert kind == "applied"  # never a request in Look at the Stars
                counts["selective"] += "keeps" in entry
            continue
        seat = rnd.choice(active)
        legal = game.legal_moves(state, seat)
        # Confirm now and then only, so that turns hold interleaved steps of several seats.
        moves = [m for m in legal if m != CONFIRM] or legal
        matches.submit(match_id, seat, rnd.choice(moves if rnd.random() < 0.8 else legal))
    raise AssertionError("the match did not end")


def test_R2_3_replay_export_and_import_of_a_match_with_selective_undos(plain_matches):
    history = History(plain_matches)
    match_id = new_match(plain_matches, n=2, seed="r23-export")
    counts = play_with_undos(plain_matches, history, match_id, random.Random(23))
    assert counts["selective"] > 0 and counts["confirmed"] > 0, counts
    loaded = plain_matches.load(match_id)
    game = plain_matches.game(loaded.record)
    entries = plain_matches.store.read(match_id)
    assert decider.fold(game, entries).state == loaded.folded.state  # replay from scratch
    doc = history.export(match_id, None)
    assert doc["complete"] and any(e.get("keeps") for e in doc["entries"])
    imported = history.import_(doc)
    assert imported.folded.state == loaded.folded.state
    # A selective undo stripped of its keeps would restore a state without the others' steps.
    forged = dict(doc, entries=[dict(e) for e in doc["entries"]])
    at = next(i for i, e in enumerate(forged["entries"]) if e.get("keeps"))
    forged["entries"][at].pop("keeps")
    with pytest.raises(TamperedLog):
        history.import_(forged)
    # Hostile keeps are a refusal (422 tampered-log), never a crash.
    for bad in ("3", [[3]], [{"v": 3}], [10**9], {"3": 3}):
        forged["entries"][at] = {**doc["entries"][at], "keeps": bad}
        with pytest.raises(TamperedLog):
            history.import_(forged)


def test_R2_3_an_exported_undo_of_a_confirmed_step_is_refused_on_import(plain_matches):
    """verify_log: a log in which a seat undoes its own confirm does not follow the rules."""
    match_id = new_match(plain_matches, n=2, seed="r23-forge")
    drawing_step(plain_matches, match_id, 0)
    plain_matches.submit(match_id, 0, CONFIRM)
    loaded = plain_matches.load(match_id)
    record, game = loaded.record, plain_matches.game(loaded.record)
    entries = plain_matches.store.read(match_id)
    schedule = record.seed_schedule()
    verify_log(game, entries, 2, record.options, schedule)  # the honest prefix verifies
    restore = plain_matches.load(match_id, 1).folded.state
    forged = entries + [
        {"kind": "undo", "seat": 0, "target": 1, "undoes": [2, 3], "state": restore, "events": []}
    ]
    with pytest.raises(TamperedLog, match="confirmed"):
        verify_log(game, forged, 2, record.options, schedule)
