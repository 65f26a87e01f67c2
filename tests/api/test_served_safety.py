"""Safety checks that need the real server: `gameroom serve` (gunicorn, embedded Redis) in
its own process. Chunked bodies over the limit (issue 13.3) and concurrent retries of
one Idempotency-Key (issue 15.4).
"""

import http.client
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from gameroom.config import Config
from gameroom.testing.served import Served

RETRIES = 6  # concurrent copies of each request


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # The shipped defaults (AI worker, body limits), on a free port with its own data folder.
    with Served(tmp_path_factory.mktemp("served"), workers=2) as served:
        yield served


def _chunked_post(server, path, prefix: bytes, filler: int, suffix: bytes):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)

    def body():
        yield prefix
        left = filler
        while left > 0:
            n = min(8192, left)
            left -= n
            yield b"x" * n
        yield suffix

    connection.request(
        "POST", path, body=body(), headers={"Content-Type": "application/json"}, encode_chunked=True
    )
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, response.getheader("Content-Type"), json.loads(data)


def _lobby_size(server):
    return len(requests.get(server.base + "/api/matches?limit=200", timeout=10).json()["matches"])


@pytest.mark.parametrize("path", ["/api/matches", "/api/matches/import"])
def test_chunked_bodies_over_the_limit_are_refused_with_413(server, path):
    before = _lobby_size(server)
    limit = Config().max_body if path == "/api/matches" else None
    if limit is None:  # the import's own limit, from the longest match an installed game allows
        limit = requests.get(server.base + "/api/games", timeout=10).json()
        longest = max(g["max_steps"] or Config().import_max_steps for g in limit)  # None: unbounded
        limit = Config().max_body + Config().import_step_bytes * (longest + 1)
    prefix = b'{"game": "nim", "seats": [{"name": "A"}, {"name": "B"}], "seed": "'
    status, content_type, problem = _chunked_post(server, path, prefix, limit + 10, b'"}')
    assert (status, problem["code"]) == (413, "body-too-large"), problem
    assert content_type == "application/problem+json"
    # Under the limit, the same chunked request is read whole (and judged on its content).
    status, _, body = _chunked_post(server, "/api/matches", prefix, 10, b'"}')
    assert status == 201, body
    assert _lobby_size(server) == before + 1


def _create(server, game, seats):
    r = requests.post(server.base + "/api/matches", json={"game": game, "seats": seats}, timeout=30)
    assert r.status_code == 201, r.text
    data = r.json()
    return data["match"]["id"], {int(k): v for k, v in data["tokens"].items()}


def _fire(server, match_id, jobs):
    """POST every (token, key, body) job RETRIES times at once; returns key -> [(status, json)]."""
    barrier = threading.Barrier(len(jobs) * RETRIES)
    answers = {key: [] for _, key, _ in jobs}
    lock = threading.Lock()

    def one(job):
        token, key, body = job
        session = requests.Session()
        barrier.wait(30)
        r = session.post(
            f"{server.base}/api/matches/{match_id}/moves",
            json=body,
            timeout=60,
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
        )
        with lock:
            answers[key].append((r.status_code, r.json()))

    with ThreadPoolExecutor(len(jobs) * RETRIES) as pool:
        list(pool.map(one, [job for job in jobs for _ in range(RETRIES)]))
    return answers


def _check_same_result(answers, applied: dict):
    """Every copy of a key got the original's result: one append, one version, one set of events."""
    for key, results in answers.items():
        statuses = {status for status, _ in results}
        assert statuses == {201}, (key, results)
        versions = {body["version"] for _, body in results}
        if all(body["state"].get("sealed_steps") for _, body in results):
            # A sealed step waits in its seat's draft: its answer's version is the log's at the
            # time of the answer, which other seats' entries may move between the copies. The
            # copies still share one step (one fresh answer, the same events), and at most the
            # other seats' moves of this burst came in between.
            assert max(versions) - min(versions) < len(answers), (key, results)
        else:
            assert len(versions) == 1, (key, results)
        assert [body["duplicate"] for _, body in results].count(False) <= 1, (key, results)
        assert len({json.dumps(body["events"], sort_keys=True) for _, body in results}) == 1
        applied[key] = min(versions)


def _history(server, match_id):
    entries, after = [], 0
    while True:
        page = requests.get(
            f"{server.base}/api/matches/{match_id}/events?after={after}&limit=500", timeout=30
        ).json()
        if not page["entries"]:
            return entries
        entries += page["entries"]
        after = entries[-1]["version"]


def test_concurrent_retries_of_one_idempotency_key_all_get_the_original_result_turn_based(server):
    match_id, tokens = _create(server, "nim", [{"name": "Ana"}, {"name": "Bo"}])
    applied, step = {}, 0
    while True:
        state = requests.get(f"{server.base}/api/matches/{match_id}/state", timeout=10).json()
        if state["status"] == "finished":
            break
        seat = state["active_seats"][0]
        legal = requests.get(
            f"{server.base}/api/matches/{match_id}/legal-moves",
            timeout=10,
            headers={"Authorization": f"Bearer {tokens[seat]}"},
        ).json()["moves"]
        body = {"move": legal[-1]}
        if step % 2:  # half the steps also name the version they were decided on
            body["expected_version"] = state["version"]
        _check_same_result(_fire(server, match_id, [(tokens[seat], f"step-{step}", body)]), applied)
        step += 1
    history = _history(server, match_id)
    assert [e["version"] for e in history] == list(range(1, len(history) + 1))  # gap-free
    assert len(history) == 1 + len(applied) and sorted(applied.values()) == list(range(2, len(history) + 1))


def test_concurrent_retries_of_one_idempotency_key_all_get_the_original_result_in_a_simultaneous_phase(
    server,
):
    # Look at the Stars: every seat acts at once, each seat's move retried concurrently.
    seats = [{"name": f"P{i}"} for i in range(4)]
    match_id, tokens = _create(server, "look-at-the-stars", seats)
    applied, rounds, simultaneous, sealed = {}, 0, 0, set()
    while rounds < 12:
        state = requests.get(f"{server.base}/api/matches/{match_id}/state", timeout=10).json()
        if state["status"] == "finished":
            break
        jobs = []
        for seat in state["active_seats"]:
            legal = requests.get(
                f"{server.base}/api/matches/{match_id}/legal-moves",
                timeout=10,
                headers={"Authorization": f"Bearer {tokens[seat]}"},
            ).json()["moves"]
            if legal:
                body = {"move": legal[0]}
                if rounds % 2:
                    body["expected_version"] = state["version"]
                jobs.append((tokens[seat], f"r{rounds}-s{seat}", body))
        simultaneous += len(jobs) > 1
        answers = _fire(server, match_id, jobs)
        _check_same_result(answers, applied)
        for key, results in answers.items():
            # a sealed step (in its seat's draft until it confirms) appends no entry
            if all(body["state"].get("sealed_steps") for _, body in results):
                sealed.add(key)
                assert applied[key] >= state["version"], (key, results)
        rounds += 1
    assert simultaneous >= 3, "the match never had a simultaneous phase"
    assert sealed, "no sealed step was retried"
    history = _history(server, match_id)
    assert [e["version"] for e in history] == list(range(1, len(history) + 1))
    # exactly one entry per key that appended: no double append, nothing lost
    assert sorted(v for k, v in applied.items() if k not in sealed) == list(range(2, len(history) + 1))
