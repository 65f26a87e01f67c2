"""An import stores the log as the server would have written it, never as the client sent it.

Re-deciding checks a log's events, draws and undo states; its other fields (times, rules
versions, AI actors, lifecycle records, clock settings) are checked against the form the
server writes them in, and any other key is refused, so that no imported match can break
the lobby, its history or its export for anyone (a tampered ``rules_version`` once made
the lobby answer 500 for every client, until the match was deleted by hand).
"""

import copy

import pytest

from .conftest import problem

NIM_TAKE = {"type": "take", "pile": 0, "count": 1}


def _create(api, **body):
    r = api.post("/api/matches", {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bo"}], **body})
    assert r.status_code == 201, r.get_json()
    data = r.get_json()
    return data["match"]["id"], {int(k): v for k, v in data["tokens"].items()}, data["admin_token"]


def _active(api, match_id):
    return api.state(match_id)["active_seats"][0]


@pytest.fixture
def rich_export(api):
    """A finished Nim match with a clock, a leave and a reclaim, an undo, a resignation and a
    rematch: every kind of entry and every lifecycle field the server writes."""
    match_id, tokens, admin = _create(
        api, clock={"bank": 600, "increment": 5}, timeout={"action": "ai-turn", "level": "greedy"}
    )
    base = f"/api/matches/{match_id}"
    seat = _active(api, match_id)
    assert api.post(f"{base}/leave", {"level": "greedy"}, token=tokens[seat]).status_code == 201
    r = api.post(f"{base}/seats/{seat}/reclaim", token=admin)
    assert r.status_code == 201, r.get_json()
    tokens[seat] = r.get_json()["token"]
    for _ in range(3):
        seat = _active(api, match_id)
        assert api.move(match_id, tokens[seat], NIM_TAKE).status_code == 201
    assert api.post(f"{base}/undo", {"steps": 1}, token=tokens[seat]).status_code == 201
    assert api.post(f"{base}/resign", token=tokens[1 - seat]).status_code == 201
    assert api.post(f"{base}/rematch", token=tokens[seat]).status_code == 201
    doc = api.get(f"{base}/export").get_json()
    kinds = {e["kind"] for e in doc["entries"]} | {e.get("action") for e in doc["entries"]}
    assert {"setup", "move", "undo", "leave", "reclaim", "resign", "rematch"} <= kinds
    return doc


def _lobby_ids(api):
    r = api.get("/api/matches?limit=200")
    assert r.status_code == 200, r.get_data(as_text=True)
    return {m["id"] for m in r.get_json()["matches"]}


def test_an_imported_log_is_stored_exactly_as_the_server_wrote_it(api, rich_export):
    r = api.post("/api/matches/import", rich_export)
    assert r.status_code == 201, r.get_json()
    again = api.get(f"/api/matches/{r.get_json()['match']['id']}/export").get_json()
    assert again["entries"] == rich_export["entries"]
    assert again["options"] == rich_export["options"] and again["outcome"] == rich_export["outcome"]


def _setup(doc):
    return doc["entries"][0]


def _move(doc):
    return next(e for e in doc["entries"] if e["kind"] == "move")


def _action(name):
    return lambda doc: next(e for e in doc["entries"] if e.get("action") == name)


def _undo(doc):
    return next(e for e in doc["entries"] if e["kind"] == "undo")


TAMPERINGS = {
    "rules_version a list": (_setup, "rules_version", []),
    "rules_version null": (_move, "rules_version", None),
    "rules_version 0": (_move, "rules_version", 0),
    "rules_version a string": (_move, "rules_version", "2"),
    "rules_version true": (_move, "rules_version", True),
    "rules_version from the future": (_move, "rules_version", 999),
    "time a string": (_move, "time", "<script>"),
    "time negative": (_setup, "time", -1),
    "time in the year 5000": (_move, "time", 1e11),
    "an unknown key": (_move, "undone", "maybe"),
    "another unknown key": (_action("resign"), "x", 1),
    "drew that the move did not draw": (_move, "drew", "yes"),
    "reveal changed": (_move, "reveal", True),
    "a seat that is a boolean": (_move, "seat", True),
    "an actor that is no AI": (_move, "actor", "<b>me</b>"),
    "a clock that is a string": (_setup, "lifecycle", {"clock": "x", "timeout": None}),
    "a clock with a negative bank": (_setup, "lifecycle", {"clock": {"bank": -5}, "timeout": None}),
    "a timeout level the game lacks": (
        _setup,
        "lifecycle",
        {
            "clock": {"bank": 60.0, "per_move": None, "increment": 0.0},
            "timeout": {"action": "ai-turn", "level": "x"},
        },
    ),
    "started not a boolean": (_setup, "started", "yes"),
    "setup options other than the match's": (_setup, "options", {"piles": [1, 1]}),
    "a leave to an unknown level": (_action("leave"), "level", "grandmaster"),
    "a leave's revoked tokens not digests": (_action("leave"), "revoked", ["../../etc/passwd"]),
    "a rematch naming no match id": (_action("rematch"), "next", {"$ne": 1}),
    "an outcome on a reclaim": (_action("reclaim"), "outcome", {"scores": [1, 0], "winners": [0]}),
    "num_seats changed": (_action("reclaim"), "num_seats", 7),
    "undoes that are not the undone versions": (_undo, "undoes", [1]),
    "an undo request id that is no id": (_undo, "request", "<x>"),
}


@pytest.mark.parametrize("case", sorted(TAMPERINGS))
def test_an_entry_field_the_server_never_writes_is_a_tampered_log_and_nothing_is_stored(
    api, rich_export, case
):
    pick, key, value = TAMPERINGS[case]
    doc = copy.deepcopy(rich_export)
    pick(doc)[key] = value
    before = _lobby_ids(api)
    body = problem(api.post("/api/matches/import", doc), 422, "tampered-log")
    assert body["version"] == doc["entries"].index(pick(doc)) + 1
    assert _lobby_ids(api) == before  # nothing stored, and the lobby still answers


def test_a_log_of_an_earlier_rules_version_is_stored_under_the_current_one(api, rich_export):
    """Re-deciding gave every entry's events under the current rules, so that is what they are:
    no upcast (written for events of the earlier version) ever runs on them."""
    current = rich_export["entries"][0]["rules_version"]
    doc = copy.deepcopy(rich_export)
    for entry in doc["entries"]:
        entry["rules_version"] = 1
    r = api.post("/api/matches/import", doc)
    assert r.status_code == 201, r.get_json()
    match_id = r.get_json()["match"]["id"]
    stored = api.get(f"/api/matches/{match_id}/export").get_json()["entries"]
    assert {e["rules_version"] for e in stored} == {current}
    assert api.get(f"/api/matches/{match_id}/events").status_code == 200
    assert match_id in _lobby_ids(api)


def test_a_match_whose_log_does_not_fold_is_left_out_of_the_lobby_which_still_answers(api, caplog):
    """Defence in depth: however a bad entry got into a log, the lobby lists the other matches."""
    good, _, _ = _create(api)
    bad, tokens, _ = _create(api)
    store = api.client.application.extensions["gameroom"].store
    version = api.state(bad)["version"]
    store.append(bad, {"kind": "move", "seat": 0, "move": NIM_TAKE, "events": [{"type": "took"}]}, version)
    api.client.application.extensions["gameroom"]._cache.forget_beyond(bad, 0)
    listed = _lobby_ids(api)
    assert good in listed and bad not in listed
    assert any(f"match {bad} left out of the lobby" in r.getMessage() for r in caplog.records)
