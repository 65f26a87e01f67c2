"""Idempotency-Key reused with a different body is refused (issue 13.5), the way payment
APIs do it: 422 ``idempotency-key-reused``, nothing appended; the same body still replays."""

from gameroom.application import request_fingerprint


def _move(api, match_id, token, move, key, **body):
    return api.post(
        f"/api/matches/{match_id}/moves",
        {"move": move, **body},
        token=token,
        headers={"Idempotency-Key": key} if key else None,
    )


def _active(api, match_id, tokens):
    seat = api.state(match_id)["active_seats"][0]
    return seat, tokens[seat]


def test_idempotency_key_reused_with_a_different_body_is_refused(api, expect_problem):
    match_id, tokens = api.create(seed="idem")
    seat, token = _active(api, match_id, tokens)
    first_move, other_move = api.legal(match_id, token)[:2]
    key = "pay-once"
    first = _move(api, match_id, token, first_move, key)
    assert first.status_code == 201 and first.get_json()["duplicate"] is False
    version = first.get_json()["version"]

    # The same body replays: the first result, nothing appended.
    again = _move(api, match_id, token, first_move, key)
    assert again.status_code == 201
    assert again.get_json()["duplicate"] is True and again.get_json()["version"] == version
    assert again.get_json()["events"] == first.get_json()["events"]

    # Another move, or the same move with another expected version, under that key: refused.
    expect_problem(_move(api, match_id, token, other_move, key), 422, "idempotency-key-reused")
    expect_problem(
        _move(api, match_id, token, first_move, key, expected_version=1), 422, "idempotency-key-reused"
    )
    assert api.state(match_id)["version"] == version

    # Keys are per seat: the other seat's own "pay-once" is a new request.
    other = 1 - seat
    reply = _move(api, match_id, tokens[other], api.legal(match_id, tokens[other])[0], key)
    assert reply.status_code == 201 and reply.get_json()["duplicate"] is False
    assert reply.get_json()["version"] == version + 1


def test_an_idempotency_record_without_fingerprint_still_replays(api, matches):
    # Records written before fingerprints existed ("<version>") keep replaying any body.
    match_id, tokens = api.create(seed="old-record")
    seat, token = _active(api, match_id, tokens)
    move = api.legal(match_id, token)[0]
    first = api.move(match_id, token, move)
    assert first.status_code == 201
    matches.store.redis.hset(f"gameroom:{{{match_id}}}:idem", f"{seat}:legacy", first.get_json()["version"])
    replay = _move(api, match_id, token, {"type": "anything"}, "legacy")
    assert replay.status_code == 201 and replay.get_json()["duplicate"] is True


def test_the_fingerprint_ignores_key_order_but_not_values():
    a = request_fingerprint({"type": "take", "pile": 1, "count": 2}, None)
    assert a == request_fingerprint({"count": 2, "pile": 1, "type": "take"}, None)
    assert a != request_fingerprint({"type": "take", "pile": 1, "count": 3}, None)
    assert a != request_fingerprint({"type": "take", "pile": 1, "count": 2}, 4)
