"""Playing over HTTP only: moves, errors, races, retries, history, time travel, live stream."""

import json
import random
import threading

import pytest

TAKE = {"type": "take", "pile": 0, "count": 1}


def _turn_token(api, match_id, tokens):
    [seat] = api.state(match_id)["active_seats"]
    return seat, tokens[seat]


def play_to_end(api, match_id, tokens, rnd, max_steps=10_000, live=None):
    """Play random legal moves for whoever is active; record each caller's live state by version."""
    for _ in range(max_steps):
        summary = api.get(f"/api/matches/{match_id}").get_json()
        if summary["status"] == "finished":
            return summary
        seat = rnd.choice(summary["active_seats"])
        moves = api.legal(match_id, tokens[seat])
        assert moves, f"active seat {seat} has no legal moves"
        r = api.move(match_id, tokens[seat], rnd.choice(moves))
        assert r.status_code == 201, r.get_json()
        if live is not None:
            body = r.get_json()
            live[(body["version"], seat)] = body["state"]
    raise AssertionError("match did not end")


def test_a_complete_nim_match_over_http(api, expect_problem):
    match_id, tokens = api.create(seed="nim-1")
    live = {}
    summary = play_to_end(api, match_id, tokens, random.Random(1), live=live)
    assert summary["outcome"]["winners"] in ([0], [1])
    assert sum(summary["outcome"]["scores"]) == 1
    assert api.state(match_id)["view"]["piles"] == [0, 0, 0]
    expect_problem(api.move(match_id, tokens[0], TAKE), 409, "match-over")
    # Time travel: every past state equals what was returned live at that version.
    for (version, seat), seen in live.items():
        assert api.state(match_id, tokens[seat], version=version) == seen


def test_move_errors_have_stable_codes_and_change_nothing(api, expect_problem):
    match_id, tokens = api.create(seed="errors")
    seat, token = _turn_token(api, match_id, tokens)
    other = tokens[1 - seat]
    version = api.state(match_id)["version"]
    expect_problem(api.move(match_id, other, TAKE), 403, "not-your-turn")
    expect_problem(api.move(match_id, token, TAKE, seat=1 - seat), 403, "not-your-seat")
    expect_problem(api.move(match_id, "not-a-token", TAKE), 401, "bad-token")
    expect_problem(api.move(match_id, None, TAKE), 401, "token-required")
    expect_problem(
        api.call(
            "POST", f"/api/matches/{match_id}/moves", {"move": TAKE}, headers={"Authorization": "Basic abc"}
        ),
        401,
        "bad-token",
    )
    body = expect_problem(
        api.move(match_id, token, {"type": "take", "pile": 0, "count": 99}), 422, "illegal-move"
    )
    assert body["rule"] == "too-many" and "at most" in body["detail"]
    body = expect_problem(
        api.move(match_id, token, {"type": "take", "pile": "zero", "count": 1}), 422, "illegal-move"
    )
    assert body["rule"] == "no-such-pile"
    expect_problem(
        api.post(f"/api/matches/{match_id}/moves", {"move": "take"}, token=token), 422, "validation-error"
    )
    expect_problem(
        api.call("POST", f"/api/matches/{match_id}/moves", raw=b"{nope", token=token), 400, "malformed-json"
    )
    expect_problem(
        api.call(
            "POST", f"/api/matches/{match_id}/moves", raw=b'{"move":' + b" " * 70_000 + b"{}}", token=token
        ),
        413,
        "body-too-large",
    )
    assert api.state(match_id)["version"] == version


def test_expected_version_behind_is_stale(api, expect_problem):
    match_id, tokens = api.create(seed="stale")
    seat, token = _turn_token(api, match_id, tokens)
    assert api.move(match_id, token, TAKE, expected_version=1).status_code == 201
    seat, token = _turn_token(api, match_id, tokens)
    body = expect_problem(api.move(match_id, token, TAKE, expected_version=1), 409, "stale-version")
    assert body["current_version"] == 2
    assert api.move(match_id, token, TAKE, expected_version=2).status_code == 201


def test_idempotent_retry_appends_once(api, store):
    match_id, tokens = api.create(seed="idem")
    seat, token = _turn_token(api, match_id, tokens)
    headers = {"Idempotency-Key": "retry-1"}
    first = api.call("POST", f"/api/matches/{match_id}/moves", {"move": TAKE}, token=token, headers=headers)
    again = api.call("POST", f"/api/matches/{match_id}/moves", {"move": TAKE}, token=token, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.get_json()["version"] == again.get_json()["version"] == 2
    assert (first.get_json()["duplicate"], again.get_json()["duplicate"]) == (False, True)
    assert store.version(match_id) == 2


def test_two_clients_racing_on_one_match_never_lose_or_duplicate(app, api):
    """Both clients of the active seat fire different moves at once: exactly one lands."""
    match_id, tokens = api.create(seed="race", options={"piles": [9, 9, 9]})
    seat, token = _turn_token(api, match_id, tokens)
    results = []
    barrier = threading.Barrier(8)

    def fire(i):
        client = app.test_client()
        barrier.wait()
        r = client.post(
            f"/api/matches/{match_id}/moves",
            json={"move": {"type": "take", "pile": i % 3, "count": 1 + i // 3}},
            headers={"Authorization": f"Bearer {token}"},
        )
        results.append((r.status_code, r.get_json()))

    threads = [threading.Thread(target=fire, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    accepted = [body for status, body in results if status == 201]
    assert len(accepted) == 1, results
    assert all(body["code"] == "not-your-turn" for status, body in results if status != 201)
    entries = api.get(f"/api/matches/{match_id}/events").get_json()["entries"]
    assert [e["version"] for e in entries] == [1, 2]


def test_history_shows_commands_to_their_author_only(api):
    match_id, tokens = api.create(seed="hist")
    seat, token = _turn_token(api, match_id, tokens)
    api.move(match_id, token, TAKE)
    mine = api.get(f"/api/matches/{match_id}/events?after=1", token=token).get_json()["entries"]
    theirs = api.get(f"/api/matches/{match_id}/events?after=1", token=tokens[1 - seat]).get_json()["entries"]
    spectator = api.get(f"/api/matches/{match_id}/events").get_json()
    assert mine[0]["move"] == TAKE and "move" not in theirs[0]
    assert spectator["version"] == 2 and spectator["entries"][0]["kind"] == "setup"
    assert mine[0]["text"] and "took 1" in mine[0]["text"][0]
    page = api.get(f"/api/matches/{match_id}/events?after=0&limit=1").get_json()["entries"]
    assert [e["version"] for e in page] == [1]


def test_state_etag_and_not_modified(api):
    match_id, tokens = api.create(seed="etag")
    r = api.get(f"/api/matches/{match_id}/state", token=tokens[0])
    etag = r.headers["ETag"]
    again = api.get(f"/api/matches/{match_id}/state", token=tokens[0], headers={"If-None-Match": etag})
    assert again.status_code == 304
    # RFC 9110 §13.1.2: If-None-Match compares weakly, so a proxy's W/ prefix still matches
    weak = api.get(f"/api/matches/{match_id}/state", token=tokens[0], headers={"If-None-Match": f"W/{etag}"})
    assert weak.status_code == 304
    other = api.get(f"/api/matches/{match_id}/state", token=tokens[1], headers={"If-None-Match": etag})
    assert other.status_code == 200, "another seat's view must not be served from the first seat's ETag"
    seat, token = _turn_token(api, match_id, tokens)
    api.move(match_id, token, TAKE)
    assert (
        api.get(
            f"/api/matches/{match_id}/state", token=tokens[0], headers={"If-None-Match": etag}
        ).status_code
        == 200
    )


def test_the_etag_changes_when_the_last_seat_is_claimed_though_the_version_does_not(api):
    """A match without a clock starts without a new entry: a client polling with If-None-Match
    must not be told "not modified" while its view says the match is still waiting."""
    r = api.post("/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, None]})
    match_id, token = r.get_json()["match"]["id"], r.get_json()["tokens"]["0"]
    waiting = api.get(f"/api/matches/{match_id}/state", token=token)
    assert waiting.get_json()["status"] == "waiting"
    assert api.post(f"/api/matches/{match_id}/seats/1", {"name": "Bo"}).status_code == 201
    headers = {"If-None-Match": waiting.headers["ETag"]}
    started = api.get(f"/api/matches/{match_id}/state", token=token, headers=headers)
    assert started.status_code == 200 and started.get_json()["status"] == "active"
    assert started.get_json()["version"] == waiting.get_json()["version"]


def test_time_travel_to_a_missing_version_is_404(api, expect_problem):
    match_id, _ = api.create(seed="tt")
    expect_problem(api.get(f"/api/matches/{match_id}/state?version=5"), 404, "no-such-version")


def _sse(response):
    frames = []
    for block in response.get_data(as_text=True).split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":")
        )
        if "data" in fields and fields.get("event") == "entry":
            frames.append((int(fields["id"]), json.loads(fields["data"])))
    return frames


def test_stream_replays_history_and_resumes_from_last_event_id(api):
    match_id, tokens = api.create(seed="sse")
    play_to_end(api, match_id, tokens, random.Random(3))
    total = api.state(match_id)["version"]
    r = api.get(f"/api/matches/{match_id}/stream", token=tokens[0])
    assert r.mimetype == "text/event-stream"
    frames = _sse(r)
    assert [v for v, _ in frames] == list(range(1, total + 1))
    assert all(entry["version"] == v for v, entry in frames)
    resumed = _sse(api.get(f"/api/matches/{match_id}/stream", headers={"Last-Event-ID": str(total - 2)}))
    assert [v for v, _ in resumed] == [total - 1, total]
    by_query = _sse(api.get(f"/api/matches/{match_id}/stream?token={tokens[1]}&after={total - 1}"))
    assert [v for v, _ in by_query] == [total]


def test_stream_delivers_live_entries_and_keep_alives(app, api):
    match_id, tokens = api.create(seed="sse-live")
    seat, token = _turn_token(api, match_id, tokens)
    holder = {}

    def listen():
        holder["body"] = (
            app.test_client()
            .get(f"/api/matches/{match_id}/stream", headers={"Last-Event-ID": "1"})
            .get_data(as_text=True)
        )

    listener = threading.Thread(target=listen)
    listener.start()
    import time

    time.sleep(0.5)
    api.move(match_id, token, TAKE)
    listener.join(10)
    assert ": keep-alive" in holder["body"]
    assert "id: 2\n" in holder["body"] and "id: 1\n" not in holder["body"]


@pytest.mark.parametrize("bad", ["abc", "-3"])
def test_bad_last_event_id(api, expect_problem, bad):
    match_id, _ = api.create(seed="sse-bad")
    expect_problem(
        api.get(f"/api/matches/{match_id}/stream", headers={"Last-Event-ID": bad}), 400, "bad-last-event-id"
    )


def test_include_legal_moves_saves_a_request(api, matches):
    match_id, tokens = api.create(seed="include")
    seat, token = _turn_token(api, match_id, tokens)
    state = api.get(f"/api/matches/{match_id}/state?include=legal_moves", token=token).get_json()
    assert state["legal_moves"] == api.legal(match_id, token) != []
    r = api.post(f"/api/matches/{match_id}/moves?include=legal_moves", {"move": TAKE}, token=token)
    after = r.get_json()["state"]
    assert after["legal_moves"] == [] and after["active_seats"] == [1 - seat]  # not the caller's turn now
    other = api.get(f"/api/matches/{match_id}/state?include=legal_moves", token=tokens[1 - seat]).get_json()
    assert other["legal_moves"] == api.legal(match_id, tokens[1 - seat]) != []
    assert "legal_moves" not in api.state(match_id, token)
    assert api.get(f"/api/matches/{match_id}/state?include=legal_moves").get_json()["legal_moves"] == []


def test_a_process_whose_cached_match_is_behind_still_judges_moves_on_the_latest(app, redis_server, registry):
    """Moves are decided on this process's cached fold when it is warm; another
    process's appends make that fold stale, and then the move must be judged
    again on the latest state: accepted when it is legal now, stale/illegal
    exactly as if nothing had been cached."""
    from gameroom import create_app

    other = create_app({"redis_url": redis_server.url, "ai_mode": "off"}, registry)
    here, there = app.test_client(), other.test_client()

    def post(client, token, move, **body):
        return client.post(
            f"/api/matches/{match_id}/moves",
            json={"move": move, **body},
            headers={"Authorization": f"Bearer {token}"},
        )

    r = here.post(
        "/api/matches",
        json={
            "game": "nim",
            "seats": [{"name": "A"}, {"name": "B"}],
            "seed": "two-procs",
            "options": {"piles": [9, 9]},
        },
    )
    match_id = r.get_json()["match"]["id"]
    tokens = {int(k): v for k, v in r.get_json()["tokens"].items()}
    a = r.get_json()["match"]["active_seats"][0]
    b = 1 - a
    take = lambda pile, count: {"type": "take", "pile": pile, "count": count}  # noqa: E731
    assert post(here, tokens[a], take(0, 1)).status_code == 201  # v2 [8, 9]: cached here, b to move
    assert post(there, tokens[b], take(1, 1)).status_code == 201  # v3 [8, 8]
    assert post(there, tokens[a], take(1, 1)).status_code == 201  # v4 [8, 7]
    # Legal on here's cached v2 too, but the append finds v4: judged again there, still legal.
    r = post(here, tokens[b], take(1, 3))
    assert r.status_code == 201 and r.get_json()["version"] == 5, r.get_json()  # [8, 4]
    assert r.get_json()["state"]["view"]["piles"] == [8, 4]
    assert post(there, tokens[a], take(0, 1)).status_code == 201  # v6 [7, 4]
    # Here's cached v5 says it is a's turn: judged on v6, it is b's.
    r = post(here, tokens[b], take(0, 1))
    assert r.status_code == 201 and r.get_json()["version"] == 7, r.get_json()  # [6, 4]
    assert post(there, tokens[a], take(1, 4)).status_code == 201  # v8 [6, 0]
    # Legal on nothing here has seen at v8 (pile 1 is empty now): the latest state's refusal.
    r = post(here, tokens[b], take(1, 1))
    assert r.status_code == 422 and r.get_json()["rule"] == "too-many", r.get_json()
    # An expected_version newer than this process has seen is taken at its word (not stale)...
    r = post(here, tokens[b], take(0, 1), expected_version=8)
    assert r.status_code == 201 and r.get_json()["version"] == 9, r.get_json()
    # ...and one behind the latest is stale even though it equals what this process has cached.
    assert post(there, tokens[a], take(0, 1)).status_code == 201  # v10
    r = post(here, tokens[b], take(0, 1), expected_version=9)
    assert r.status_code == 409 and r.get_json()["code"] == "stale-version", r.get_json()
    assert r.get_json()["current_version"] == 10
    entries = there.get(f"/api/matches/{match_id}/events").get_json()["entries"]
    assert [e["version"] for e in entries] == list(range(1, 11))
