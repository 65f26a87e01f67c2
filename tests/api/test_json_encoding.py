"""One JSON encoder (gameroom.jsoncodec) for every body: resources, problems, exports (stream frames too).

Before, problems and exports went through Flask's encoder, which sorts keys,
while resources kept the order they were built in: the same client saw two
orders. Now every body keeps the order in which the server built it.
"""

import json

from gameroom import jsoncodec
from gameroom.schemas.history import ExportSchema


def _keys(response):
    return list(json.loads(response.get_data()))


def test_problem_keys_keep_the_order_they_were_built_in(api, expect_problem):
    r = api.get("/api/matches/no-such-match/state")
    assert r.status_code == 404
    # Flask's encoder sorted them: code, detail, status, title, type
    assert _keys(r)[:5] == ["type", "title", "status", "detail", "code"]
    assert r.get_data() == jsoncodec.dumps(r.get_json())


def test_export_keys_follow_the_schema_not_the_alphabet(api):
    match_id, _tokens = api.create()
    r = api.get(f"/api/matches/{match_id}/export")
    assert r.status_code == 200
    declared = [name for name in ExportSchema().fields if name in r.get_json()]
    assert _keys(r) == declared
    assert declared != sorted(declared)  # the test could tell the two encoders apart
    assert r.get_data().rstrip(b"\n") == jsoncodec.dumps(r.get_json())


def test_resources_use_the_same_encoder(api):
    match_id, tokens = api.create()
    state = api.get(f"/api/matches/{match_id}/state", token=tokens[0])
    assert state.get_data() == jsoncodec.dumps(state.get_json())
    assert _keys(state)[:3] == ["match", "version", "status"]
