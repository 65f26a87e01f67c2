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
    # Values that are no hashable key, or no seat where the fold needs one, once answered 500.
    "a kind that is a list": (_move, "kind", []),
    "an action that is an object": (_action("leave"), "action", {}),
    "a leave with no seat": (_action("leave"), "seat", None),
    "a reclaim with no seat": (_action("reclaim"), "seat", None),
    "a resign with no seat": (_action("resign"), "seat", None),
    # Fields that compare equal to what the server writes, or that nothing read, were stored as sent.
    "an undo target that is a float": (_undo, "target", lambda e: float(e["target"])),
    "an undo target that is a boolean": (_undo, "target", True),
    "undo keeps that are a string": (_undo, "keeps", ""),
    "undo keeps that are 0": (_undo, "keeps", 0),
    "undo keeps that are an object": (_undo, "keeps", {}),
    "undo keeps of booleans": (_undo, "keeps", [True]),
    "undo events that are a string": (_undo, "events", "x"),
    "undo events that are false": (_undo, "events", False),
    "an undo that draws": (_undo, "drew", "x"),
    "an undo that reveals": (_undo, "reveal", 0),
    "a leave that draws": (_action("leave"), "drew", "x"),
    "a reclaim that reveals": (_action("reclaim"), "reveal", None),
    "lifecycle events that are false": (_action("leave"), "events", False),
    "lifecycle events that are an empty object": (_action("resign"), "events", {}),
    # What the live actions check before they append.
    "an undo by the other seat": (_undo, "seat", lambda e: 1 - e["seat"]),
    "a reclaim of the seat that did not leave": (_action("reclaim"), "seat", lambda e: 1 - e["seat"]),
}


@pytest.mark.parametrize("case", sorted(TAMPERINGS))
def test_an_entry_field_the_server_never_writes_is_a_tampered_log_and_nothing_is_stored(
    api, rich_export, case
):
    pick, key, value = TAMPERINGS[case]
    doc = copy.deepcopy(rich_export)
    entry = pick(doc)
    entry[key] = value(entry) if callable(value) else value
    before = _lobby_ids(api)
    body = problem(api.post("/api/matches/import", doc), 422, "tampered-log")
    assert body["version"] == next(v for v, e in enumerate(doc["entries"], start=1) if e is entry)
    assert _lobby_ids(api) == before  # nothing stored, and the lobby still answers


def _renumbered(doc):
    for version, entry in enumerate(doc["entries"], start=1):
        entry["version"] = version


def _insert(doc, before, entry):
    """Put ``entry`` in the log before entry ``before`` (picked); returns the version it takes."""
    at = doc["entries"].index(before(doc))
    doc["entries"].insert(at, {"kind": "lifecycle", "events": [], "num_seats": 2, **entry})
    _renumbered(doc)
    return at + 1


def _lifecycle(action, **fields):
    return {"action": action, **fields}


def _second_resign(doc):
    doc["entries"].append({**_action("resign")(doc), "version": len(doc["entries"]) + 1})
    return len(doc["entries"])


def _reclaim_without_leave(doc):
    doc["entries"].remove(_action("leave")(doc))
    _renumbered(doc)
    return doc["entries"].index(_action("reclaim")(doc)) + 1


def _human_move_after_timeout(doc):
    """A timeout hands the seat to an AI for the rest of its turn: its next move has no AI actor."""
    move = _move(doc)
    _insert(doc, _move, _lifecycle("timeout", seat=move["seat"], policy=_setup(doc)["lifecycle"]["timeout"]))
    return doc["entries"].index(move) + 1


def _not_started(doc):
    _setup(doc)["started"] = False
    return 2  # the leave: no one acts before the last seat is taken and the clocks start


def _timeout_with_another_policy(doc):
    move = _move(doc)
    policy = {"action": "forfeit", "level": "greedy"}
    return _insert(doc, _move, _lifecycle("timeout", seat=move["seat"], policy=policy, outcome={}))


def _timeout_of_the_waiting_seat(doc):
    move = _move(doc)
    policy = _setup(doc)["lifecycle"]["timeout"]
    return _insert(doc, _move, _lifecycle("timeout", seat=1 - move["seat"], policy=policy))


ORDER = {
    "a second resignation after the end": _second_resign,
    "a reclaim with no leave before it": _reclaim_without_leave,
    "a rematch in the middle of the match": lambda doc: _insert(
        doc, _move, _lifecycle("rematch", seat=None, next="0123456789abcdef")
    ),
    "the clocks starting again mid-match": lambda doc: _insert(doc, _move, _lifecycle("start", seat=None)),
    "a release mid-match": lambda doc: _insert(doc, _move, _lifecycle("release", seat=0)),
    "a leave of a seat an AI plays already": lambda doc: _insert(
        doc, _action("reclaim"), _lifecycle("leave", seat=_action("leave")(doc)["seat"], level="greedy")
    ),
    "a human move for a seat an AI plays after its timeout": _human_move_after_timeout,
    "a timeout with a policy other than the match's": _timeout_with_another_policy,
    "a timeout of a seat whose clock is not running": _timeout_of_the_waiting_seat,
    "moves before the clocks started": _not_started,
}


@pytest.mark.parametrize("case", sorted(ORDER))
def test_a_lifecycle_entry_or_move_no_live_match_could_append_is_a_tampered_log(api, rich_export, case):
    doc = copy.deepcopy(rich_export)
    version = ORDER[case](doc)
    before = _lobby_ids(api)
    body = problem(api.post("/api/matches/import", doc), 422, "tampered-log")
    assert body["version"] == version
    assert _lobby_ids(api) == before


@pytest.mark.parametrize("spelling", [bool, float], ids=["booleans", "floats"])
def test_a_resignations_outcome_is_stored_as_the_game_computes_it(api, rich_export, spelling):
    """``winners: [true]`` or ``[1.0]`` compares equal to ``[1]``: it passes the check, and the
    game's own outcome is what is stored, never the client's spelling of it."""
    doc = copy.deepcopy(rich_export)
    resign = _action("resign")(doc)
    resign["outcome"]["winners"] = [spelling(w) for w in resign["outcome"]["winners"]]
    r = api.post("/api/matches/import", doc)
    assert r.status_code == 201, r.get_json()
    stored = api.get(f"/api/matches/{r.get_json()['match']['id']}/export").get_json()["entries"]
    winners = _action("resign")({"entries": stored})["outcome"]["winners"]
    assert winners == _action("resign")(rich_export)["outcome"]["winners"]
    assert all(type(w) is int for w in winners)


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
    api.client.application.extensions["gameroom"].caches.folds.forget_beyond(bad, 0)
    listed = _lobby_ids(api)
    assert good in listed and bad not in listed
    assert any(f"match {bad} left out of the lobby" in r.getMessage() for r in caplog.records)
