"""CORS: no origin is allowed by default; configured origins get their headers and preflights."""

import pytest

from gameroom import create_app

PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type",
}


@pytest.fixture
def cors_client(fast_paths, redis_server, redis_client, registry):
    app = create_app(
        {
            "redis_url": redis_server.url,
            "ai_mode": "off",
            "cors_origins": "http://page.example:8080, https://other.example",
        },
        registry,
    )
    return app.test_client()


def test_by_default_no_origin_is_allowed(client, expect_problem):
    r = client.get("/api/games", headers={"Origin": "http://page.example"})
    assert r.status_code == 200 and "Access-Control-Allow-Origin" not in r.headers
    refused = client.options("/api/matches", headers={"Origin": "http://page.example", **PREFLIGHT})
    expect_problem(refused, 403, "origin-not-allowed")
    assert "Access-Control-Allow-Origin" not in refused.headers


def test_a_configured_origin_gets_its_preflight_answered(cors_client):
    r = cors_client.options("/api/matches", headers={"Origin": "http://page.example:8080", **PREFLIGHT})
    assert r.status_code == 204
    assert r.headers["Access-Control-Allow-Origin"] == "http://page.example:8080"
    assert "POST" in r.headers["Access-Control-Allow-Methods"]
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "last-event-id"} <= allowed
    assert "Access-Control-Allow-Credentials" not in r.headers


def test_a_configured_origin_reads_responses_and_errors_others_do_not(cors_client, expect_problem):
    ok = cors_client.get("/api/games", headers={"Origin": "https://other.example"})
    assert ok.headers["Access-Control-Allow-Origin"] == "https://other.example"
    assert "Origin" in ok.headers["Vary"]
    error = cors_client.get("/api/matches/nope", headers={"Origin": "https://other.example"})
    expect_problem(error, 404, "unknown-match")
    assert error.headers["Access-Control-Allow-Origin"] == "https://other.example"
    stranger = cors_client.get("/api/games", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in stranger.headers
    refused = cors_client.options("/api/matches", headers={"Origin": "https://evil.example", **PREFLIGHT})
    expect_problem(refused, 403, "origin-not-allowed")


def test_with_origins_configured_the_lean_paths_answers_vary_by_origin_as_flasks_do(cors_client):
    """A response without an Origin must still say it varies by Origin (a cache could otherwise hand
    it to a page of an allowed origin, without its CORS headers): the lean paths as Flask's."""
    created = cors_client.post("/api/matches", json={"game": "nim", "seats": [None, None], "seed": "vary"})
    match_id = created.get_json()["match"]["id"]
    assert created.headers["Vary"] == "Origin"
    stranger = {"Origin": "https://evil.example"}  # not allowed: Flask adds Vary alone
    answers = []
    for headers in ({}, stranger):
        claim = cors_client.post(
            f"/api/matches/{match_id}/seats/{len(answers)}", json={"name": "x"}, headers=headers
        )
        token = claim.get_json()["token"]
        state = cors_client.get(
            f"/api/matches/{match_id}/state", headers={"Authorization": f"Bearer {token}", **headers}
        )
        refused = cors_client.post(
            f"/api/matches/{match_id}/moves",
            json={"move": {"type": "take"}},
            headers={"Authorization": "Bearer x", **headers},
        )
        nobody = cors_client.get("/api/matches/no-such-match/state", headers=headers)
        answers.append(
            [
                (r.status_code, r.headers.get("Vary"), r.headers.get("Access-Control-Allow-Origin"))
                for r in (claim, state, refused, nobody)
            ]
        )
    assert answers[0] == answers[1]
    assert [vary for _, vary, _ in answers[0]] == ["Origin"] * 4
