"""Creating, listing and joining matches; games; probes."""

import threading

import pytest

from gameroom import create_app
from gameroom.eventstore import keys


def test_games_lists_installed_games_with_ai_levels(api):
    games = {g["slug"]: g for g in api.get("/api/games").get_json()}
    assert "nim" in games
    assert games["nim"]["distribution"] == "gameroom-nim"
    assert {"random", "greedy", "mcts"} <= set(games["nim"]["ai_levels"])
    detail = api.get("/api/games/nim").get_json()
    assert "piles" in detail["options_schema"]["properties"]
    assert detail["schemas"]["move"] == "NimMove"


def test_unknown_game_is_404(api, expect_problem):
    expect_problem(api.get("/api/games/chess"), 404, "unknown-game")
    expect_problem(api.post("/api/matches", {"game": "chess", "seats": [{"name": "a"}]}), 404, "unknown-game")


def test_create_returns_location_summary_and_one_token_per_human_seat(api):
    r = api.post("/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bot", "ai": "random"}]})
    assert r.status_code == 201
    body = r.get_json()
    match = body["match"]
    assert r.headers["Location"].endswith(f"/api/matches/{match['id']}")
    assert list(body["tokens"]) == ["0"]
    assert len(body["tokens"]["0"]) >= 32  # 192 random bits, URL-safe
    assert match["status"] == "active" and match["version"] == 1
    assert api.get(r.headers["Location"]).get_json()["id"] == match["id"]


def test_create_returns_the_opening_state_as_a_spectator_sees_it(api):
    r = api.post("/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
    body = r.get_json()
    spectator = api.get(f"/api/matches/{body['match']['id']}/state").get_json()
    assert body["state"] == spectator
    assert body["state"]["seat"] is None and body["state"]["version"] == 1


def test_tokens_are_stored_only_hashed(api, redis_client):
    match_id, tokens = api.create()
    dump = b"".join(k + b"".join(redis_client.dump(k) or b"" for _ in [0]) for k in redis_client.keys("*"))
    for token in tokens.values():
        assert token.encode() not in dump


def test_bad_requests_are_problems_and_create_nothing(api, expect_problem, redis_client):
    before = redis_client.zcard("gameroom:matches")
    expect_problem(
        api.post("/api/matches", {"game": "nim", "seats": [{"name": "solo"}]}), 422, "bad-seat-count"
    )
    body = expect_problem(
        api.post("/api/matches", {"game": "nim", "seats": [{"name": "a"}, {"name": "b", "ai": "god"}]}),
        422,
        "unknown-ai-level",
    )
    assert "seats" in body["errors"]
    body = expect_problem(
        api.post(
            "/api/matches",
            {"game": "nim", "seats": [{"name": "a"}, {"name": "b"}], "options": {"piles": "lots"}},
        ),
        422,
        "bad-options",
    )
    assert "piles" in body["errors"]["options"]
    body = expect_problem(api.post("/api/matches", {"seats": []}), 422, "validation-error")
    assert "game" in body["errors"]
    expect_problem(api.call("POST", "/api/matches", raw=b'{"game": "nim", '), 400, "malformed-json")
    expect_problem(api.call("POST", "/api/matches", raw=b"x" * 70_000), 413, "body-too-large")
    assert redis_client.zcard("gameroom:matches") == before


def test_open_seats_wait_for_claims_then_the_match_starts(api, expect_problem):
    match_id, tokens = api.create(seats=[{"name": "Ana"}, None])
    summary = api.get(f"/api/matches/{match_id}").get_json()
    assert summary["status"] == "waiting" and summary["seats"][1]["open"]
    expect_problem(
        api.move(match_id, tokens[0], {"type": "take", "pile": 0, "count": 1}), 409, "match-not-started"
    )
    assert api.legal(match_id, tokens[0]) == []
    r = api.post(f"/api/matches/{match_id}/seats/1", {"name": "Bo"})
    assert r.status_code == 201
    token1 = r.get_json()["token"]
    assert r.get_json()["match"]["status"] == "active"
    expect_problem(api.post(f"/api/matches/{match_id}/seats/1", {"name": "Cy"}), 409, "seat-taken")
    expect_problem(api.post(f"/api/matches/{match_id}/seats/7", {"name": "Cy"}), 404, "no-such-seat")
    active = api.state(match_id, token1)["active_seats"]
    assert active and (api.legal(match_id, token1) if active == [1] else api.legal(match_id, tokens[0]))


def test_lobby_filters_by_game_and_status(api):
    waiting, _ = api.create(seats=[{"name": "Ana"}, None])
    active, _ = api.create()
    listed = api.get("/api/matches?game=nim&status=waiting").get_json()["matches"]
    assert [m["id"] for m in listed] == [waiting]
    listed = api.get("/api/matches?status=active").get_json()["matches"]
    assert active in [m["id"] for m in listed] and waiting not in [m["id"] for m in listed]
    # the claim that fills the last seat moves the match to the active ones at once
    assert api.post(f"/api/matches/{waiting}/seats/1", {"name": "Bo"}).status_code == 201
    listed = api.get("/api/matches?status=active").get_json()["matches"]
    assert waiting in [m["id"] for m in listed]
    assert waiting not in [m["id"] for m in api.get("/api/matches?status=waiting").get_json()["matches"]]


def test_probes(api):
    assert api.get("/api/healthz").get_json() == {"status": "ok"}
    ready = api.get("/api/readyz").get_json()
    assert ready["status"] == "ready" and ready["games"] >= 1


def test_unknown_match_is_404_everywhere(api, expect_problem):
    for path in ["", "/state", "/legal-moves", "/events", "/stream"]:
        expect_problem(api.get(f"/api/matches/nope{path}"), 404, "unknown-match")
    expect_problem(
        api.post("/api/matches/nope/moves", {"move": {"type": "take"}}, token="x"), 404, "unknown-match"
    )


# -- claims with an Idempotency-Key: a claim whose answer was lost can be sent again -----------


def _claim(api, match_id, seat, name, key=None):
    headers = {"Idempotency-Key": key} if key is not None else {}
    return api.post(f"/api/matches/{match_id}/seats/{seat}", {"name": name}, headers=headers)


def test_a_claim_repeated_with_its_idempotency_key_gets_the_same_seat_and_token(
    api, expect_problem, redis_client
):
    match_id, tokens = api.create(seats=[{"name": "Ana"}, None])
    first = _claim(api, match_id, 1, "Bo", key="claim-7f3a")
    assert first.status_code == 201
    again = _claim(api, match_id, 1, "Bo", key="claim-7f3a")
    assert again.status_code == 201 and again.get_json() == first.get_json()
    token = first.get_json()["token"]
    # the token is stored as any other (hashed, one for the seat): the key left nothing else behind
    assert sorted(redis_client.hvals(keys.tokens(match_id))) == [b"0", b"1"]
    assert not redis_client.exists(keys.idempotency(match_id))
    [active] = api.state(match_id)["active_seats"]
    assert api.state(match_id, token)["seat"] == 1
    take = {"type": "take", "pile": 0, "count": 1}
    assert api.move(match_id, token if active == 1 else tokens[0], take).status_code == 201


def test_a_taken_seat_is_refused_to_any_other_claim_with_a_key_or_without(api, expect_problem):
    match_id, _ = api.create(seats=[{"name": "Ana"}, None])
    token = _claim(api, match_id, 1, "Bo", key="bo-key").get_json()["token"]
    expect_problem(_claim(api, match_id, 1, "Bo"), 409, "seat-taken")
    expect_problem(_claim(api, match_id, 1, "Bo", key="another-key"), 409, "seat-taken")
    expect_problem(_claim(api, match_id, 1, "Cy", key="bo-key"), 422, "idempotency-key-reused")
    expect_problem(_claim(api, match_id, 0, "Bo", key="bo-key"), 409, "seat-taken")  # the key is per seat
    expect_problem(_claim(api, match_id, 1, "Bo", key="k" * 129), 400, "bad-idempotency-key")
    expect_problem(_claim(api, match_id, 1, "Bo", key="bo\u00e9key"), 400, "bad-idempotency-key")
    assert _claim(api, match_id, 1, "Bo", key="bo-key").get_json()["token"] == token
    assert [s["name"] for s in api.get(f"/api/matches/{match_id}").get_json()["seats"]] == ["Ana", "Bo"]


def test_a_bad_key_claims_nothing(api, expect_problem):
    match_id, _ = api.create(seats=[{"name": "Ana"}, None])
    expect_problem(_claim(api, match_id, 1, "Bo", key="\x7f"), 400, "bad-idempotency-key")
    summary = api.get(f"/api/matches/{match_id}").get_json()
    assert summary["status"] == "waiting" and summary["seats"][1]["open"]


def test_racing_repeats_of_one_keyed_claim_all_get_the_seat_and_one_token(api):
    for _ in range(5):
        match_id, _ = api.create(seats=[{"name": "Ana"}, None])
        app = api.client.application
        barrier = threading.Barrier(8)
        replies = [None] * 8

        def claim(i, match_id=match_id, barrier=barrier, replies=replies):
            client = app.test_client()
            barrier.wait()
            replies[i] = client.post(
                f"/api/matches/{match_id}/seats/1", json={"name": "Bo"}, headers={"Idempotency-Key": "same"}
            )

        threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert [r.status_code for r in replies] == [201] * 8, [r.get_json() for r in replies]
        assert len({r.get_json()["token"] for r in replies}) == 1


@pytest.mark.parametrize("reproducible", [False, True])
def test_a_keyed_claim_repeated_to_another_server_process_gets_the_same_token(
    redis_server, registry, reproducible
):
    """A retry may reach another process, or the same one restarted: the token comes from the
    deployment's secret (stored in Redis), not from anything a process holds; reproducible seeds
    (which have no secret) change nothing of it."""
    config = {"redis_url": redis_server.url, "ai_mode": "off", "reproducible_seeds": reproducible}
    one, other = (create_app(config, registry).test_client() for _ in range(2))
    created = one.post("/api/matches", json={"game": "nim", "seats": [{"name": "Ana"}, None]}).get_json()
    path, key = f"/api/matches/{created['match']['id']}/seats/1", {"Idempotency-Key": "k-1"}
    first = one.post(path, json={"name": "Bo"}, headers=key).get_json()
    again = other.post(path, json={"name": "Bo"}, headers=key)
    assert again.status_code == 201 and again.get_json()["token"] == first["token"]


def test_a_keyed_claim_is_not_replayed_once_its_seat_was_left(api, expect_problem):
    match_id, _ = api.create(seats=[{"name": "Ana"}, None])
    token = _claim(api, match_id, 1, "Bo", key="bo-key").get_json()["token"]
    assert api.post(f"/api/matches/{match_id}/leave", {}, token=token).status_code == 201
    expect_problem(_claim(api, match_id, 1, "Bo", key="bo-key"), 409, "seat-taken")
