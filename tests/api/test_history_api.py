"""Undo (every branch), time travel after undo, fork, export and import, over HTTP."""

import json
import random
import threading

import pytest

from gameroom import create_app
from gameroom.core import decider
from gameroom.core.rng import rng_for
from gameroom.eventstore import keys
from gameroom.eventstore.records import UNDO_SETTLED_KEPT
from gameroom.registry import build_registry
from gameroom.testing import dice


@pytest.fixture
def app(fast_paths, redis_server, redis_client):
    """The app with the dice-race test game installed beside the real plugins."""
    registry = build_registry(extra_plugins=[("dice", dice)])
    app = create_app({"redis_url": redis_server.url, "ai_mode": "off"}, registry)
    app.config["TESTING"] = True
    return app


class Plain:
    """Like the spec-checking client, without response validation (dice-race is not in openapi.yaml)."""

    def __init__(self, client):
        self.client = client

    def post(self, path, body=None, token=None, headers=None):
        headers = {**(headers or {}), **({"Authorization": f"Bearer {token}"} if token else {})}
        return self.client.post(path, json=body, headers=headers)

    def get(self, path, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.client.get(path, headers=headers)

    def create(self, seats=2, ai=()):
        specs = [{"name": f"P{i}", **({"ai": "random"} if i in ai else {})} for i in range(seats)]
        r = self.post("/api/matches", {"game": "dice-race", "seats": specs, "seed": "s"})
        assert r.status_code == 201, r.get_json()
        body = r.get_json()
        return body["match"]["id"], {int(k): v for k, v in body["tokens"].items()}

    def play(self, match_id, token, kind):
        r = self.post(f"/api/matches/{match_id}/moves", {"move": {"type": kind}}, token=token)
        assert r.status_code == 201, r.get_json()
        return r.get_json()

    def state(self, match_id, token=None, version=None):
        q = f"?version={version}" if version else ""
        return self.get(f"/api/matches/{match_id}/state{q}", token=token).get_json()

    def undo(self, match_id, token, steps=1, key=None, **body):
        headers = {"Idempotency-Key": key} if key is not None else {}
        return self.post(
            f"/api/matches/{match_id}/undo", {"steps": steps, **body}, token=token, headers=headers
        )

    def vote(self, match_id, rid, token, approve):
        return self.post(f"/api/matches/{match_id}/undo-requests/{rid}", {"approve": approve}, token=token)


@pytest.fixture
def h(client):
    return Plain(client)


def test_self_undo_within_a_turn_applies_at_once(h):
    m, t = h.create()
    before = h.state(m, t[0])
    h.play(m, t[0], "step")
    r = h.undo(m, t[0])
    assert r.status_code == 201 and r.get_json()["status"] == "applied"
    after = h.state(m, t[0])
    assert after["view"] == before["view"] and after["version"] == 3
    entries = h.get(f"/api/matches/{m}/events").get_json()["entries"]
    assert [(e["kind"], e["undone"]) for e in entries] == [("setup", False), ("move", True), ("undo", False)]
    assert entries[2]["target"] == 1
    assert "state" not in entries[2], "the restored state holds hidden information: never in history"


def test_undo_request_approved_by_the_other_human(h):
    m, t = h.create(3)
    h.play(m, t[0], "step")
    h.play(m, t[1], "step")
    r = h.undo(m, t[0])
    assert r.status_code == 202
    request = r.get_json()["request"]
    assert request["status"] == "pending" and set(request["votes"]) == {"1", "2"}
    assert h.vote(m, request["id"], t[0], True).get_json()["code"] == "not-a-voter"
    first = h.vote(m, request["id"], t[1], True).get_json()
    assert first["request"]["status"] == "pending" and h.state(m)["version"] == 3
    done = h.vote(m, request["id"], t[2], True).get_json()
    assert done["request"]["status"] == "approved" and done["entry"]["kind"] == "undo"
    assert h.state(m)["view"] == h.state(m, version=1)["view"]


def test_undo_request_refused(h):
    m, t = h.create()
    h.play(m, t[0], "step")
    h.play(m, t[1], "step")
    request = h.undo(m, t[0]).get_json()["request"]
    assert h.vote(m, request["id"], t[1], False).get_json()["request"]["status"] == "refused"
    assert h.state(m)["version"] == 3
    assert h.vote(m, request["id"], t[1], True).get_json()["code"] == "undo-request-refused"


def test_undo_request_withdrawn_by_a_new_move(h):
    m, t = h.create()
    h.play(m, t[0], "step")
    h.play(m, t[1], "step")
    request = h.undo(m, t[0]).get_json()["request"]
    h.play(m, t[0], "step")
    assert h.get(f"/api/matches/{m}/undo-requests/{request['id']}").get_json()["status"] == "withdrawn"
    r = h.vote(m, request["id"], t[1], True)
    assert r.status_code == 409 and r.get_json()["code"] == "undo-request-withdrawn"
    assert h.state(m)["version"] == 4


def test_ai_seats_do_not_block_an_undo(h):
    m, t = h.create(2, ai={1})
    h.play(m, t[0], "step")
    # No worker runs here: play the AI seat's move through the same command path.
    h.client.application.extensions["gameroom"].submit(m, 1, {"type": "step"})
    r = h.undo(m, t[0])
    assert r.status_code == 201 and r.get_json()["status"] == "applied"
    assert h.state(m)["view"] == h.state(m, version=1)["view"]


def test_undo_is_refused_across_a_random_draw_whoever_asks(h):
    m, t = h.create()
    h.play(m, t[0], "roll")
    for token in (t[0], t[1]):
        r = h.undo(m, token)
        assert r.status_code == 409
        assert r.get_json()["code"] in ("undo-crosses-reveal", "nothing-to-undo")
    assert h.undo(m, t[0]).get_json()["code"] == "undo-crosses-reveal"
    assert h.undo(m, t[1]).get_json()["code"] == "nothing-to-undo"
    assert h.state(m)["version"] == 2


def test_undo_of_more_steps_than_the_seat_made_says_how_many_it_has(h):
    """Nim has no draw or reveal: five steps asked of a seat with one is not "behind a reveal"."""
    r = h.post("/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
    m, t = r.get_json()["match"]["id"], {int(k): v for k, v in r.get_json()["tokens"].items()}
    first = h.state(m)["active_seats"][0]
    take = {"move": {"type": "take", "pile": 0, "count": 1}}
    for seat in (first, 1 - first):
        assert h.post(f"/api/matches/{m}/moves", take, token=t[seat]).status_code == 201
    r = h.undo(m, t[1 - first], steps=5)
    assert r.status_code == 409 and r.get_json()["code"] == "bad-undo-steps"
    assert r.get_json()["detail"] == "You have only 1 step to undo."
    assert h.state(m)["version"] == 3
    # a change of hands stands in the way as well, and is named
    assert h.post(f"/api/matches/{m}/leave", {}, token=t[first]).status_code == 201
    r = h.undo(m, t[1 - first])
    assert r.status_code == 409 and r.get_json()["code"] == "bad-undo-steps"
    assert r.get_json()["detail"] == (
        "None of your steps can be undone: your last one is behind the match's start or a change of hands "
        "(a leave, a reclaim or a timeout)."
    )
    assert h.state(m)["version"] == 4


def test_undo_needs_a_seat(h):
    m, _ = h.create()
    assert h.post(f"/api/matches/{m}/undo", {}).status_code == 401


@pytest.mark.parametrize("seed", range(6))
def test_property_random_undos_time_travel_equals_live(h, seed):
    rnd = random.Random(seed)
    m, t = h.create(rnd.choice([2, 3]))
    live = {1: {s: h.state(m, tok) for s, tok in t.items()}}
    for _ in range(60):
        state = h.state(m)
        if state["status"] == "finished":
            break
        if rnd.random() < 0.35:
            seat = rnd.choice(list(t))
            r = h.undo(m, t[seat], rnd.choice([1, 2]))
            if r.status_code == 202:
                rid = r.get_json()["request"]["id"]
                for voter in t:
                    if voter != seat:
                        h.vote(m, rid, t[voter], True)
            elif r.status_code == 201:
                target = r.get_json()["entry"]["target"]
                assert r.get_json()["state"]["view"] == live[target][seat]["view"]
        else:
            [seat] = state["active_seats"]
            h.play(m, t[seat], rnd.choice(["step", "step", "roll"]))
        version = h.state(m)["version"]
        live[version] = {s: h.state(m, tok) for s, tok in t.items()}
    for version, views in live.items():
        for s, tok in t.items():
            assert h.state(m, tok, version=version) == views[s]


def _finished(h, seats=2):
    m, t = h.create(seats)
    while True:
        state = h.state(m)
        if state["status"] == "finished":
            return m, t
        [seat] = state["active_seats"]
        h.play(m, t[seat], "roll")


def test_export_import_round_trip_and_tampering_is_refused(h):
    m, t = _finished(h)
    doc = h.get(f"/api/matches/{m}/export").get_json()
    assert doc["complete"] and doc["seed"] and doc["entries"][0]["kind"] == "setup"
    r = h.post("/api/matches/import", doc)
    assert r.status_code == 201, r.get_json()
    imported = r.get_json()["match"]
    assert (
        imported["status"] == "finished"
        and imported["outcome"] == h.get(f"/api/matches/{m}").get_json()["outcome"]
    )
    assert h.state(imported["id"])["view"] == h.state(m)["view"]
    tampered = {**doc, "entries": [dict(e) for e in doc["entries"]]}
    tampered["entries"][2] = {
        **tampered["entries"][2],
        "events": [{**tampered["entries"][2]["events"][0], "squares": 6}],
    }
    if tampered["entries"][2]["events"] == doc["entries"][2]["events"]:
        tampered["entries"][2]["events"][0]["squares"] = 5
    r = h.post("/api/matches/import", tampered)
    assert r.status_code == 422 and r.get_json()["code"] == "tampered-log"
    assert r.get_json()["version"] == 3 and r.get_json()["detail"].startswith("Version 3:")
    assert (
        h.post(f"/api/matches/{imported['id']}/moves", {"move": {"type": "step"}}, token=t[0]).status_code
        == 401
    )


def test_export_of_a_running_match_is_redacted_and_cannot_be_imported(h):
    m, t = h.create()
    h.play(m, t[0], "step")
    doc = h.get(f"/api/matches/{m}/export", token=t[1]).get_json()
    assert not doc["complete"] and "seed" not in doc
    assert "move" not in doc["entries"][1]  # the command is its author's
    r = h.post("/api/matches/import", doc)
    assert r.status_code == 422 and r.get_json()["code"] == "export-incomplete"


def test_fork_a_finished_match_from_a_prefix(h):
    m, _ = _finished(h)
    r = h.post(f"/api/matches/{m}/fork", {"version": 3})
    assert r.status_code == 201, r.get_json()
    fork = r.get_json()
    assert fork["match"]["version"] == 3 and fork["match"]["status"] == "active"
    assert h.state(fork["match"]["id"])["view"] == h.state(m, version=3)["view"]
    [seat] = fork["match"]["active_seats"]
    h.play(fork["match"]["id"], fork["tokens"][str(seat)], "step")
    live, _ = h.create()
    assert h.post(f"/api/matches/{live}/fork", {"version": 1}).get_json()["code"] == "match-not-finished"


def test_every_view_is_public_once_the_match_is_over(h):
    m, t = h.create()
    r = h.get(f"/api/matches/{m}/state?seat=1", token=t[0])
    assert r.status_code == 403
    m, t = _finished(h)
    assert h.get(f"/api/matches/{m}/state?seat=1").get_json()["seat"] == 1


def test_pending_undo_requests_are_listed_until_voted_on(h):
    m, t = h.create()
    h.play(m, t[0], "step")
    h.play(m, t[1], "step")
    assert h.get(f"/api/matches/{m}/undo-requests").get_json() == {"requests": []}
    request = h.undo(m, t[0]).get_json()["request"]
    listed = h.get(f"/api/matches/{m}/undo-requests").get_json()["requests"]
    assert [r["id"] for r in listed] == [request["id"]] and listed[0]["votes"] == {"1": None}
    h.vote(m, request["id"], t[1], True)
    assert h.get(f"/api/matches/{m}/undo-requests").get_json() == {"requests": []}


def test_undo_requests_of_an_unknown_match_are_404(h):
    r = h.get("/api/matches/nope/undo-requests")
    assert r.status_code == 404


def _two_rounds(h):
    """A match where each seat made two steps: seat 0 may ask to undo one or two of its steps."""
    m, t = h.create()
    for _ in range(2):
        h.play(m, t[0], "step")
        h.play(m, t[1], "step")
    return m, t


def _listed(h, m):
    return h.get(f"/api/matches/{m}/undo-requests").get_json()["requests"]


def test_asking_again_for_the_same_undo_returns_the_seats_pending_request(h):
    m, t = _two_rounds(h)
    replies = [h.undo(m, t[0]) for _ in range(5)]
    assert [r.status_code for r in replies] == [202] * 5
    first = replies[0].get_json()["request"]
    assert {r.get_json()["request"]["id"] for r in replies} == {first["id"]}
    assert [r["id"] for r in _listed(h, m)] == [first["id"]]
    assert h.vote(m, first["id"], t[1], True).get_json()["request"]["status"] == "approved"
    assert h.state(m)["version"] == 6 and _listed(h, m) == []  # one undo, applied once


def test_a_repeat_after_a_vote_returns_the_request_with_that_vote(h):
    m, t = h.create(3)
    for seat in range(3):
        h.play(m, t[seat], "step")
    first = h.undo(m, t[0]).get_json()["request"]
    h.vote(m, first["id"], t[1], True)
    again = h.undo(m, t[0])
    assert again.status_code == 202
    assert again.get_json()["request"] == {**first, "votes": {"1": True, "2": None}}


def test_asking_for_other_steps_withdraws_the_seats_pending_request(h):
    m, t = _two_rounds(h)
    one = h.undo(m, t[0], steps=1).get_json()["request"]
    two = h.undo(m, t[0], steps=2)
    assert two.status_code == 202
    two = two.get_json()["request"]
    assert two["id"] != one["id"] and two["steps"] == 2 and two["status"] == "pending"
    assert [r["id"] for r in _listed(h, m)] == [two["id"]]
    assert h.get(f"/api/matches/{m}/undo-requests/{one['id']}").get_json()["status"] == "withdrawn"
    r = h.vote(m, one["id"], t[1], True)
    assert r.status_code == 409 and r.get_json()["code"] == "undo-request-withdrawn"
    assert h.vote(m, two["id"], t[1], True).get_json()["entry"]["target"] == 1


def test_each_seat_has_its_own_pending_request_and_a_repeat_adds_none(h):
    m, t = h.create(3)
    for seat in range(3):
        h.play(m, t[seat], "step")
    mine = h.undo(m, t[0]).get_json()["request"]
    theirs = h.undo(m, t[1]).get_json()["request"]
    assert h.undo(m, t[0]).get_json()["request"]["id"] == mine["id"]
    assert [(r["seat"], r["id"]) for r in _listed(h, m)] == [(0, mine["id"]), (1, theirs["id"])]


def test_a_flood_of_undo_requests_leaves_a_bounded_few_stored(h, redis_client):
    m, t = _two_rounds(h)
    for i in range(60):
        assert h.undo(m, t[0], steps=1 + i % 2).status_code == 202  # each one replaces the last
    assert len(_listed(h, m)) == 1
    assert redis_client.hlen(keys.undo_requests(m)) <= UNDO_SETTLED_KEPT + 1
    h.play(m, t[0], "step")
    assert _listed(h, m) == []


def test_reading_undo_requests_writes_nothing(h, redis_client):
    m, t = _two_rounds(h)
    request = h.undo(m, t[0]).get_json()["request"]
    h.play(m, t[0], "step")  # withdraws it
    undo_keys = [keys.undo_requests(m), keys.undo_pending(m), keys.undo_settled(m)]
    before = [redis_client.dump(k) for k in undo_keys]
    assert _listed(h, m) == []
    assert h.get(f"/api/matches/{m}/undo-requests/{request['id']}").get_json()["status"] == "withdrawn"
    assert [redis_client.dump(k) for k in undo_keys] == before


def _race(h, *calls):
    """Run ``calls`` (each given its own client, as if from its own process) at once; their replies."""
    barrier = threading.Barrier(len(calls))
    replies = [None] * len(calls)

    def run(i, call):
        own = Plain(h.client.application.test_client())
        barrier.wait()
        replies[i] = call(own)

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return replies


def test_racing_identical_undo_requests_open_one_request(h):
    m, t = _two_rounds(h)
    replies = _race(h, *[lambda own: own.undo(m, t[0])] * 6)
    assert [r.status_code for r in replies] == [202] * 6
    ids = {r.get_json()["request"]["id"] for r in replies}
    assert len(ids) == 1 and [r["id"] for r in _listed(h, m)] == list(ids)
    assert h.vote(m, ids.pop(), t[1], True).get_json()["request"]["status"] == "approved"
    entries = h.get(f"/api/matches/{m}/events").get_json()["entries"]
    assert [e["kind"] for e in entries].count("undo") == 1


def test_R2_3_look_at_the_stars_own_steps_are_undone_at_once_over_http(api, expect_problem):
    """LATS R2.3 over HTTP: 201 applied although the other seat acted in between, its step
    kept and its view unchanged; the steps were sealed in the seat's draft, so the undo
    appends nothing (no entry); after confirming, 409 undo-crosses-confirm."""
    seats = [{"name": "Ana"}, {"name": "Bo"}]
    match_id, tokens = api.create("look-at-the-stars", seats, seed="r23-http")
    start = api.state(match_id, tokens[0])
    mine = next(m for m in api.legal(match_id, tokens[0]) if m["type"] != "confirm_turn")
    assert api.move(match_id, tokens[0], mine).status_code == 201
    theirs = next(m for m in api.legal(match_id, tokens[1]) if m["type"] != "confirm_turn")
    assert api.move(match_id, tokens[1], theirs).status_code == 201
    bo_before = api.state(match_id, tokens[1])
    r = api.post(f"/api/matches/{match_id}/undo", {"steps": 1}, token=tokens[0])
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["status"] == "applied" and "entry" not in body
    assert body["state"]["view"] == start["view"]  # Ana's sheet as at the turn's start
    assert body["state"]["version"] == start["version"] == 1
    bo_after = api.state(match_id, tokens[1])
    assert bo_after["view"] == bo_before["view"]  # Bo's drawing is kept
    assert api.get(f"/api/matches/{match_id}/undo-requests").get_json()["requests"] == []
    events = api.get(f"/api/matches/{match_id}/events", token=tokens[1]).get_json()["entries"]
    assert [e["version"] for e in events] == [1]  # neither step nor the undo reached the log
    assert api.move(match_id, tokens[0], {"type": "skip_card"}).status_code == 201
    assert api.move(match_id, tokens[0], {"type": "confirm_turn"}).status_code == 201
    expect_problem(
        api.post(f"/api/matches/{match_id}/undo", {"steps": 1}, token=tokens[0]), 409, "undo-crosses-confirm"
    )
    r = api.post(f"/api/matches/{match_id}/undo", {"steps": 1}, token=tokens[1])  # Bo has not confirmed
    assert r.status_code == 201 and r.get_json()["status"] == "applied"


def _asked(h):
    """A two-seat match where seat 0 asked to undo its step (seat 1 moved since): (match, tokens, request)."""
    m, t = h.create()
    h.play(m, t[0], "step")
    h.play(m, t[1], "step")
    return m, t, h.undo(m, t[0]).get_json()["request"]


def test_racing_approvals_apply_the_undo_once_and_none_reads_withdrawn(h):
    for _ in range(6):
        m, t, request = _asked(h)
        replies = _race(h, *[lambda own: own.vote(m, request["id"], t[1], True)] * 4)
        # The same seat's vote sent four times: each answers the request as its vote left it,
        # one of them with the undo it appended.
        assert [r.status_code for r in replies] == [200] * 4, [r.get_json() for r in replies]
        assert {r.get_json()["request"]["status"] for r in replies} == {"approved"}
        [done] = [r.get_json() for r in replies if r.get_json().get("entry")]
        assert done["entry"]["kind"] == "undo"
        assert h.get(f"/api/matches/{m}/undo-requests/{request['id']}").get_json()["status"] == "approved"
        kinds = [e["kind"] for e in h.get(f"/api/matches/{m}/events").get_json()["entries"]]
        assert kinds == ["setup", "move", "move", "undo"]


def test_an_applied_request_reads_approved_though_its_approval_was_never_saved(h, redis_client):
    """The undo entry is appended before the request is saved approved: a process that dies in
    between (here: the stored request put back as it was) must not leave it reading withdrawn."""
    m, t, request = _asked(h)
    stored = redis_client.hget(keys.undo_requests(m), request["id"])
    assert h.vote(m, request["id"], t[1], True).get_json()["request"]["status"] == "approved"
    redis_client.hset(keys.undo_requests(m), request["id"], stored)
    redis_client.hset(keys.undo_pending(m), "0", request["id"])
    shown = h.get(f"/api/matches/{m}/undo-requests/{request['id']}").get_json()
    assert shown["status"] == "approved" and shown["votes"] == {"1": True}
    assert _listed(h, m) == []
    r = h.vote(m, request["id"], t[1], True)  # the deciding vote again: as it stands, nothing more
    assert r.status_code == 200 and r.get_json()["request"]["status"] == "approved"
    assert not r.get_json().get("entry")
    h.play(m, t[0], "step")  # a later move does not turn it into a withdrawn one either
    assert h.get(f"/api/matches/{m}/undo-requests/{request['id']}").get_json()["status"] == "approved"


# -- undo retried: expected_version and Idempotency-Key ---------------------------------------


def _against_an_ai(h):
    """Seat 0 made two steps, an AI seat one after each: seat 0 may undo at once (no one votes),
    and an undo too many would take back its earlier step as well."""
    m, t = h.create(2, ai={1})
    matches = h.client.application.extensions["gameroom"]
    for _ in range(2):
        h.play(m, t[0], "step")
        matches.submit(m, 1, {"type": "step"})  # no worker runs here: the AI's move, by hand
    return m, t


def _kinds(h, m):
    return [e["kind"] for e in h.get(f"/api/matches/{m}/events").get_json()["entries"]]


def test_racing_repeats_of_one_keyed_undo_undo_once(h):
    for _ in range(6):
        m, t = _against_an_ai(h)
        replies = _race(h, *[lambda own: own.undo(m, t[0], key="undo-1")] * 5)
        assert [r.status_code for r in replies] == [201] * 5, [r.get_json() for r in replies]
        assert {r.get_json()["entry"]["version"] for r in replies} == {6}
        assert _kinds(h, m).count("undo") == 1 and h.state(m)["version"] == 6


def test_racing_undos_at_one_expected_version_undo_once(h):
    for _ in range(6):
        m, t = _against_an_ai(h)
        replies = _race(h, *[lambda own: own.undo(m, t[0], expected_version=5)] * 5)
        answers = sorted((r.status_code, r.get_json().get("code")) for r in replies)
        assert answers == [(201, None)] + [(409, "stale-version")] * 4, answers
        assert _kinds(h, m).count("undo") == 1


def test_a_keyed_undo_repeated_answers_its_first_result_and_undoes_nothing_more(h):
    m, t = _against_an_ai(h)
    first = h.undo(m, t[0], key="k", expected_version=5)
    assert first.status_code == 201
    entry = first.get_json()["entry"]
    assert entry["target"] == 3 and h.state(m)["version"] == 6
    again = h.undo(m, t[0], key="k", expected_version=5)  # stale by now: the key answers first
    assert again.status_code == 201 and again.get_json()["entry"] == entry
    r = h.undo(m, t[0], key="k", steps=2, expected_version=5)
    assert r.status_code == 422 and r.get_json()["code"] == "idempotency-key-reused"
    r = h.undo(m, t[0], key="k")
    assert r.status_code == 422 and r.get_json()["code"] == "idempotency-key-reused"
    h.play(m, t[0], "step")  # the match moves on: the repeat still answers, still undoes nothing
    assert h.undo(m, t[0], key="k", expected_version=5).get_json()["entry"] == entry
    assert _kinds(h, m).count("undo") == 1 and h.state(m)["version"] == 7


def test_undo_refusals_of_expected_version_and_keys_change_nothing(h):
    m, t = _against_an_ai(h)
    for expected in (4, 6):
        r = h.undo(m, t[0], expected_version=expected)
        assert r.status_code == 409 and r.get_json()["code"] == "stale-version"
        assert r.get_json()["current_version"] == 5
    r = h.undo(m, t[0], key="k" * 129)
    assert r.status_code == 400 and r.get_json()["code"] == "bad-idempotency-key"
    r = h.undo(m, t[0], expected_version="5")
    assert r.status_code == 422
    # a key a move used is not an undo's
    h.post(
        f"/api/matches/{m}/moves", {"move": {"type": "step"}}, token=t[0], headers={"Idempotency-Key": "mv"}
    )
    h.client.application.extensions["gameroom"].submit(m, 1, {"type": "step"})
    r = h.undo(m, t[0], key="mv")
    assert r.status_code == 422 and r.get_json()["code"] == "idempotency-key-reused"
    assert "undo" not in _kinds(h, m) and h.state(m)["version"] == 7


def test_a_keyed_undo_request_repeated_is_the_same_request_and_once_approved_undoes_once(h):
    m, t = _two_rounds(h)
    first = h.undo(m, t[0], key="ask")
    assert first.status_code == 202
    request = first.get_json()["request"]
    assert set(request) == {"id", "seat", "steps", "target", "undoes", "base_version", "votes", "status"}
    replies = _race(h, *[lambda own: own.undo(m, t[0], key="ask")] * 4)
    assert [(r.status_code, r.get_json()["request"]["id"]) for r in replies] == [(202, request["id"])] * 4
    r = h.undo(m, t[0], key="ask", steps=2)
    assert r.status_code == 422 and r.get_json()["code"] == "idempotency-key-reused"
    assert h.vote(m, request["id"], t[1], True).get_json()["request"]["status"] == "approved"
    again = h.undo(m, t[0], key="ask")
    assert again.status_code == 202 and again.get_json()["request"]["status"] == "approved"
    assert again.get_json()["request"] == {**request, "status": "approved", "votes": {"1": True}}
    assert _kinds(h, m).count("undo") == 1 and h.state(m)["version"] == 6


def test_a_repeat_answered_with_a_pending_request_under_another_key_is_a_repeat_of_it_for_good(h):
    """A second ask for the same steps (the user clicks again, with a new key) is answered with
    the pending request; retried once that request is settled, its key answers with it too,
    instead of undoing a step more (approved) or asking the others again (refused)."""
    for approve, status in ((True, "approved"), (False, "refused")):
        m, t = _two_rounds(h)
        request = h.undo(m, t[0], key="first").get_json()["request"]
        second = h.undo(m, t[0], key="second")
        assert second.status_code == 202 and second.get_json()["request"] == request
        assert h.vote(m, request["id"], t[1], approve).get_json()["request"]["status"] == status
        version = h.state(m)["version"]
        for key in ("second", "first"):
            again = h.undo(m, t[0], key=key)
            assert again.status_code == 202, again.get_json()
            assert again.get_json()["request"]["id"] == request["id"]
            assert again.get_json()["request"]["status"] == status
            assert set(again.get_json()["request"]) == set(request)  # the keys are never shown
        assert h.state(m)["version"] == version and _kinds(h, m).count("undo") == (1 if approve else 0)
        assert h.undo(m, t[0], key="second", steps=2).get_json()["code"] == "idempotency-key-reused"


def test_the_vote_that_decided_a_request_sent_again_answers_as_it_stands(h):
    """A vote's answer lost: sending it again gets the request as its vote left it (200), not a
    409 that reads as if the vote had failed; the other vote is still refused."""
    for approve, status in ((True, "approved"), (False, "refused")):
        m, t = _two_rounds(h)
        request = h.undo(m, t[0]).get_json()["request"]
        assert h.vote(m, request["id"], t[1], approve).status_code == 200
        version = h.state(m)["version"]
        again = h.vote(m, request["id"], t[1], approve)
        assert again.status_code == 200 and again.get_json()["request"]["status"] == status
        other = h.vote(m, request["id"], t[1], not approve)
        assert other.status_code == 409 and other.get_json()["code"] == f"undo-request-{status}"
        assert h.state(m)["version"] == version and _kinds(h, m).count("undo") == (1 if approve else 0)


def _two_sealed_steps(seat):
    """Two sealed steps ``seat`` can take in turn 1 of Look at the Stars dealt with seed
    ``sealed-6`` (a card whose New Stars power fires, then a star), found with the pure core."""
    game = build_registry().get("look-at-the-stars")
    options = game.load_options({"power_bonus_card": "new_stars"})
    state = decider.fold(game, [decider.setup_entry(game, 2, options, "sealed-6") | {"version": 1}]).state
    for move in game.legal_moves(state, seat):
        if move["type"] in ("confirm_turn", "skip_card"):
            continue
        after = state
        for event in game.decide(state, seat, move, rng_for("sealed-6", 2)):
            after = game.evolve(after, event)
        if after["players"][seat]["pending"]:
            then = next(
                m for m in game.legal_moves(after, seat) if m["type"] not in ("confirm_turn", "skip_card")
            )
            return [move, then]
    raise AssertionError("the seed no longer gives a two-step turn")


def test_racing_repeats_of_one_keyed_undo_of_sealed_steps_drop_one(redis_server):
    """Look at the Stars keeps a seat's steps in its draft: the undo drops them, appending nothing,
    so no version tells a repeat; its key, kept in the draft with the drop, does."""
    config = {"redis_url": redis_server.url, "ai_mode": "off", "reproducible_seeds": True}
    app = create_app(config, build_registry())
    steps = _two_sealed_steps(1)
    body = {"game": "look-at-the-stars", "seats": [{"name": "Ana"}, {"name": "Bo"}], "seed": "sealed-6"}
    body["options"] = {"power_bonus_card": "new_stars"}
    for _ in range(4):
        created = app.test_client().post("/api/matches", json=body).get_json()
        match_id, bo = created["match"]["id"], {"Authorization": f"Bearer {created['tokens']['1']}"}
        for step in steps:
            r = app.test_client().post(f"/api/matches/{match_id}/moves", json={"move": step}, headers=bo)
            assert r.status_code == 201, r.get_json()
        barrier = threading.Barrier(5)
        replies = [None] * 5

        def undo(i, match_id=match_id, barrier=barrier, replies=replies, bo=bo):
            client = app.test_client()
            barrier.wait()
            replies[i] = client.post(
                f"/api/matches/{match_id}/undo",
                json={"steps": 1},
                headers={**bo, "Idempotency-Key": "drop-1"},
            )

        threads = [threading.Thread(target=undo, args=(i,)) for i in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert [r.status_code for r in replies] == [201] * 5, [r.get_json() for r in replies]
        again = app.test_client().post(
            f"/api/matches/{match_id}/undo", json={"steps": 1}, headers={**bo, "Idempotency-Key": "drop-1"}
        )
        assert again.status_code == 201 and again.get_json()["state"]["sealed_steps"] == 1
        state = app.test_client().get(f"/api/matches/{match_id}/state", headers=bo).get_json()
        assert state["sealed_steps"] == 1 and state["version"] == 1
    reused = app.test_client().post(
        f"/api/matches/{match_id}/undo", json={"steps": 2}, headers={**bo, "Idempotency-Key": "drop-1"}
    )
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency-key-reused"


# -- votes: final, and a refusal never wins against an applied undo --------------------------


def test_a_refusal_racing_the_last_approval_either_wins_or_loses_whole(h):
    for _ in range(12):
        m, t, request = _asked(h)
        replies = _race(
            h,
            lambda own: own.vote(m, request["id"], t[1], True),
            lambda own: own.vote(m, request["id"], t[1], False),
        )
        answers = [(r.status_code, r.get_json().get("code")) for r in replies]
        assert sorted(a[0] for a in answers) == [200, 409], answers
        [(won, body)] = [(i, r.get_json()) for i, r in enumerate(replies) if r.status_code == 200]
        [lost] = [a[1] for a in answers if a[0] == 409]
        shown = h.get(f"/api/matches/{m}/undo-requests/{request['id']}").get_json()
        undos = _kinds(h, m).count("undo")
        if won == 0:  # the approval: the undo is applied, and the refusal was told so
            assert body["request"]["status"] == shown["status"] == "approved" and undos == 1
            assert lost in ("undo-request-approved", "vote-already-cast"), answers
        else:
            assert body["request"]["status"] == shown["status"] == "refused" and undos == 0
            assert lost == "undo-request-refused", answers


def test_a_vote_is_final_and_the_same_vote_again_answers_as_before(h):
    m, t = h.create(3)
    h.play(m, t[0], "step")
    h.play(m, t[1], "step")
    request = h.undo(m, t[0]).get_json()["request"]
    first = h.vote(m, request["id"], t[1], True)
    again = h.vote(m, request["id"], t[1], True)
    assert first.status_code == again.status_code == 200
    assert again.get_json()["request"] == first.get_json()["request"]
    assert first.get_json()["request"]["votes"] == {"1": True, "2": None}
    r = h.vote(m, request["id"], t[1], False)
    assert r.status_code == 409 and r.get_json()["code"] == "vote-already-cast"
    shown = h.get(f"/api/matches/{m}/undo-requests/{request['id']}").get_json()
    assert shown["status"] == "pending" and shown["votes"] == {"1": True, "2": None}
    done = h.vote(m, request["id"], t[2], True).get_json()
    assert done["request"]["status"] == "approved" and _kinds(h, m).count("undo") == 1


def test_an_approval_saved_but_never_applied_is_applied_by_its_repeat(h, redis_client):
    """The last approval saves the votes before it appends: a process that dies in between (here:
    the votes written by hand) leaves a pending request every voter approved, which the voter's
    repeat applies and nothing can refuse any more."""
    m, t, request = _asked(h)
    redis_client.hset(keys.undo_requests(m), request["id"], json.dumps({**request, "votes": {"1": True}}))
    r = h.vote(m, request["id"], t[1], False)
    assert r.status_code == 409 and r.get_json()["code"] == "vote-already-cast"
    assert _kinds(h, m).count("undo") == 0
    done = h.vote(m, request["id"], t[1], True).get_json()
    assert done["request"]["status"] == "approved" and done["entry"]["kind"] == "undo"
    assert h.get(f"/api/matches/{m}/undo-requests/{request['id']}").get_json()["status"] == "approved"
    assert _kinds(h, m) == ["setup", "move", "move", "undo"]


# -- sealed steps: a seat's moves and undos share its keys ----------------------------------


def _sealed(api):
    """A two-seat Look at the Stars match and a sealed step seat 0 may take first."""
    match_id, tokens = api.create("look-at-the-stars", [{"name": "Ana"}, {"name": "Bo"}], seed="keys")
    step = next(m for m in api.legal(match_id, tokens[0]) if m["type"] not in ("confirm_turn", "skip_card"))
    return match_id, tokens[0], step


def _sealed_steps(api, match_id, token):
    return api.state(match_id, token).get("sealed_steps", 0)  # shown only when there are some


def _keyed(api, match_id, token, key, path, body):
    return api.post(f"/api/matches/{match_id}/{path}", body, token=token, headers={"Idempotency-Key": key})


def test_a_sealed_step_s_key_undoes_nothing_and_a_draft_undo_s_key_moves_nothing(api, expect_problem):
    match_id, ana, step = _sealed(api)
    assert _keyed(api, match_id, ana, "x", "moves", {"move": step}).status_code == 201
    expect_problem(_keyed(api, match_id, ana, "x", "undo", {"steps": 1}), 422, "idempotency-key-reused")
    assert _sealed_steps(api, match_id, ana) == 1
    assert _keyed(api, match_id, ana, "y", "undo", {"steps": 1}).status_code == 201
    assert _sealed_steps(api, match_id, ana) == 0
    expect_problem(_keyed(api, match_id, ana, "y", "moves", {"move": step}), 422, "idempotency-key-reused")
    expect_problem(_keyed(api, match_id, ana, "x", "undo", {"steps": 1}), 422, "idempotency-key-reused")
    assert _sealed_steps(api, match_id, ana) == 0


def test_a_sealed_step_repeated_after_its_undo_replays_and_is_never_taken_again(api, expect_problem):
    match_id, ana, step = _sealed(api)
    first = _keyed(api, match_id, ana, "x", "moves", {"move": step}).get_json()
    assert api.post(f"/api/matches/{match_id}/undo", {"steps": 1}, token=ana).status_code == 201
    again = _keyed(api, match_id, ana, "x", "moves", {"move": step})
    assert again.status_code == 201, again.get_json()
    body = again.get_json()
    assert body["duplicate"] is True and (body["events"], body["text"]) == (first["events"], first["text"])
    assert "sealed_steps" not in body["state"] and _sealed_steps(api, match_id, ana) == 0
    other = next(m for m in api.legal(match_id, ana) if m not in (step, {"type": "confirm_turn"}))
    expect_problem(_keyed(api, match_id, ana, "x", "moves", {"move": other}), 422, "idempotency-key-reused")
    # Confirmed: the draft is gone, its keys stay (with the confirming entry), none acts again.
    assert _keyed(api, match_id, ana, "z", "moves", {"move": step}).get_json()["duplicate"] is False
    assert _keyed(api, match_id, ana, "y", "undo", {"steps": 1}).status_code == 201
    assert api.move(match_id, ana, {"type": "skip_card"}).status_code == 201
    assert api.move(match_id, ana, {"type": "confirm_turn"}).status_code == 201
    version = api.state(match_id, ana)["version"]
    replay = _keyed(api, match_id, ana, "x", "moves", {"move": step})
    assert replay.status_code == 201 and replay.get_json()["duplicate"] is True
    undo = _keyed(api, match_id, ana, "y", "undo", {"steps": 1})
    assert (
        undo.status_code == 201 and undo.get_json()["status"] == "applied" and "entry" not in undo.get_json()
    )
    expect_problem(_keyed(api, match_id, ana, "y", "moves", {"move": step}), 422, "idempotency-key-reused")
    assert api.state(match_id, ana)["version"] == version
