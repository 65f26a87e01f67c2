"""LATS-R2.3: "Until a player confirms, they may undo any of their own steps of this turn."

On real matches (the application layer on the real Redis). A seat's steps of
the turn are sealed (H2, ``Game.sealed_steps``): they wait in the seat's draft,
out of the log, until it confirms; undoing them drops them from the draft at
once, whatever the others did in between, and writes nothing to the log (so no
one else learns of the steps, nor of the undo). Confirming ends the right, and
such matches replay, export and import.
"""

import random

import pytest

from gameroom.application import History
from gameroom.application.logcheck import TamperedLog, verify_log
from gameroom.core import decider
from gameroom.errors import Conflict

SLUG = "look-at-the-stars"
CONFIRM = {"type": "confirm_turn"}


def new_match(matches, n=3, seed="r23"):
    loaded, _ = matches.create(SLUG, [{"name": f"P{i}"} for i in range(n)], None, seed=seed)
    return loaded.record.id


def own(matches, match_id, seat):
    """The match as ``seat`` sees it: the log and its own draft."""
    return matches.with_draft(matches.load(match_id), seat)


def drawing_step(matches, match_id, seat):
    """A step of ``seat`` that is not a confirm (the first drawing the rules offer)."""
    state = own(matches, match_id, seat).seen.state
    game = matches.game(matches.record(match_id))
    step = next(m for m in game.legal_moves(state, seat) if m != CONFIRM)
    return matches.submit(match_id, seat, step)


def sheet(matches, match_id, seat):
    return own(matches, match_id, seat).seen.state["players"][seat]


def test_R2_3_a_seat_undoes_its_own_steps_until_it_confirms_without_consent(plain_matches):
    history = History(plain_matches)
    match_id = new_match(plain_matches)
    start = sheet(plain_matches, match_id, 0)
    mine = drawing_step(plain_matches, match_id, 0)
    assert mine.sealed and mine.version == 1  # in seat 0's draft: nothing appended
    assert sheet(plain_matches, match_id, 0) != start
    drawing_step(plain_matches, match_id, 1)  # the others act in between: it needs no consent of theirs
    drawing_step(plain_matches, match_id, 2)
    kind, entry = history.undo(match_id, 0)
    assert (kind, entry) == ("applied", None)  # nothing in the log to cancel, nothing appended
    assert plain_matches.store.version(match_id) == 1
    assert sheet(plain_matches, match_id, 0) == start  # seat 0's sheet as at the turn's start
    assert history.pending(match_id) == []
    # and it may draw again, and undo again, as long as it has not confirmed
    drawing_step(plain_matches, match_id, 0)
    confirmed = plain_matches.submit(match_id, 2, CONFIRM)  # another seat confirms in between
    assert not confirmed.sealed and confirmed.version == 2
    kind, entry = history.undo(match_id, 0)
    assert (kind, entry) == ("applied", None)
    assert sheet(plain_matches, match_id, 0) == start
    assert plain_matches.load(match_id).folded.state["players"][2]["confirmed"]


def test_R2_3_the_other_seats_steps_are_kept_and_nothing_is_marked_undone(plain_matches):
    history = History(plain_matches)
    match_id = new_match(plain_matches)
    start = [sheet(plain_matches, match_id, s) for s in range(3)]
    drawing_step(plain_matches, match_id, 0)
    drawing_step(plain_matches, match_id, 1)
    drawing_step(plain_matches, match_id, 2)
    theirs = [sheet(plain_matches, match_id, s) for s in (1, 2)]
    kind, _ = history.undo(match_id, 0)
    assert kind == "applied"
    assert sheet(plain_matches, match_id, 0) == start[0]
    assert [sheet(plain_matches, match_id, s) for s in (1, 2)] == theirs  # the others' drawings stay
    loaded = plain_matches.load(match_id)
    shown = plain_matches.redact(loaded, plain_matches.store.read(match_id), 1)
    assert [e["version"] for e in shown] == [1] and not any(e["undone"] for e in shown)
    kind, _ = history.undo(match_id, 1)
    assert kind == "applied"
    assert sheet(plain_matches, match_id, 1) == start[1] and sheet(plain_matches, match_id, 2) == theirs[1]
    # seat 2 confirms: its entry carries its sealed step, and folding the log gives the live state
    plain_matches.submit(match_id, 2, CONFIRM)
    [entry] = plain_matches.store.read(match_id, 1)
    assert len(entry["sealed"]) == 1 and entry["move"] == CONFIRM
    game = plain_matches.game(loaded.record)
    assert (
        decider.fold(game, plain_matches.store.read(match_id)).state
        == plain_matches.load(match_id).folded.state
    )
    assert plain_matches.load(match_id).folded.state["players"][2] == {**theirs[1], "confirmed": True}


def test_R2_3_confirming_ends_the_right_to_undo(plain_matches):
    history = History(plain_matches)
    match_id = new_match(plain_matches)
    drawing_step(plain_matches, match_id, 0)
    drawing_step(plain_matches, match_id, 1)
    plain_matches.submit(match_id, 0, CONFIRM)
    version = plain_matches.store.version(match_id)
    for steps in (1, 2):
        with pytest.raises(Conflict) as caught:
            history.undo(match_id, 0, steps)
        assert caught.value.code == "undo-crosses-confirm"
    assert plain_matches.store.version(match_id) == version  # refused: nothing written
    # The seats that have not confirmed still undo their own steps across seat 0's confirm,
    # which stays (seat 0 is still done with the turn); but not more steps than they took.
    with pytest.raises(Conflict) as caught:
        history.undo(match_id, 1, 2)
    # (the first turn: its one step is all it has, no draw or reveal stands in the way)
    assert (caught.value.code, caught.value.detail) == ("bad-undo-steps", "You have only 1 step to undo.")
    kind, _ = history.undo(match_id, 1)
    assert kind == "applied"
    state = own(plain_matches, match_id, 1).seen.state
    assert state["players"][0]["confirmed"] and not state["players"][1]["confirmed"]
    assert not state["players"][1]["drawn"]
    game = plain_matches.game(plain_matches.record(match_id))
    assert 0 not in game.active_seats(state)
    # When the last seat confirms, the turn's drawings and the next card are revealed:
    # nothing of the turn is undone any more, by anyone.
    for seat in (1, 2):
        if not sheet(plain_matches, match_id, seat)["drawn"]:
            drawing_step(plain_matches, match_id, seat)
        plain_matches.submit(match_id, seat, CONFIRM)
    assert plain_matches.load(match_id).folded.state["turn"] == 2
    for seat in (0, 1, 2):
        with pytest.raises(Conflict) as caught:
            history.undo(match_id, seat)
        assert caught.value.code == "undo-crosses-reveal"


def play_with_undos(matches, history, match_id, rnd, limit=3000):
    game = matches.game(matches.record(match_id))
    counts = {"drafted": 0, "confirmed": 0}
    for _ in range(limit):
        state = matches.load(match_id).folded.state
        active = game.active_seats(state)
        if not active:
            return counts
        if rnd.random() < 0.3:  # any seat, confirmed or not, asks to undo its last step
            version = matches.store.version(match_id)
            try:
                kind, entry = history.undo(match_id, rnd.randrange(state["n"]))
            except Conflict as exc:
                assert exc.code in ("undo-crosses-reveal", "undo-crosses-confirm", "nothing-to-undo")
                counts["confirmed"] += exc.code == "undo-crosses-confirm"
            else:
                assert (kind, entry) == ("applied", None)  # a draft step: never a request, nor an entry
                counts["drafted"] += 1
            assert matches.store.version(match_id) == version
            continue
        seat = rnd.choice(active)
        legal = game.legal_moves(own(matches, match_id, seat).seen.state, seat)
        # Confirm now and then only, so that turns hold interleaved steps of several seats.
        moves = [m for m in legal if m != CONFIRM] or legal
        matches.submit(match_id, seat, rnd.choice(moves if rnd.random() < 0.8 else legal))
    raise AssertionError("the match did not end")


def test_R2_3_replay_export_and_import_of_a_match_with_undone_sealed_steps(plain_matches):
    history = History(plain_matches)
    match_id = new_match(plain_matches, n=2, seed="r23-export")
    counts = play_with_undos(plain_matches, history, match_id, random.Random(23))
    assert counts["drafted"] > 0 and counts["confirmed"] > 0, counts
    loaded = plain_matches.load(match_id)
    game = plain_matches.game(loaded.record)
    entries = plain_matches.store.read(match_id)
    assert decider.fold(game, entries).state == loaded.folded.state  # replay from scratch
    assert all(e["kind"] != "undo" for e in entries)  # draft undos leave no trace in the log
    doc = history.export(match_id, None)
    assert doc["complete"] and any(e.get("sealed") for e in doc["entries"])
    imported = history.import_(doc)
    assert imported.folded.state == loaded.folded.state
    # A sealed step whose events are not what its move makes is refused on import.
    at = next(i for i, e in enumerate(doc["entries"]) if e.get("sealed"))
    forged = dict(doc, entries=[dict(e) for e in doc["entries"]])
    first = forged["entries"][at]["sealed"][0]
    forged["entries"][at]["sealed"] = [{**first, "events": []}] + forged["entries"][at]["sealed"][1:]
    with pytest.raises(TamperedLog, match="sealed"):
        history.import_(forged)
    # A confirm sealed into the draft is not a step a draft may hold.
    forged["entries"][at] = {**doc["entries"][at], "sealed": [{"move": CONFIRM, "events": []}]}
    with pytest.raises(TamperedLog):
        history.import_(forged)
    # Hostile sealed values are a refusal (422 tampered-log), never a crash.
    for bad in ("3", [[3]], [{"v": 3}], [10**9], {"3": 3}, [{"move": "x", "events": 1}]):
        forged["entries"][at] = {**doc["entries"][at], "sealed": bad}
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


def test_R2_3_a_seats_sealed_steps_outlast_another_seat_leaving_and_an_ai_goes_on_from_a_draft(
    plain_matches,
):
    """A lifecycle entry (a seat left to an AI) carries no game events: the other seats keep
    their sealed steps and may still undo them; the AI that takes a seat over goes on from
    that seat's draft, from its own view."""
    from gameroom.application import Seats
    from gameroom.workers import jobs

    history = History(plain_matches)
    loaded, tokens = plain_matches.create(SLUG, [{"name": f"P{i}"} for i in range(3)], None, seed="r23-leave")
    match_id = loaded.record.id
    start = sheet(plain_matches, match_id, 0)
    drawing_step(plain_matches, match_id, 0)
    drawn = sheet(plain_matches, match_id, 0)
    human_step = drawing_step(plain_matches, match_id, 1).entry["move"]
    Seats(plain_matches).leave(match_id, 1, tokens[1], "random")
    assert plain_matches.store.version(match_id) == 2
    assert sheet(plain_matches, match_id, 0) == drawn  # seat 0's draft is still there
    assert history.undo(match_id, 0) == ("applied", None)
    assert sheet(plain_matches, match_id, 0) == start
    result = jobs.play_turn(plain_matches, match_id, 2, 1, "job-after-leave")
    assert result["status"] == "applied" and result["version"] == 3
    [entry] = plain_matches.store.read(match_id, 2)
    assert entry["seat"] == 1 and entry["move"] == CONFIRM and entry["actor"] == "ai:random"
    assert entry["sealed"][0]["move"] == human_step and "actor" not in entry["sealed"][0]
