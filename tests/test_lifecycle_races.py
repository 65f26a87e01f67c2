"""Concurrent lifecycle actions on the real Redis: nothing is lost or applied twice."""

import threading

import pytest

from gameroom.application import History, Seats
from gameroom.composition import matches_on
from gameroom.core import lifecycle
from gameroom.errors import GameroomError

ROUNDS = 8


def _race(*calls):
    """Run ``calls`` at once; returns each one's result or the GameroomError it raised."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, call):
        barrier.wait()
        try:
            results[i] = call()
        except GameroomError as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def _nim(matches, **settings):
    loaded, tokens = matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}], settings=settings or None)
    return loaded.record.id, tokens


def _kinds(matches, match_id):
    return [(e["kind"], e.get("action"), e.get("seat")) for e in matches.store.read(match_id)]


def test_racing_resignations_end_the_match_once(plain_matches):
    life = Seats(plain_matches)
    for _ in range(ROUNDS):
        match_id, _tokens = _nim(plain_matches)
        results = _race(lambda: life.resign(match_id, 0), lambda: life.resign(match_id, 1))
        refused = [r for r in results if isinstance(r, GameroomError)]
        assert len(refused) == 1 and refused[0].code == "match-over"
        assert [k for k in _kinds(plain_matches, match_id) if k[0] == "lifecycle"] in (
            [("lifecycle", "resign", 0)],
            [("lifecycle", "resign", 1)],
        )


def test_racing_rematch_acceptances_share_one_new_match(plain_matches):
    life = Seats(plain_matches)
    for _ in range(ROUNDS):
        match_id, tokens = _nim(plain_matches)
        life.resign(match_id, 0)
        first, second = _race(
            lambda: life.rematch(match_id, 0, tokens[0]), lambda: life.rematch(match_id, 1, tokens[1])
        )
        assert not isinstance(first, GameroomError) and not isinstance(second, GameroomError), (first, second)
        assert first["match"].record.id == second["match"].record.id
        rematch = plain_matches.load(first["match"].record.id)
        assert rematch.record.full and [s.name for s in rematch.record.seats] == ["Ana", "Bo"]
        assert plain_matches.open(rematch.record.id, first["token"])[1] == 0
        assert plain_matches.open(rematch.record.id, second["token"])[1] == 1
        assert sorted(k[2] for k in _kinds(plain_matches, match_id) if k[1] == "rematch") == [0, 1]
        assert plain_matches.store.version(rematch.record.id) == 1  # created once: one setup entry


@pytest.mark.parametrize("policy", ["ai-turn", "forfeit"])
def test_a_timeout_racing_itself_and_a_late_move_applies_exactly_once_and_the_move_never_lands(
    plain_matches, policy
):
    clock = [1_000.0]
    plain_matches.clock = lambda: clock[0]
    for _ in range(ROUNDS):
        match_id, _tokens = _nim(
            plain_matches,
            clock={"per_move": 2.0, "bank": None, "increment": 0},
            timeout={"action": policy, "level": "random"},
        )
        loaded = plain_matches.load(match_id)
        seat = loaded.folded.lifecycle["turn_start"].index(clock[0])
        assert plain_matches.timeout_due(match_id, 1, seat, clock[0] + 1.9)["status"] == "early"
        clock[0] += 2.5
        move = {"type": "take", "pile": 0, "count": 1}
        results = _race(
            lambda: plain_matches.timeout_due(match_id, 1, seat, clock[0]),
            lambda: plain_matches.timeout_due(match_id, 1, seat, clock[0]),
            lambda: plain_matches.submit(match_id, seat, move, expected_version=1),
        )
        applied = [r for r in results[:2] if r["status"] == "applied"]
        refused = results[2]
        # The late move is refused: having applied the timeout itself, or finding it applied.
        assert isinstance(refused, GameroomError), results
        if refused.code == "out-of-time":
            assert applied == [] and refused.extra["current_version"] == 2, results
        else:
            assert len(applied) == 1 and refused.code in ("seat-played-by-ai", "stale-version"), results
        assert _kinds(plain_matches, match_id) == [("setup", None, None), ("lifecycle", "timeout", seat)]
        assert plain_matches.load(match_id).folded.lifecycle["timeouts"] == 1
        # and once the match moved on, the job is a no-op
        assert plain_matches.timeout_due(match_id, 1, seat, clock[0] + 100)["status"] == "stale"


def test_a_move_refused_to_a_seat_the_ai_took_over(plain_matches):
    clock = [5_000.0]
    plain_matches.clock = lambda: clock[0]
    match_id, _tokens = _nim(plain_matches, clock={"per_move": 2.0, "bank": None, "increment": 0})
    seat = plain_matches.load(match_id).folded.lifecycle["turn_start"].index(clock[0])
    clock[0] += 3
    assert plain_matches.timeout_due(match_id, 1, seat, clock[0])["status"] == "applied"
    with pytest.raises(GameroomError) as refused:
        plain_matches.submit(match_id, seat, {"type": "take", "pile": 0, "count": 1})
    assert refused.value.code == "seat-played-by-ai"
    # the AI's own submit (actor ai:...) is the one that plays it
    result = plain_matches.submit(match_id, seat, {"type": "take", "pile": 0, "count": 1}, actor="ai:random")
    assert not lifecycle.taken_over(
        result.loaded.folded, seat
    )  # its turn ended: the seat is its person's again


def test_a_left_seats_old_token_stays_revoked_in_a_process_whose_cache_is_behind(redis_client, registry):
    from gameroom.composition import matches_on
    from gameroom.core.matches import hash_token, new_token

    def process():
        return matches_on(redis_client, registry)

    behind, other = process(), process()
    admin = new_token()
    loaded, tokens = other.create("nim", [{"name": "Ana"}, {"name": "Bo"}], admin_hash=hash_token(admin))
    match_id = loaded.record.id
    seat = behind.game(loaded.record).active_seats(loaded.folded.state)[0]
    assert behind.open(match_id, tokens[seat])[1] == seat  # this process caches the fold and the token
    life = Seats(other)
    life.leave(match_id, seat, tokens[seat])
    life.reclaim(match_id, seat, admin)  # the seat is a person's again, with a new token
    stale, cached_seat, ok = behind.open(match_id, tokens[seat], fresh=False)
    assert stale.version == 1 and cached_seat == seat and ok  # all from the cache: no read
    with pytest.raises(GameroomError) as refused:
        behind.submit(
            match_id,
            cached_seat,
            {"type": "take", "pile": 0, "count": 1},
            loaded=stale,
            maybe_behind=True,
            token=tokens[seat],
        )
    assert refused.value.code == "bad-token"
    assert behind.store.version(match_id) == 3


def test_a_seat_an_ai_plays_does_not_vote_on_undo(plain_matches):
    from gameroom.application import History

    life = Seats(plain_matches)
    loaded, tokens = plain_matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": [9, 9]})
    match_id = loaded.record.id
    game = plain_matches.game(loaded.record)
    leaver = game.active_seats(loaded.folded.state)[0]
    stayer = 1 - leaver
    life.leave(match_id, leaver, tokens[leaver])
    take = {"type": "take", "pile": 0, "count": 1}
    plain_matches.submit(match_id, leaver, take, actor="ai:random")
    plain_matches.submit(match_id, stayer, take)
    plain_matches.submit(match_id, leaver, take, actor="ai:random")
    plain_matches.submit(match_id, stayer, take)
    # undoing across the AI's step would ask the other seat's person: nobody is there to answer
    outcome, entry = History(plain_matches).undo(match_id, stayer, steps=2)
    assert outcome == "applied" and entry["kind"] == "undo"
    assert plain_matches.load(match_id).folded.state["piles"] == [8, 9]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_processes_that_cached_a_match_with_open_seats_claim_each_seat_once(redis_client, registry, round_):
    """Each process keeps what a claim checks of a match with open seats (so a claim skips that
    read); who gets a seat is still decided once, in Redis: racing claims from two processes that
    both know the match give each seat to exactly one of them."""
    a, b = matches_on(redis_client, registry), matches_on(redis_client, registry)
    loaded, _ = a.create("nim", [None, None])
    match_id = loaded.record.id
    b.load(match_id)  # b has seen it too, with both seats open
    results = _race(
        *(lambda m=m, s=s: m.claim_seat(match_id, s, f"{id(m)}-{s}") for m in (a, b) for s in (0, 1))
    )
    won = [r for r in results if not isinstance(r, GameroomError)]
    lost = [r for r in results if isinstance(r, GameroomError)]
    assert len(won) == 2 and [e.code for e in lost] == ["seat-taken", "seat-taken"]
    record = a.record(match_id)
    assert record.full
    # each winner's token plays the seat it won, in either process
    assert {b.open(match_id, token)[1] for _, token in won} == {0, 1}
    assert {a.open(match_id, token)[1] for _, token in won} == {0, 1}
    assert a.load(match_id).record.seats == b.load(match_id).record.seats == record.seats


def _rematch_waiting_for_ana(matches):
    """A finished match whose rematch Bo accepted: returns the lifecycle, the admin token, the old
    match's id and tokens, and the rematch's id (seat 0 kept for Ana)."""
    from gameroom.core.matches import hash_token, new_token

    life, admin = Seats(matches), new_token()
    loaded, tokens = matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}], admin_hash=hash_token(admin))
    match_id = loaded.record.id
    life.resign(match_id, 0)
    rematch_id = life.rematch(match_id, 1, tokens[1])["match"].record.id
    return life, admin, match_id, tokens, rematch_id


def test_a_process_that_saw_a_seat_reserved_lets_anyone_claim_it_once_released(redis_client, registry):
    behind, other = matches_on(redis_client, registry), matches_on(redis_client, registry)
    life, admin, _match_id, _tokens, rematch_id = _rematch_waiting_for_ana(other)
    behind.load(rematch_id)  # this process keeps the record, with seat 0 reserved
    with pytest.raises(GameroomError) as refused:
        behind.claim_seat(rematch_id, 0, "Cy")
    assert refused.value.code == "seat-reserved"
    life.release(rematch_id, 0, admin)
    loaded, token = behind.claim_seat(rematch_id, 0, "Cy")
    assert loaded.record.full and other.open(rematch_id, token)[1] == 0


def test_a_release_racing_its_players_acceptance_leaves_the_seat_to_the_player(plain_matches):
    for _ in range(ROUNDS):
        life, admin, match_id, tokens, rematch_id = _rematch_waiting_for_ana(plain_matches)
        released, accepted = _race(
            lambda: life.release(rematch_id, 0, admin),
            lambda: life.rematch(match_id, 0, tokens[0]),
        )
        assert not isinstance(accepted, GameroomError), accepted
        assert plain_matches.open(rematch_id, accepted["token"])[1] == 0
        assert plain_matches.record(rematch_id).full
        actions = [k[1] for k in _kinds(plain_matches, rematch_id) if k[0] == "lifecycle"]
        if isinstance(released, GameroomError):
            assert released.code == "seat-taken" and actions == []
        else:
            assert actions == ["release"]


# -- an action between the claim of the last seat and the clocks' start ---------------------


def _claimed_not_started(matches):
    """A clocked match whose last seat is claimed, its ``start`` entry not appended yet (what an
    action racing the claim sees, or one coming after a claim that died in between)."""
    settings = {"clock": {"bank": 60, "increment": 2}}
    loaded, tokens = matches.create("nim", [{"name": "Ana"}, None], settings=settings)
    match_id = loaded.record.id
    assert matches.records.claim(match_id, 1, "Bo", "tok-bo", 2).won
    assert not matches.load(match_id).folded.lifecycle["started"]
    return match_id, tokens[0]


def test_a_leave_before_the_start_entry_comes_after_it_and_is_not_undone_by_it(plain_matches):
    life = Seats(plain_matches)
    match_id, token = _claimed_not_started(plain_matches)
    life.leave(match_id, 0, token)
    assert _kinds(plain_matches, match_id) == [
        ("setup", None, None),
        ("lifecycle", "start", None),
        ("lifecycle", "leave", 0),
    ]
    overlay = plain_matches.load(match_id).folded.lifecycle
    assert overlay["left"][0] and overlay["ai"][0] is not None  # an AI plays the seat, as after any leave


def test_a_resign_before_the_start_entry_leaves_a_log_that_imports(plain_matches):
    life = Seats(plain_matches)
    match_id, _token = _claimed_not_started(plain_matches)
    life.resign(match_id, 0)
    assert _kinds(plain_matches, match_id) == [
        ("setup", None, None),
        ("lifecycle", "start", None),
        ("lifecycle", "resign", 0),
    ]
    history = History(plain_matches)
    imported = history.import_(history.export(match_id, None))  # TamperedLog if out of order
    assert imported.version == 3


def test_racing_leaves_and_the_last_claim_never_put_a_leave_before_the_start(plain_matches):
    life = Seats(plain_matches)
    settings = {"clock": {"bank": 60, "increment": 2}}
    for _ in range(ROUNDS):
        loaded, tokens = plain_matches.create("nim", [{"name": "Ana"}, None], settings=settings)
        match_id = loaded.record.id
        _race(lambda: plain_matches.claim_seat(match_id, 1, "Bo"), lambda: life.leave(match_id, 0, tokens[0]))
        kinds = [k[1] for k in _kinds(plain_matches, match_id)]
        assert kinds.count("start") <= 1
        if "leave" in kinds:
            assert kinds == [None, "start", "leave"]
