"""The live stream's contract in-process: caps with Retry-After, the end of a finished match,
each caller's own redaction."""

import json
import random
import threading
import time

import pytest

from gameroom import create_app


@pytest.fixture
def fast_paths():
    """One run, fast paths on (the default): no fast path serves a live stream (Flask's route and
    the stream hub's reader do either way); tests/api/conftest.py runs the rest both ways."""
    return True


@pytest.fixture
def capped(redis_server, redis_client, registry):
    return create_app(
        {
            "redis_url": redis_server.url,
            "ai_mode": "off",
            "sse_max_streams": 3,
            "sse_max_streams_per_client": 2,
            "sse_keepalive": 0.2,
            "sse_max_age": 2.0,
        },
        registry,
    )


def _open(client, match_id, addr):
    return client.get(f"/api/matches/{match_id}/stream", buffered=False, environ_base={"REMOTE_ADDR": addr})


def test_stream_caps_per_client_address_429_and_per_process_503_with_retry_after(capped, expect_problem):
    client = capped.test_client()
    created = client.post(
        "/api/matches", json={"game": "tic-tac-toe", "seats": [{"name": "X"}, {"name": "O"}]}
    )
    match_id = created.get_json()["match"]["id"]
    hub = capped.extensions["gameroom_hub"]
    held = [_open(client, match_id, "10.0.0.1"), _open(client, match_id, "10.0.0.1")]
    assert [r.status_code for r in held] == [200, 200] and hub.open_streams == 2
    third = _open(client, match_id, "10.0.0.1")
    expect_problem(third, 429, "too-many-streams")
    assert third.headers["Retry-After"] == "5"
    held.append(_open(client, match_id, "10.0.0.2"))
    assert held[-1].status_code == 200
    full = _open(client, match_id, "10.0.0.3")
    expect_problem(full, 503, "stream-capacity")
    assert full.headers["Retry-After"] == "5"
    # Moves and health checks are not streams: they still answer.
    assert client.get("/api/healthz").status_code == 200
    for response in held:
        response.close()
    assert hub.open_streams == 0
    again = _open(client, match_id, "10.0.0.1")
    assert again.status_code == 200
    again.close()


def test_a_finished_match_stream_sends_its_last_entries_then_ends_and_a_reconnect_gets_204(api):
    match_id, tokens = api.create(game="tic-tac-toe", seats=[{"name": "X"}, {"name": "O"}])
    for i, cell in enumerate([0, 3, 1, 4, 2]):
        assert api.move(match_id, tokens[i % 2], {"type": "mark", "cell": cell}).status_code == 201
    body = api.get(f"/api/matches/{match_id}/stream", headers={"Last-Event-ID": "4"}).get_data(as_text=True)
    frames = body.split("\n\n")
    assert "id: 5\nevent: entry" in frames[1] and "id: 6\nevent: entry" in frames[2]
    assert frames[3] == 'event: end\ndata: {"version":6}'
    assert ": keep-alive" not in body  # it ended at once, without waiting
    done = api.get(f"/api/matches/{match_id}/stream", headers={"Last-Event-ID": "6"})
    assert done.status_code == 204 and done.get_data() == b""
    assert "Content-Type" not in done.headers  # no body: no type (it said text/html)


def test_resuming_after_a_version_the_match_does_not_have_is_refused(api, expect_problem):
    match_id, _ = api.create(game="tic-tac-toe", seats=[{"name": "X"}, {"name": "O"}])
    expect_problem(
        api.get(f"/api/matches/{match_id}/stream", headers={"Last-Event-ID": "2"}), 400, "bad-last-event-id"
    )
    expect_problem(api.get(f"/api/matches/{match_id}/stream?after=99"), 400, "bad-last-event-id")


def test_a_stream_given_two_different_tokens_is_refused_not_served_to_either(api, expect_problem):
    """The header's token and ``?token=`` must agree: taking one silently would show a seat's
    view to a client that may have meant the other."""
    match_id, tokens = api.create(game="tic-tac-toe", seats=[{"name": "X"}, {"name": "O"}])
    path = f"/api/matches/{match_id}/stream"
    expect_problem(api.get(f"{path}?token={tokens[1]}", token=tokens[0]), 400, "conflicting-tokens")
    expect_problem(api.get(f"{path}?token=nonsense", token=tokens[0]), 400, "conflicting-tokens")
    same = api.get(f"{path}?token={tokens[0]}&after=99", token=tokens[0])
    expect_problem(same, 400, "bad-last-event-id")  # the same token twice is taken: the next check speaks


def _entries(body):
    frames = []
    for block in body.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":")
        )
        if fields.get("event") == "entry":
            frames.append(json.loads(fields["data"]))
    return frames


def test_live_streams_show_each_seat_only_what_its_history_shows(redis_server, redis_client, registry, api):
    """Streams of one match share the hub's entries and the encoded frames of one seat:
    every stream still carries exactly its own caller's redaction, as /events does."""
    match_id, tokens = api.create(game="tiny-stellar-empires", seats=[{"name": "A"}, {"name": "B"}])
    start = api.state(match_id)["version"]
    callers = {"seat0": tokens[0], "seat0-again": tokens[0], "seat1": tokens[1], "spectator": None}
    bodies = {}

    def listen(name, token):
        path = f"/api/matches/{match_id}/stream" + (f"?token={token}" if token else "")
        bodies[name] = (
            app.test_client().get(path, headers={"Last-Event-ID": str(start)}).get_data(as_text=True)
        )

    # Streams that stay open while the moves are played (up to 10 s), in a second app on the same Redis.
    app = create_app({"redis_url": redis_server.url, "ai_mode": "off", "sse_max_age": 10.0}, registry)
    listeners = [threading.Thread(target=listen, args=item) for item in callers.items()]
    for t in listeners:
        t.start()
    time.sleep(0.5)
    rnd = random.Random(7)
    for _ in range(8):
        summary = api.get(f"/api/matches/{match_id}").get_json()
        if summary["status"] == "finished":
            break
        seat = rnd.choice(summary["active_seats"])
        assert (
            api.move(match_id, tokens[seat], rnd.choice(api.legal(match_id, tokens[seat]))).status_code == 201
        )
    for t in listeners:
        t.join(15)
    seen = {name: _entries(body) for name, body in bodies.items()}
    for name, token in callers.items():
        history = api.get(f"/api/matches/{match_id}/events?after={start}", token=token).get_json()["entries"]
        assert seen[name] == history and len(history) >= 8, name
    # Not vacuous: some seat saw what a spectator did not (hidden draws). Which seat depends on the
    # secret seed: a seat that drew nothing in these moves sees what a spectator sees.
    assert seen["spectator"] != seen["seat0"] or seen["spectator"] != seen["seat1"]
    assert seen["seat0"] == seen["seat0-again"]  # one seat, two streams: the same frames


def test_a_stream_whose_seat_was_left_and_reclaimed_stops_before_the_new_holders_entries(
    redis_server, registry, api, expect_problem
):
    """A seat's stream opened before its player left ends without sending anything from the
    leave on: the seat's hidden draws are the next holder's to see, not the departed token's."""
    created = api.post(
        "/api/matches", {"game": "tiny-stellar-empires", "seats": [{"name": "A"}, {"name": "B"}]}
    ).get_json()
    match_id, admin = created["match"]["id"], created["admin_token"]
    tokens = {int(k): v for k, v in created["tokens"].items()}
    start = api.state(match_id)["version"]
    bodies = {}

    def listen(name, token):
        path = f"/api/matches/{match_id}/stream" + (f"?token={token}" if token else "")
        bodies[name] = (
            app.test_client().get(path, headers={"Last-Event-ID": str(start)}).get_data(as_text=True)
        )

    app = create_app({"redis_url": redis_server.url, "ai_mode": "off", "sse_max_age": 10.0}, registry)
    listeners = [
        threading.Thread(target=listen, args=item) for item in (("old", tokens[0]), ("spectator", None))
    ]
    for t in listeners:
        t.start()
    time.sleep(0.5)
    rnd = random.Random(3)

    def play(moves):
        for _ in range(moves):
            summary = api.get(f"/api/matches/{match_id}").get_json()
            if summary["status"] == "finished":
                return
            seat = rnd.choice(summary["active_seats"])
            assert (
                api.move(match_id, tokens[seat], rnd.choice(api.legal(match_id, tokens[seat]))).status_code
                == 201
            )

    play(3)
    left = api.post(f"/api/matches/{match_id}/leave", {}, token=tokens[0])
    assert left.status_code == 201, left.get_json()
    reclaimed = api.post(f"/api/matches/{match_id}/seats/0/reclaim", token=admin)
    assert reclaimed.status_code == 201, reclaimed.get_json()
    old, tokens[0] = tokens[0], reclaimed.get_json()["token"]
    play(6)
    for t in listeners:
        t.join(15)
    seen = {name: [e["version"] for e in _entries(body)] for name, body in bodies.items()}
    leave_version = left.get_json()["version"]
    assert seen["old"] and max(seen["old"]) < leave_version, seen["old"]
    assert max(seen["spectator"]) > leave_version + 2  # the match went on, and streams saw it
    expect_problem(api.get(f"/api/matches/{match_id}/stream?token={old}"), 401, "bad-token")


def test_refusals_at_the_stream_cap_are_logged_once_not_once_per_request(capped, caplog, monkeypatch):
    import logging

    from gameroom.api import stream
    from gameroom.api.throttle import ThrottledLog

    monkeypatch.setattr(
        stream, "_capacity_log", ThrottledLog(logging.getLogger(stream.__name__), logging.WARNING)
    )
    client = capped.test_client()
    created = client.post(
        "/api/matches", json={"game": "tic-tac-toe", "seats": [{"name": "X"}, {"name": "O"}]}
    )
    match_id = created.get_json()["match"]["id"]
    held = [_open(client, match_id, f"10.0.1.{i}") for i in range(3)]
    caplog.set_level(logging.INFO)
    caplog.clear()
    refused = [_open(client, match_id, f"10.0.2.{i}") for i in range(20)]
    assert {r.status_code for r in refused} == {503}
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and "the most it allows" in lines[0], lines
    for response in held + refused:
        response.close()


def test_refusals_at_the_per_client_cap_are_logged_once_naming_the_client_not_once_per_request(
    capped, caplog, monkeypatch
):
    import logging

    from gameroom.api import stream
    from gameroom.api.throttle import ThrottledLog

    monkeypatch.setattr(
        stream, "_client_cap_log", ThrottledLog(logging.getLogger(stream.__name__), logging.WARNING)
    )
    client = capped.test_client()
    created = client.post(
        "/api/matches", json={"game": "tic-tac-toe", "seats": [{"name": "X"}, {"name": "O"}]}
    )
    match_id = created.get_json()["match"]["id"]
    token = created.get_json()["tokens"]["0"]
    held = [_open(client, match_id, "10.0.3.1") for _ in range(2)]
    caplog.set_level(logging.INFO)
    caplog.clear()
    refused = [
        client.get(
            f"/api/matches/{match_id}/stream?token={token}",
            buffered=False,
            environ_base={"REMOTE_ADDR": "10.0.3.1"},
        )
        for _ in range(20)
    ]
    assert {r.status_code for r in refused} == {429}
    lines = [r.getMessage() for r in caplog.records if r.name == stream.__name__]
    assert len(lines) == 1, lines
    assert "client 10.0.3.1 has 2 live streams open" in lines[0], lines
    assert token not in lines[0]
    for response in held + refused:
        response.close()
