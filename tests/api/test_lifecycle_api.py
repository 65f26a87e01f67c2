"""Resign, leave to an AI, reclaim with the creator's token, private matches and hidden names, rematch.

Every response is checked against openapi.yaml by the ``api`` fixture.
"""

import json
import threading

from rq import Queue
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from gameroom.eventstore import keys

from .conftest import problem

NIM_TAKE = {"type": "take", "pile": 0, "count": 1}


def _create(api, seats=None, game="nim", **body):
    seats = seats if seats is not None else [{"name": "Ana"}, {"name": "Bo"}]
    r = api.post("/api/matches", {"game": game, "seats": seats, **body})
    assert r.status_code == 201, r.get_json()
    data = r.get_json()
    return data["match"]["id"], {int(k): v for k, v in data["tokens"].items()}, data["admin_token"]


def _first(api, match_id):
    """The seat to move first (Nim draws it)."""
    return api.state(match_id)["active_seats"][0]


def _history(api, match_id, token=None):
    r = api.get(f"/api/matches/{match_id}/events", token=token)
    assert r.status_code == 200
    return r.get_json()["entries"]


# -- resign --------------------------------------------------------------------


def test_resign_ends_the_match_and_the_others_win(api):
    match_id, tokens, _admin = _create(api)
    r = api.post(f"/api/matches/{match_id}/resign", token=tokens[0])
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["entry"]["kind"] == "lifecycle" and body["entry"]["action"] == "resign"
    assert body["entry"]["text"] == ["Ana resigned."]
    assert body["match"]["status"] == "finished"
    assert body["match"]["outcome"]["winners"] == [1]
    assert body["match"]["outcome"]["scores"] == [0.0, 1.0]
    assert body["match"]["active_seats"] == []
    # the match is over for moves, for a second resignation, and in the state and lobby status
    problem(api.move(match_id, tokens[1], NIM_TAKE), 409, "match-over")
    problem(api.post(f"/api/matches/{match_id}/resign", token=tokens[1]), 409, "match-over")
    assert api.state(match_id, tokens[1])["status"] == "finished"
    assert api.get(f"/api/matches/{match_id}/legal-moves", token=tokens[1]).get_json()["moves"] == []
    # an entry of the history, for everyone
    [last] = _history(api, match_id)[-1:]
    assert last["action"] == "resign" and last["seat"] == 0 and last["outcome"]["winners"] == [1]


def test_resign_needs_a_seat_token(api):
    match_id, _tokens, admin = _create(api)
    problem(api.post(f"/api/matches/{match_id}/resign"), 401, "token-required")
    problem(api.post(f"/api/matches/{match_id}/resign", token=admin), 401, "bad-token")
    problem(api.post(f"/api/matches/{match_id}/resign", token="x" * 30), 401, "bad-token")
    assert api.state(match_id)["status"] == "active" and api.state(match_id)["version"] == 1


# -- leave and reclaim ---------------------------------------------------------------


def test_leave_hands_the_seat_to_an_ai_and_revokes_the_token(api, redis_client):
    match_id, tokens, _admin = _create(api)
    first = _first(api, match_id)
    r = api.post(f"/api/matches/{match_id}/leave", {"level": "greedy"}, token=tokens[first])
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["entry"]["action"] == "leave" and body["entry"]["level"] == "greedy"
    assert "revoked" not in body["entry"]  # what identifies the old token is never shown
    control = body["match"]["seat_control"]
    assert control[first] == {"seat": first, "left": True, "takeover": {"level": "greedy", "until": "match"}}
    assert control[1 - first]["takeover"] is None
    # the old token no longer acts (nor sees the seat's view)
    problem(api.move(match_id, tokens[first], NIM_TAKE), 401, "bad-token")
    problem(api.get(f"/api/matches/{match_id}/state", token=tokens[first]), 401, "bad-token")
    # the seat is active: the ordinary AI path got a job for it
    queue = Queue("gameroom-ai", connection=redis_client, serializer=JSONSerializer)
    assert keys.ai_job_id(match_id, body["version"], first) in queue.job_ids


def test_only_the_creator_reclaims_a_left_seat(api):
    match_id, tokens, admin = _create(api)
    s = _first(api, match_id)
    problem(api.post(f"/api/matches/{match_id}/seats/{s}/reclaim", token=admin), 409, "seat-not-left")
    api.post(f"/api/matches/{match_id}/leave", {}, token=tokens[s])
    for wrong in (None, tokens[0], tokens[1], "y" * 32):
        problem(api.post(f"/api/matches/{match_id}/seats/{s}/reclaim", token=wrong), 401, "bad-admin-token")
    problem(api.post(f"/api/matches/{match_id}/seats/7/reclaim", token=admin), 404, "no-such-seat")
    r = api.post(f"/api/matches/{match_id}/seats/{s}/reclaim", token=admin)
    assert r.status_code == 201, r.get_json()
    new = r.get_json()["token"]
    assert new not in tokens.values()
    assert api.state(match_id, new)["seat"] == s
    problem(api.get(f"/api/matches/{match_id}/state", token=tokens[s]), 401, "bad-token")  # still revoked
    r = api.move(match_id, new, NIM_TAKE)
    assert r.status_code == 201, r.get_json()
    actions = [e.get("action") for e in _history(api, match_id) if e["kind"] == "lifecycle"]
    assert actions == ["leave", "reclaim"]


def test_a_seat_played_by_an_ai_refuses_its_persons_moves(api, matches):
    match_id, tokens, admin = _create(api)
    api.post(f"/api/matches/{match_id}/leave", {}, token=tokens[0])
    token = api.post(f"/api/matches/{match_id}/seats/0/reclaim", token=admin).get_json()["token"]
    problem(api.post(f"/api/matches/{match_id}/seats/0/reclaim", token=admin), 409, "seat-not-left")
    # leaving twice: the second time from the reclaimed token
    assert api.post(f"/api/matches/{match_id}/leave", {}, token=token).status_code == 201
    problem(api.post(f"/api/matches/{match_id}/leave", {}, token=token), 401, "bad-token")


def test_leave_refuses_an_unknown_level_and_changes_nothing(api):
    match_id, tokens, _admin = _create(api)
    problem(
        api.post(f"/api/matches/{match_id}/leave", {"level": "../../etc"}, token=tokens[0]),
        422,
        "unknown-ai-level",
    )
    assert api.state(match_id)["version"] == 1
    assert api.state(match_id, tokens[0])["seat"] == 0


# -- private matches, hidden names ------------------------------------------------------


def _lobby_ids(api, **query):
    q = "&".join(f"{k}={v}" for k, v in query.items())
    r = api.get(f"/api/matches?{q}" if q else "/api/matches")
    assert r.status_code == 200
    return {m["id"]: m for m in r.get_json()["matches"]}


def test_an_unlisted_match_is_not_in_the_lobby_but_reachable_by_id(api):
    public_id, _t, _a = _create(api)
    private_id, tokens, _a = _create(api, unlisted=True)
    listed = _lobby_ids(api, limit=200)
    assert public_id in listed and private_id not in listed
    assert private_id not in _lobby_ids(api, game="nim", status="active", limit=200)
    r = api.get(f"/api/matches/{private_id}")
    assert r.status_code == 200 and r.get_json()["settings"] == {"unlisted": True}
    assert api.move(private_id, tokens[_first(api, private_id)], NIM_TAKE).status_code == 201


def test_the_lobby_hides_seat_names_when_asked(api):
    match_id, _tokens, _admin = _create(api, hide_names=True)
    listed = _lobby_ids(api, limit=200)[match_id]
    assert [s["name"] for s in listed["seats"]] == [None, None]
    assert "Ana" not in str(listed)


def test_creation_refuses_bad_lifecycle_settings(api):
    for body, code in (
        ({"clock": {}}, "validation-error"),
        ({"clock": {"per_move": 0}}, "validation-error"),
        ({"clock": {"per_move": "soon"}}, "validation-error"),
        ({"clock": {"per_move": 5, "increment": 2}}, "validation-error"),
        ({"clock": {"per_move": 5}, "timeout": {"action": "explode"}}, "validation-error"),
        ({"clock": {"per_move": 5}, "timeout": {"level": "nope"}}, "unknown-ai-level"),
        ({"timeout": {"action": "forfeit"}}, "timeout-without-clock"),
        ({"unlisted": "maybe"}, "validation-error"),
    ):
        r = api.post("/api/matches", {"game": "nim", "seats": [{"name": "A"}, {"name": "B"}], **body})
        assert r.status_code == 422, (body, r.get_json())
        assert r.get_json()["code"] == code, (body, r.get_json())


# -- rematch ---------------------------------------------------------------------------


def test_rematch_keeps_game_options_and_seats_with_new_tokens(api):
    match_id, tokens, admin = _create(
        api,
        seats=[{"name": "Ana"}, {"name": "Bo"}, {"name": "Bot", "ai": "random"}],
        game="stars-are-right",
        unlisted=True,
    )
    options = api.get(f"/api/matches/{match_id}").get_json()["options"]
    problem(api.post(f"/api/matches/{match_id}/rematch", token=tokens[0]), 409, "match-not-finished")
    api.post(f"/api/matches/{match_id}/resign", token=tokens[1])
    r = api.post(f"/api/matches/{match_id}/rematch", token=tokens[0])
    assert r.status_code == 201, r.get_json()
    first = r.get_json()
    rematch = first["match"]
    assert rematch["game"] == "stars-are-right" and rematch["options"] == options
    assert rematch["settings"]["unlisted"] is True and rematch["settings"]["rematch_of"] == match_id
    assert [s["name"] for s in rematch["seats"]] == ["Ana", None, "Bot"]
    assert rematch["seats"][2]["ai"] == "random" and rematch["status"] == "waiting"
    assert first["seat"] == 0 and first["token"] not in tokens.values()
    # a stranger cannot take Bo's seat; Bo accepts with the old token, and the match starts
    problem(api.post(f"/api/matches/{rematch['id']}/seats/1", {"name": "Eve"}), 409, "seat-reserved")
    r = api.post(f"/api/matches/{match_id}/rematch", token=tokens[1])
    assert r.status_code == 201, r.get_json()
    second = r.get_json()
    assert second["match"]["id"] == rematch["id"] and second["seat"] == 1
    assert second["match"]["status"] == "active"
    assert api.state(rematch["id"], second["token"])["seat"] == 1
    again = api.post(f"/api/matches/{match_id}/rematch", token=tokens[1])  # a repeat: the same seat
    assert again.status_code == 201 and again.get_json()["match"]["id"] == rematch["id"]
    # the creator's admin token carries over; the old match's stream tells of the rematch
    r = api.post(f"/api/matches/{rematch['id']}/rematch", token=admin)
    problem(r, 409, "match-not-finished")
    rematches = [e for e in _history(api, match_id) if e.get("action") == "rematch"]
    assert [(e["seat"], e["next"]) for e in rematches] == [(0, rematch["id"]), (1, rematch["id"])]


def test_a_rematch_opens_the_seat_of_a_player_who_left(api):
    """The leaver's token is retired, so the rematch cannot wait for it: the seat is open to claim."""
    match_id, tokens, admin = _create(api)
    assert api.post(f"/api/matches/{match_id}/leave", {"level": "random"}, token=tokens[0]).status_code == 201
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[1]).status_code == 201
    r = api.post(f"/api/matches/{match_id}/rematch", token=tokens[1])
    assert r.status_code == 201, r.get_json()
    rematch = r.get_json()["match"]
    assert rematch["status"] == "waiting" and rematch["settings"]["reserved"] == [1]
    r = api.post(f"/api/matches/{match_id}/rematch", token=admin)
    assert r.status_code == 201 and r.get_json()["match"]["id"] == rematch["id"]
    problem(api.post(f"/api/matches/{match_id}/rematch", token=tokens[0]), 401, "bad-admin-token")
    # anyone with the link (the leaver too) may take the seat, and the rematch starts
    r = api.post(f"/api/matches/{rematch['id']}/seats/0", {"name": "Cy"})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["match"]["status"] == "active"
    assert [s["name"] for s in api.get(f"/api/matches/{rematch['id']}").get_json()["seats"]] == ["Cy", "Bo"]


def test_a_seat_that_asks_for_the_rematch_again_gets_it_with_a_token_that_works(api):
    """A player whose first answer was lost asks again: the same rematch, and a token for the seat."""
    match_id, tokens, _admin = _create(api)
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[0]).status_code == 201
    first = api.post(f"/api/matches/{match_id}/rematch", token=tokens[0])
    assert first.status_code == 201, first.get_json()
    rematch_id = first.get_json()["match"]["id"]
    again = api.post(f"/api/matches/{match_id}/rematch", token=tokens[0])
    assert again.status_code == 201, again.get_json()
    assert again.get_json()["match"]["id"] == rematch_id and again.get_json()["seat"] == 0
    for answer in (first, again):
        assert api.state(rematch_id, answer.get_json()["token"])["seat"] == 0
    # Bo accepts, the rematch starts; Ana asking once more still gets her seat
    bo = api.post(f"/api/matches/{match_id}/rematch", token=tokens[1]).get_json()
    assert bo["match"]["status"] == "active"
    late = api.post(f"/api/matches/{match_id}/rematch", token=tokens[0])
    assert late.status_code == 201 and api.state(rematch_id, late.get_json()["token"])["seat"] == 0
    # the old match tells once of each seat's acceptance, however often it was asked
    rematches = [(e["seat"], e["next"]) for e in _history(api, match_id) if e.get("action") == "rematch"]
    assert sorted(rematches) == [(0, rematch_id), (1, rematch_id)]
    assert api.get(f"/api/matches/{rematch_id}").get_json()["version"] == 1


def test_racing_rematch_calls_from_seats_and_creator_all_get_the_one_rematch(app, api):
    """8 calls from the two seats and 4 from the creator at once: each seat's call gets a token
    that plays that seat, the creator's the same rematch."""
    match_id, tokens, admin = _create(api)
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[0]).status_code == 201
    callers = [(0, tokens[0]), (1, tokens[1])] * 4 + [(None, admin)] * 4
    barrier = threading.Barrier(len(callers))
    answers = [None] * len(callers)

    def call(i, token):
        client = app.test_client()
        barrier.wait()
        r = client.post(f"/api/matches/{match_id}/rematch", headers={"Authorization": f"Bearer {token}"})
        answers[i] = (r.status_code, r.get_json())

    threads = [threading.Thread(target=call, args=(i, t)) for i, (_s, t) in enumerate(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [status for status, _body in answers] == [201] * len(callers), answers
    assert len({body["match"]["id"] for _status, body in answers}) == 1
    rematch_id = answers[0][1]["match"]["id"]
    for (seat, _token), (_status, body) in zip(callers, answers, strict=True):
        assert body["seat"] == seat
        if seat is not None:
            assert api.state(rematch_id, body["token"])["seat"] == seat
    assert api.get(f"/api/matches/{rematch_id}").get_json()["status"] == "active"
    seats = [e["seat"] for e in _history(api, match_id) if e.get("action") == "rematch"]
    assert sorted(s for s in seats if s is not None) == [0, 1]


def test_a_player_who_left_the_rematch_gets_no_seat_back_by_asking_again(api):
    match_id, tokens, admin = _create(api)
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[0]).status_code == 201
    ana = api.post(f"/api/matches/{match_id}/rematch", token=tokens[0]).get_json()
    rematch_id = ana["match"]["id"]
    assert api.post(f"/api/matches/{match_id}/rematch", token=tokens[1]).status_code == 201
    left = api.post(f"/api/matches/{rematch_id}/leave", {"level": "random"}, token=ana["token"])
    assert left.status_code == 201, left.get_json()
    problem(api.post(f"/api/matches/{match_id}/rematch", token=tokens[0]), 409, "seat-taken")
    r = api.post(f"/api/matches/{rematch_id}/seats/0/reclaim", token=admin)
    assert r.status_code == 201, r.get_json()
    problem(api.post(f"/api/matches/{match_id}/rematch", token=tokens[0]), 409, "seat-taken")
    assert api.state(rematch_id, r.get_json()["token"])["seat"] == 0


def _rematch_bo_accepted(api):
    """Ana resigns, Bo accepts the rematch: it waits for Ana. Returns the old match's id and
    tokens, the admin token, and the rematch's id."""
    match_id, tokens, admin = _create(api)
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[0]).status_code == 201
    r = api.post(f"/api/matches/{match_id}/rematch", token=tokens[1])
    assert r.status_code == 201, r.get_json()
    return match_id, tokens, admin, r.get_json()["match"]["id"]


def test_the_creator_releases_a_seat_kept_for_a_player_who_does_not_come_back(api):
    match_id, tokens, admin, rematch_id = _rematch_bo_accepted(api)
    base = f"/api/matches/{rematch_id}"
    problem(api.post(f"{base}/seats/0", {"name": "Cy"}), 409, "seat-reserved")
    for wrong in (None, tokens[0], tokens[1], "y" * 32):
        problem(api.post(f"{base}/seats/0/release", token=wrong), 401, "bad-admin-token")
    problem(api.post(f"{base}/seats/2/release", token=admin), 404, "no-such-seat")
    problem(api.post(f"{base}/seats/1/release", token=admin), 409, "seat-taken")  # Bo accepted
    problem(api.post(f"/api/matches/{match_id}/seats/0/release", token=admin), 409, "seat-not-reserved")
    assert api.get(base).get_json()["version"] == 1  # every refusal changed nothing
    r = api.post(f"{base}/seats/0/release", token=admin)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["entry"]["action"] == "release" and body["entry"]["seat"] == 0 and body["entry"]["text"]
    assert body["match"]["status"] == "waiting" and body["match"]["settings"]["reserved"] == [1]
    problem(api.post(f"{base}/seats/0/release", token=admin), 409, "seat-not-reserved")
    # anyone may take the seat now, and play it
    r = api.post(f"{base}/seats/0", {"name": "Cy"})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["match"]["status"] == "active"
    assert api.state(rematch_id, r.get_json()["token"])["seat"] == 0
    problem(api.post(f"/api/matches/{match_id}/rematch", token=tokens[0]), 409, "seat-taken")
    actions = [e.get("action") for e in _history(api, rematch_id) if e["kind"] == "lifecycle"]
    assert actions == ["release"]


def test_a_claim_of_a_rematch_seat_its_player_took_is_refused_as_taken(api):
    _match_id, _tokens, _admin, rematch_id = _rematch_bo_accepted(api)
    problem(api.post(f"/api/matches/{rematch_id}/seats/1", {"name": "Cy"}), 409, "seat-taken")  # Bo's
    problem(api.post(f"/api/matches/{rematch_id}/seats/0", {"name": "Cy"}), 409, "seat-reserved")  # Ana's
    assert api.get(f"/api/matches/{rematch_id}").get_json()["version"] == 1


def test_the_summary_and_lobby_show_a_seat_kept_for_its_player_as_kept_not_open(api):
    _match_id, _tokens, admin, rematch_id = _rematch_bo_accepted(api)
    kept = {"name": None, "ai": None, "open": False, "reserved": True}
    bo = {"name": "Bo", "ai": None, "open": False, "reserved": False}
    assert api.get(f"/api/matches/{rematch_id}").get_json()["seats"] == [kept, bo]
    assert _lobby_ids(api, limit=200)[rematch_id]["seats"] == [kept, bo]
    r = api.post(f"/api/matches/{rematch_id}/seats/0/release", token=admin)
    assert r.status_code == 201, r.get_json()
    released = {"name": None, "ai": None, "open": True, "reserved": False}
    assert r.get_json()["match"]["seats"] == [released, bo]
    assert api.get(f"/api/matches/{rematch_id}").get_json()["seats"] == [released, bo]


def test_a_released_seat_is_still_its_players_if_they_accept_first(api):
    match_id, tokens, admin, rematch_id = _rematch_bo_accepted(api)
    assert api.post(f"/api/matches/{rematch_id}/seats/0/release", token=admin).status_code == 201
    r = api.post(f"/api/matches/{match_id}/rematch", token=tokens[0])
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["seat"] == 0 and r.get_json()["match"]["status"] == "active"
    problem(api.post(f"/api/matches/{rematch_id}/seats/0", {"name": "Cy"}), 409, "seat-taken")


def test_a_released_seat_of_a_clocked_rematch_starts_the_clocks_once_claimed(api):
    match_id, tokens, admin = _create(api, clock={"per_move": 30})
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[0]).status_code == 201
    rematch_id = api.post(f"/api/matches/{match_id}/rematch", token=tokens[1]).get_json()["match"]["id"]
    r = api.post(f"/api/matches/{rematch_id}/seats/0/release", token=admin)
    assert r.status_code == 201 and r.get_json()["match"]["clock"]["running"] == []
    assert api.post(f"/api/matches/{rematch_id}/seats/0", {"name": "Cy"}).status_code == 201
    summary = api.get(f"/api/matches/{rematch_id}").get_json()
    assert summary["status"] == "active" and summary["clock"]["running"] == summary["active_seats"]
    assert [e.get("action") for e in _history(api, rematch_id)] == [None, "release", "start"]


def test_a_rematch_with_a_released_seat_exports_and_imports(api):
    _match_id, tokens, admin, rematch_id = _rematch_bo_accepted(api)
    assert api.post(f"/api/matches/{rematch_id}/seats/0/release", token=admin).status_code == 201
    cy = api.post(f"/api/matches/{rematch_id}/seats/0", {"name": "Cy"}).get_json()["token"]
    assert api.post(f"/api/matches/{rematch_id}/resign", token=cy).status_code == 201
    doc = api.get(f"/api/matches/{rematch_id}/export").get_json()
    assert [e.get("action") for e in doc["entries"]] == [None, "release", "resign"]
    r = api.post("/api/matches/import", doc)
    assert r.status_code == 201, r.get_json()
    again = api.get(f"/api/matches/{r.get_json()['match']['id']}/export").get_json()
    assert again["entries"] == doc["entries"]


# -- clocks in every view -----------------------------------------------------------------


class _Clock:
    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


def test_clocks_show_in_state_summary_and_past_versions(api, matches, redis_client):
    matches.clock = clock = _Clock(1_000_000.0)
    match_id, tokens, _admin = _create(api, clock={"bank": 60, "increment": 5})
    first = _first(api, match_id)
    clock.t += 12.5
    state = api.state(match_id, tokens[first])
    assert state["clock"]["running"] == [first] and state["clock"]["at"] == 1_000_012.5
    assert state["clock"]["seats"][first]["remaining"] == 47.5
    assert state["clock"]["seats"][first]["deadline"] == 1_000_060.0
    assert state["clock"]["timeout"] == {"action": "ai-turn", "level": "random"}
    # the seat's timeout is scheduled at its deadline; the move in time takes it off the schedule
    scheduled = ScheduledJobRegistry("gameroom-ai", connection=redis_client, serializer=JSONSerializer)
    assert keys.timeout_job_id(match_id, 1, first) in scheduled.get_job_ids()
    assert scheduled.get_scheduled_time(keys.timeout_job_id(match_id, 1, first)).timestamp() == 1_000_060.0
    assert api.move(match_id, tokens[first], NIM_TAKE).status_code == 201
    assert keys.timeout_job_id(match_id, 1, first) not in scheduled.get_job_ids()
    assert keys.timeout_job_id(match_id, 2, 1 - first) in scheduled.get_job_ids()
    clock.t += 1.0
    summary = api.get(f"/api/matches/{match_id}").get_json()
    assert summary["clock"]["running"] == [1 - first]
    assert summary["clock"]["seats"][first]["remaining"] == 52.5  # 60 - 12.5 + 5
    assert summary["clock"]["seats"][1 - first]["remaining"] == 59.0
    then = api.state(match_id, tokens[first], version=1)
    assert then["clock"]["at"] == 1_000_000.0 and then["clock"]["seats"][first]["remaining"] == 60.0
    assert then["clock"]["running"] == [first]


def test_clocks_start_when_the_last_seat_is_claimed(api, matches):
    matches.clock = clock = _Clock(2_000_000.0)
    match_id, _tokens, _admin = _create(api, seats=[{"name": "Ana"}, None], clock={"per_move": 30})
    assert api.get(f"/api/matches/{match_id}").get_json()["clock"]["running"] == []
    clock.t += 100
    r = api.post(f"/api/matches/{match_id}/seats/1", {"name": "Bo"})
    assert r.status_code == 201
    summary = api.get(f"/api/matches/{match_id}").get_json()
    assert summary["version"] == 2 and summary["clock"]["running"] == summary["active_seats"]
    [seat] = summary["active_seats"]
    assert summary["clock"]["seats"][seat]["deadline"] == 2_000_130.0
    assert _history(api, match_id)[-1]["action"] == "start"


def test_the_last_seat_to_confirm_a_simultaneous_turn_gets_a_new_turn_and_its_timeout(
    api, matches, redis_client
):
    matches.clock = clock = _Clock(5_000_000.0)
    clocked = {"clock": {"per_move": 30, "bank": 100, "increment": 5}}
    match_id, tokens, _admin = _create(api, game="look-at-the-stars", **clocked)
    for seat, wait in ((0, 0.0), (1, 10.0)):  # seat 0 confirms at once, seat 1 after 10 s
        clock.t += wait
        for move in ({"type": "skip_card"}, {"type": "confirm_turn"}):
            assert api.move(match_id, tokens[seat], move).status_code == 201
    summary = api.get(f"/api/matches/{match_id}").get_json()
    assert summary["version"] == 3 and summary["active_seats"] == [0, 1]
    seats = summary["clock"]["seats"]
    assert [s["remaining"] for s in seats] == [30.0, 30.0]
    assert [s["bank"] for s in seats] == [105.0, 95.0]  # seat 1: 100 - 10 + 5
    scheduled = ScheduledJobRegistry("gameroom-ai", connection=redis_client, serializer=JSONSerializer)
    for seat in (0, 1):
        due = scheduled.get_scheduled_time(keys.timeout_job_id(match_id, 3, seat)).timestamp()
        assert due == 5_000_040.0


def test_a_past_version_shows_the_status_it_had(api, matches):
    matches.clock = _Clock(6_000_000.0)
    match_id, _tokens, _admin = _create(api, seats=[{"name": "Ana"}, None], clock={"per_move": 30})
    assert api.state(match_id, version=1)["status"] == "waiting"
    assert api.post(f"/api/matches/{match_id}/seats/1", {"name": "Bo"}).status_code == 201
    then = api.state(match_id, version=1)
    assert then["status"] == "waiting" and then["active_seats"] == [] and then["clock"]["running"] == []
    now = api.state(match_id, version=2)
    assert now["status"] == "active" and now["active_seats"] == api.state(match_id)["active_seats"]
    # without a clock, a claim appends nothing: version 1 is the version the match started at
    plain_id, _tokens, _admin = _create(api, seats=[{"name": "Ana"}, None])
    assert api.state(plain_id, version=1)["status"] == "waiting"
    assert api.post(f"/api/matches/{plain_id}/seats/1", {"name": "Bo"}).status_code == 201
    assert api.state(plain_id, version=1)["status"] == "active" == api.state(plain_id)["status"]


def _sse(response):
    """The entries a stream sent; a finished match's stream must close with its ``end`` event."""
    frames, ended = [], None
    for block in response.get_data(as_text=True).split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":")
        )
        if fields.get("event") == "end":
            ended = json.loads(fields["data"])
        elif "data" in fields:
            frames.append(json.loads(fields["data"]))
    assert ended == {"version": frames[-1]["version"]}, (
        "the stream of a finished match ends with its last version"
    )
    return frames


def test_lifecycle_entries_are_in_the_stream_as_in_the_history(api):
    match_id, tokens, admin = _create(api, game="stars-are-right")
    first = _first(api, match_id)
    other = 1 - first
    assert api.post(f"/api/matches/{match_id}/leave", {}, token=tokens[first]).status_code == 201
    assert api.post(f"/api/matches/{match_id}/seats/{first}/reclaim", token=admin).status_code == 201
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[other]).status_code == 201
    for viewer in (None, tokens[other]):
        frames = _sse(api.get(f"/api/matches/{match_id}/stream", token=viewer))
        history = _history(api, match_id, viewer)
        assert frames == history
        lifecycle_entries = [e for e in history if e["kind"] == "lifecycle"]
        assert [e["action"] for e in lifecycle_entries] == ["leave", "reclaim", "resign"]
        assert [e["seat"] for e in lifecycle_entries] == [first, first, other]
        assert all(e["text"] and e["events"] == [] for e in lifecycle_entries)
        assert "revoked" not in json.dumps(history)


def test_a_resigned_match_exports_and_imports_with_its_lifecycle_entries(api):
    match_id, tokens, _admin = _create(api)
    first = _first(api, match_id)
    assert api.move(match_id, tokens[first], NIM_TAKE).status_code == 201
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[first]).status_code == 201
    doc = api.get(f"/api/matches/{match_id}/export").get_json()
    assert doc["complete"] and doc["outcome"]["winners"] == [1 - first]
    r = api.post("/api/matches/import", doc)
    assert r.status_code == 201, r.get_json()
    imported = r.get_json()["match"]
    assert imported["status"] == "finished" and imported["outcome"] == doc["outcome"]
    # a resignation whose outcome was edited is refused
    doc["entries"][-1]["outcome"] = {"scores": [1.0, 1.0], "winners": [0, 1]}
    problem(api.post("/api/matches/import", doc), 422, "tampered-log")


def test_hostile_requests_to_lifecycle_endpoints_get_problems_and_change_nothing(api):
    match_id, tokens, admin = _create(api)
    base = f"/api/matches/{match_id}"
    cases = [
        (api.call("POST", f"{base}/leave", raw="{not json", token=tokens[0]), 400),
        (api.post(f"{base}/leave", {"level": 5}, token=tokens[0]), 422),
        (api.post(f"{base}/leave", {"level": "x" * 65}, token=tokens[0]), 422),
        (api.post(f"{base}/leave", {"level": "greedy", "extra": 1}, token=tokens[0]), 422),
        (api.post(f"{base}/leave", [], token=tokens[0]), 422),
        (api.post(f"{base}/resign", token="Bearer\x00"), 401),
        (api.post(f"{base}/rematch"), 401),
        (api.post(f"{base}/rematch", token="z" * 5000), 401),
        (api.post(f"{base}/seats/99999999999999999999/reclaim", token=admin), 404),
        (api.post("/api/matches/..%2F..%2Fetc/resign", token=tokens[0]), 404),
        (api.post("/api/matches/nope/seats/0/reclaim", token=admin), 404),
        (api.post(f"{base}/seats/99999999999999999999/release", token=admin), 404),
        (api.post(f"{base}/seats/0/release", token="Bearer\x00"), 401),
        (api.post(f"{base}/seats/0/release", token=admin), 409),
        (api.post("/api/matches/nope/seats/0/release", token=admin), 404),
    ]
    for response, status in cases:
        assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
        assert response.mimetype == "application/problem+json" and response.get_json()["code"]
    assert api.state(match_id)["version"] == 1
    assert api.state(match_id, tokens[0])["seat"] == 0


def test_a_person_whose_turn_an_ai_plays_sees_no_legal_moves_and_cannot_move(api, matches):
    matches.clock = _Clock(3_000_000.0)
    match_id, tokens, _admin = _create(api, clock={"per_move": 5})
    first = _first(api, match_id)
    assert matches.timeout_due(match_id, 1, first, 3_000_005.0)["status"] == "applied"
    assert api.get(f"/api/matches/{match_id}/legal-moves", token=tokens[first]).get_json()["moves"] == []
    state = api.get(f"/api/matches/{match_id}/state?include=legal_moves", token=tokens[first]).get_json()
    assert state["legal_moves"] == []
    assert state["seat_control"][first]["takeover"] == {"level": "random", "until": "turn"}
    problem(api.move(match_id, tokens[first], NIM_TAKE), 409, "seat-played-by-ai")
    [entry] = _history(api, match_id)[-1:]
    assert entry["action"] == "timeout" and entry["text"] == [
        f"{['Ana', 'Bo'][first]} ran out of time; an AI (random) plays this turn."
    ]


def test_a_move_after_its_seats_deadline_is_refused_and_the_timeout_policy_applied_once(
    api, matches, redis_client, caplog
):
    matches.clock = clock = _Clock(6_000_000.0)
    match_id, tokens, _admin = _create(
        api, clock={"per_move": 10}, timeout={"action": "ai-turn", "level": "greedy"}
    )
    first = _first(api, match_id)
    clock.t += 10.0  # the deadline itself: the time has run out
    body = problem(api.move(match_id, tokens[first], NIM_TAKE, expected_version=1), 409, "out-of-time")
    assert body["deadline"] == 6_000_010.0 and body["current_version"] == 2
    assert "ai-turn" in body["detail"]
    [entry] = _history(api, match_id)[-1:]
    assert (entry["version"], entry["action"], entry["seat"]) == (2, "timeout", first)
    assert entry["time"] == 6_000_010.0
    state = api.state(match_id, tokens[first])
    assert state["seat_control"][first]["takeover"] == {"level": "greedy", "until": "turn"}
    # the AI plays the turn (its job is queued); another try does not time the seat out again
    problem(api.move(match_id, tokens[first], NIM_TAKE), 409, "seat-played-by-ai")
    queue = Queue("gameroom-ai", connection=redis_client, serializer=JSONSerializer)
    assert queue.job_ids == [keys.ai_job_id(match_id, 2, first)]
    # the timeout job of version 1 finds the match moved on
    assert matches.timeout_due(match_id, 1, first, clock.t)["status"] == "stale"
    assert [e["action"] for e in _history(api, match_id) if e["kind"] == "lifecycle"] == ["timeout"]
    assert not [r for r in caplog.records if r.exc_info]


def test_a_late_move_under_a_forfeit_policy_ends_the_match_and_is_refused(api, matches):
    matches.clock = clock = _Clock(7_000_000.0)
    match_id, tokens, _admin = _create(api, clock={"bank": 30, "increment": 2}, timeout={"action": "forfeit"})
    first = _first(api, match_id)
    clock.t += 31.0
    problem(api.move(match_id, tokens[first], NIM_TAKE), 409, "out-of-time")
    summary = api.get(f"/api/matches/{match_id}").get_json()
    assert summary["status"] == "finished" and summary["outcome"]["winners"] == [1 - first]
    assert [e["kind"] for e in _history(api, match_id)] == ["setup", "lifecycle"]
    problem(api.move(match_id, tokens[first], NIM_TAKE), 409, "match-over")


def test_a_leave_or_undo_after_the_deadline_does_not_escape_a_forfeit(api, matches):
    """A leave sent late would hand the seat to an AI and the forfeit would never come."""
    for action, body in (("leave", {"level": "greedy"}), ("undo", {"steps": 1})):
        matches.clock = clock = _Clock(9_000_000.0)
        match_id, tokens, _admin = _create(api, clock={"per_move": 10}, timeout={"action": "forfeit"})
        first = _first(api, match_id)
        assert api.move(match_id, tokens[first], NIM_TAKE).status_code == 201
        second = 1 - first
        assert api.move(match_id, tokens[second], NIM_TAKE).status_code == 201
        clock.t += 10.0  # the first seat's deadline
        late = api.post(f"/api/matches/{match_id}/{action}", body, token=tokens[first])
        problem(late, 409, "out-of-time")
        summary = api.get(f"/api/matches/{match_id}").get_json()
        assert summary["status"] == "finished" and summary["outcome"]["winners"] == [second], action
        assert [e.get("action") for e in _history(api, match_id)][-1] == "timeout"


def test_a_move_just_before_the_deadline_is_accepted_with_its_time(api, matches):
    matches.clock = clock = _Clock(8_000_000.0)
    match_id, tokens, _admin = _create(api, clock={"per_move": 10}, timeout={"action": "forfeit"})
    first = _first(api, match_id)
    clock.t += 9.999
    assert api.move(match_id, tokens[first], NIM_TAKE).status_code == 201
    [entry] = _history(api, match_id)[-1:]
    assert entry["kind"] == "move" and entry["time"] == 8_000_009.999
    # the other seat's clock started with that move: ten seconds later its move is late too
    clock.t += 10.0
    problem(api.move(match_id, tokens[1 - first], NIM_TAKE), 409, "out-of-time")


def test_a_fork_of_a_clocked_match_starts_its_own_clocks_and_players(api, matches):
    matches.clock = clock = _Clock(4_000_000.0)
    match_id, tokens, _admin = _create(api, clock={"per_move": 30})
    first = _first(api, match_id)
    clock.t += 5
    assert api.move(match_id, tokens[first], NIM_TAKE).status_code == 201
    clock.t += 1
    assert api.post(f"/api/matches/{match_id}/leave", {}, token=tokens[1 - first]).status_code == 201
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[first]).status_code == 201
    clock.t += 1000
    r = api.post(f"/api/matches/{match_id}/fork", {"version": 3})
    assert r.status_code == 201, r.get_json()
    fork = r.get_json()["match"]
    assert fork["version"] == 4 and fork["status"] == "active"
    assert [c["takeover"] for c in fork["seat_control"]] == [None, None]
    [seat] = fork["active_seats"]
    assert fork["clock"]["running"] == [seat] and fork["clock"]["seats"][seat]["deadline"] == 4_001_036.0
    assert _history(api, fork["id"])[-1]["action"] == "start"
