"""gameroom on a real Redis Cluster, through the real HTTP stack (issue 19 items 3 and 4).

Two ``gameroom serve`` processes (separate ports, their own gunicorn workers
and in-process caches) share the session's cluster (3 masters + 3 replicas)
through ``GAMEROOM_REDIS_URL=redis+cluster://...``; RQ's queue is a separate
plain redis-server (``GAMEROOM_QUEUE_REDIS_URL``), and the first server's AI
worker takes its jobs from there. Everything runs on the shipped defaults
apart from those two URLs.
"""

from __future__ import annotations

import random
import threading
import time

import pytest
import requests

from gameroom.testing.served import Served

#: Options that keep long games short enough for HTTP tests (the rules are unchanged).
SHORT = {"stars-are-right": {"turn_limit": 2}}


@pytest.fixture(scope="module")
def servers(redis_cluster, queue_redis_server, tmp_path_factory):
    """Two API processes on the cluster: ``(a, b)``; ``a`` runs one AI worker on the queue Redis."""
    redis_cluster.flushall()
    with queue_redis_server.client() as queue:
        queue.flushall()
    env = {"GAMEROOM_REDIS_URL": redis_cluster.url, "GAMEROOM_QUEUE_REDIS_URL": queue_redis_server.url}
    folder = tmp_path_factory.mktemp("cluster-serve")
    with Served(folder / "a", workers=2, ai_workers=1, env=env) as a:
        with Served(folder / "b", workers=2, ai_workers=0, env=env) as b:
            yield a, b


class Client:
    """A plain HTTP client of one server."""

    def __init__(self, server: Served):
        self.base = server.base
        self.session = requests.Session()

    def call(self, method, path, body=None, token=None, headers=None):
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        return self.session.request(method, self.base + path, json=body, headers=h, timeout=30)

    def create(self, game, seats, options=None, seed=None):
        body = {"game": game, "seats": seats, "options": options or {}}
        if seed:
            body["seed"] = seed
        r = self.call("POST", "/api/matches", body)
        assert r.status_code == 201, r.text
        data = r.json()
        return data["match"]["id"], {int(k): v for k, v in data["tokens"].items()}

    def summary(self, match_id):
        r = self.call("GET", f"/api/matches/{match_id}")
        assert r.status_code == 200, r.text
        return r.json()

    def state(self, match_id, token=None, version=None):
        q = f"?version={version}" if version else ""
        r = self.call("GET", f"/api/matches/{match_id}/state{q}", token=token)
        assert r.status_code == 200, r.text
        return r.json()

    def legal(self, match_id, token):
        r = self.call("GET", f"/api/matches/{match_id}/legal-moves", token=token)
        assert r.status_code == 200, r.text
        return r.json()["moves"]

    def move(self, match_id, token, move, expected_version=None, key=None):
        body = {"move": move}
        if expected_version is not None:
            body["expected_version"] = expected_version
        return self.call(
            "POST",
            f"/api/matches/{match_id}/moves",
            body,
            token=token,
            headers={"Idempotency-Key": key} if key else None,
        )

    def history(self, match_id, token=None):
        entries, after = [], 0
        while True:
            r = self.call("GET", f"/api/matches/{match_id}/events?after={after}&limit=500", token=token)
            assert r.status_code == 200, r.text
            page = r.json()["entries"]
            if not page:
                return entries
            entries += page
            after = page[-1]["version"]


def _games(client: Client) -> list[dict]:
    r = client.call("GET", "/api/games")
    assert r.status_code == 200
    return r.json() if isinstance(r.json(), list) else r.json()["games"]


def _nim_token_of_turn(client, match_id, tokens):
    seat = client.summary(match_id)["active_seats"][0]
    return seat, tokens[seat]


# -- create, claim, play every game to the end ---------------------------------


def test_the_servers_use_the_cluster(servers, redis_cluster):
    a, b = servers
    match_id, _ = Client(a).create("nim", [{"name": "Ana"}, {"name": "Bo"}])
    # The match's keys are on the cluster, all in one slot (the hash tag), served by one master.
    client = redis_cluster.client()
    try:
        assert client.exists(f"gameroom:{{{match_id}}}:events") == 1
        assert client.exists(f"gameroom:{{{match_id}}}:meta") == 1
        assert client.keyslot(f"gameroom:{{{match_id}}}:events") == client.keyslot(
            f"gameroom:{{{match_id}}}:meta"
        )
    finally:
        client.close()
    # The other process sees it at once: it is in the lobby of both.
    for server in (a, b):
        listed = Client(server).call("GET", "/api/matches?limit=100").json()["matches"]
        assert match_id in [m["id"] for m in listed]


def test_create_claim_and_play_every_game_to_the_end(servers):
    a, b = servers
    for game in _games(Client(a)):
        slug = game["slug"]
        n = max(2, game["min_players"])
        ca, cb = Client(a), Client(b)
        # Created on one process with one open seat, claimed on the other.
        match_id, tokens = ca.create(
            slug, [{"name": f"P{i}"} for i in range(n - 1)] + [None], SHORT.get(slug)
        )
        r = cb.call("POST", f"/api/matches/{match_id}/seats/{n - 1}", {"name": "Late"})
        assert r.status_code in (200, 201), r.text
        tokens[n - 1] = r.json()["token"]
        again = ca.call("POST", f"/api/matches/{match_id}/seats/{n - 1}", {"name": "Racer"})
        assert again.status_code == 409 and again.json()["code"] == "seat-taken"
        rnd = random.Random(slug)
        steps = 0
        while True:
            client = (ca, cb)[steps % 2]  # alternate processes, move by move
            summary = client.summary(match_id)
            if summary["status"] == "finished":
                break
            seat = rnd.choice(summary["active_seats"])
            moves = client.legal(match_id, tokens[seat])
            r = client.move(match_id, tokens[seat], rnd.choice(moves), expected_version=summary["version"])
            assert r.status_code == 201, (slug, r.text)
            steps += 1
            assert steps < 5000, f"{slug} did not end"
        assert summary["outcome"]["winners"] is not None, slug
        history = cb.history(match_id)
        assert [e["version"] for e in history] == list(range(1, steps + 2)), slug


# -- racing writers, across both processes -------------------------------------


def test_sixteen_racing_writers_across_two_processes_append_exactly_once_each(servers):
    """16 writers (8 per API process) each append one move to one match, racing: every one lands
    exactly once, the log has no gap and no duplicate."""
    a, b = servers
    match_id, tokens = Client(a).create("nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": [20, 20, 20]})
    barrier = threading.Barrier(16)
    landed: dict[int, int] = {}
    requests_of: dict[int, tuple] = {}
    errors: list = []
    lock = threading.Lock()

    def writer(i):
        client = Client((a, b)[i % 2])
        key = f"writer-{i}"
        barrier.wait(30)
        for _ in range(400):
            summary = client.summary(match_id)
            seat = summary["active_seats"][0]
            move = {"type": "take", "pile": i % 3, "count": 1}
            r = client.move(match_id, tokens[seat], move, expected_version=summary["version"], key=key)
            if r.status_code == 201:
                with lock:
                    landed[i] = r.json()["version"]
                    requests_of[i] = (tokens[seat], move, summary["version"])
                return
            if r.status_code != 409:
                errors.append((i, r.status_code, r.text))
                return
            time.sleep(random.random() * 0.02)
        errors.append((i, "gave up"))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert sorted(landed) == list(range(16))
    assert sorted(landed.values()) == list(range(2, 18)), "one distinct version per writer"
    history = Client(b).history(match_id)
    assert [e["version"] for e in history] == list(range(1, 18))
    # A retry of any writer's key, on either process, appends nothing and replays its version.
    for i in (0, 5):
        token, move, expected = requests_of[i]
        r = Client((b, a)[i % 2]).move(match_id, token, move, expected_version=expected, key=f"writer-{i}")
        assert r.status_code == 201, r.text
        assert r.json()["duplicate"] is True and r.json()["version"] == landed[i]
    assert len(Client(a).history(match_id)) == 17


def test_concurrent_retries_of_one_idempotency_key_on_both_processes(servers):
    a, b = servers
    match_id, tokens = Client(a).create("nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": [5, 5]})
    seat, token = _nim_token_of_turn(Client(a), match_id, tokens)
    barrier = threading.Barrier(8)
    answers = []

    def retry(i):
        client = Client((a, b)[i % 2])
        barrier.wait(30)
        r = client.move(match_id, token, {"type": "take", "pile": 0, "count": 2}, key="the-one")
        answers.append((r.status_code, r.json()))

    threads = [threading.Thread(target=retry, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert {status for status, _ in answers} == {201}, answers
    assert {body["version"] for _, body in answers} == {2}
    assert [body["duplicate"] for _, body in answers].count(False) == 1
    assert [e["version"] for e in Client(b).history(match_id)] == [1, 2]


# -- stale caches ---------------------------------------------------------------


def test_a_stale_process_never_accepts_a_move_the_latest_state_refuses(servers):
    """Process b caches the match at version 1; process a moves it on (pile 0 emptied). A move legal
    in b's cached state but not in the latest one is refused by b, and nothing is appended."""
    a, b = servers
    ca, cb = Client(a), Client(b)
    match_id, tokens = ca.create("nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": [1, 5]})
    first, token_first = _nim_token_of_turn(ca, match_id, tokens)
    second = 1 - first
    # b loads and caches version 1 in each of its workers (state, legal moves).
    for _ in range(4):
        assert cb.state(match_id, token_first)["version"] == 1
        assert {"type": "take", "pile": 0, "count": 1} in cb.legal(match_id, token_first)
    assert ca.move(match_id, token_first, {"type": "take", "pile": 1, "count": 1}).status_code == 201
    assert ca.move(match_id, tokens[second], {"type": "take", "pile": 0, "count": 1}).status_code == 201
    # Without expected_version (b decides on what it believes is the latest state): refused.
    for _ in range(4):
        r = cb.move(match_id, token_first, {"type": "take", "pile": 0, "count": 1})
        assert (r.status_code, r.json()["code"]) == (422, "illegal-move"), r.text
    # Naming the stale version: a conflict, never an append.
    r = cb.move(match_id, token_first, {"type": "take", "pile": 1, "count": 1}, expected_version=1)
    assert r.status_code == 409, r.text
    assert [e["version"] for e in ca.history(match_id)] == [1, 2, 3]
    # And b now answers from the latest state.
    assert cb.state(match_id, token_first)["version"] == 3
    assert {"type": "take", "pile": 0, "count": 1} not in cb.legal(match_id, token_first)
    # Out of turn in the latest state (b saw seat `first` to move at version 1; now it is again,
    # so ask the other seat, whose turn it was in between): refused as not its turn.
    r = cb.move(match_id, tokens[second], {"type": "take", "pile": 1, "count": 1})
    assert r.status_code == 403 and r.json()["code"] == "not-your-turn", r.text


# -- undo and time travel -------------------------------------------------------


def test_undo_with_consent_and_time_travel_across_processes(servers):
    a, b = servers
    ca, cb = Client(a), Client(b)
    match_id, tokens = ca.create("nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": [3, 4, 5]})
    seen = {1: ca.state(match_id)}
    rnd = random.Random(9)
    for version in range(2, 7):
        seat, token = _nim_token_of_turn(ca, match_id, tokens)
        r = (ca, cb)[version % 2].move(match_id, token, rnd.choice(ca.legal(match_id, token)))
        assert r.status_code == 201 and r.json()["version"] == version, r.text
        seen[version] = cb.state(match_id)
    # The last mover asks to undo on a; the other player approves on b.
    last = ca.history(match_id)[-1]["seat"]
    r = ca.call("POST", f"/api/matches/{match_id}/undo", {"steps": 1}, token=tokens[last])
    if r.status_code == 202:
        request_id = r.json()["request"]["id"]
        vote = cb.call(
            "POST",
            f"/api/matches/{match_id}/undo-requests/{request_id}",
            {"approve": True},
            token=tokens[1 - last],
        )
        assert vote.status_code in (200, 201), vote.text
    else:
        assert r.status_code == 201, r.text
    now = cb.state(match_id)
    assert now["version"] == 7
    assert now["view"] == seen[5]["view"], "the undo restores the state before the undone move"
    # Time travel: every past version, read on either process, is what was seen live then.
    for version, state in seen.items():
        for client in (ca, cb):
            past = client.state(match_id, version=version)
            assert past["version"] == version and past["view"] == state["view"]


# -- live streams (SSE) ---------------------------------------------------------


def _stream_ids(server: Served, match_id: str, want: int, found: list, ready: threading.Event):
    with requests.get(
        f"{server.base}/api/matches/{match_id}/stream",
        headers={"Accept": "text/event-stream", "Last-Event-ID": "1"},
        stream=True,
        timeout=(5, 30),
    ) as r:
        ready.set()
        for line in r.iter_lines():
            if line.startswith(b"id: "):
                found.append(int(line[4:]))
                if int(line[4:]) >= want:
                    return


def test_a_move_on_one_process_arrives_on_the_live_streams_of_both(servers):
    a, b = servers
    ca = Client(a)
    match_id, tokens = ca.create("nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": [4, 4]})
    streams = []
    for server in (a, b, b):
        found, ready = [], threading.Event()
        thread = threading.Thread(target=_stream_ids, args=(server, match_id, 3, found, ready), daemon=True)
        thread.start()
        assert ready.wait(15)
        streams.append((thread, found))
    time.sleep(0.5)  # the streams are registered with their process's hub
    for _ in range(2):
        seat, token = _nim_token_of_turn(ca, match_id, tokens)
        assert ca.move(match_id, token, {"type": "take", "pile": 0, "count": 1}).status_code == 201
    for thread, found in streams:
        thread.join(20)
        assert found == [2, 3], found


# -- AI seats through a worker on the separate queue Redis --------------------


def test_ai_seats_play_through_a_worker_on_the_queue_redis(servers, queue_redis_server):
    a, b = servers
    ca, cb = Client(a), Client(b)
    nim = next(g for g in _games(ca) if g["slug"] == "nim")
    level = nim["ai_levels"][0] if isinstance(nim["ai_levels"][0], str) else nim["ai_levels"][0]["name"]
    # Created on b (which runs no AI worker): the job goes to the queue Redis, a's worker plays it.
    match_id, tokens = cb.create("nim", [{"name": "Bot", "ai": level}, {"name": "Ana"}], {"piles": [3, 3]})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        summary = cb.summary(match_id)
        if summary["status"] == "finished":
            break
        if summary["active_seats"] == [1]:
            moves = cb.legal(match_id, tokens[1])
            assert (
                cb.move(match_id, tokens[1], moves[0], expected_version=summary["version"]).status_code == 201
            )
        else:
            time.sleep(0.1)
    assert summary["status"] == "finished", summary
    history = ca.history(match_id)
    assert any(e.get("seat") == 0 and e["kind"] == "move" for e in history), "the AI seat moved"
    # The jobs went through the queue Redis, not the cluster.
    with queue_redis_server.client() as queue:
        assert any(k.startswith(b"rq:") for k in queue.keys("rq:*"))
