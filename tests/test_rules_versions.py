"""A game that changed its rules keeps old matches replayable (Nim's upcaster, rules v1 -> v2)."""

import json

from gameroom.core import decider
from gameroom.eventstore import keys

# A Nim match recorded under rules version 1: "took" events said "count".
V1_LOG = [
    {
        "version": 1,
        "kind": "setup",
        "seat": None,
        "game": "nim",
        "num_seats": 2,
        "options": {"piles": [2, 1], "max_take": None, "misere": False},
        "events": [{"type": "started", "piles": [2, 1], "first": 0, "max_take": None, "misere": False}],
        "drew": True,
        "reveal": True,
        "rules_version": 1,
    },
    {
        "version": 2,
        "kind": "move",
        "seat": 0,
        "move": {"type": "take", "pile": 0, "count": 2},
        "events": [{"type": "took", "seat": 0, "pile": 0, "count": 2}],
        "drew": False,
        "reveal": False,
        "rules_version": 1,
    },
]


def test_v1_events_are_upcast_on_replay(registry):
    nim = registry.get("nim")
    assert nim.info.rules_version == 2
    folded = decider.fold(nim, V1_LOG)
    assert folded.state["piles"] == [0, 1] and folded.rules_version == 1


def test_an_old_match_in_the_store_loads_and_plays_on_under_the_new_rules(plain_matches, redis_client):
    loaded, tokens = plain_matches.create("nim", [{"name": "A"}, {"name": "B"}])
    match_id = loaded.record.id
    # Replace its history by the v1 recording, as if it had been played before the upgrade.
    redis_client.delete(keys.events(match_id))
    for i, entry in enumerate(V1_LOG):
        plain_matches.store.append(match_id, {k: v for k, v in entry.items() if k != "version"}, i)
    plain_matches.caches.folds._items.clear()
    loaded = plain_matches.load(match_id)
    assert loaded.folded.state["piles"] == [0, 1] and loaded.folded.rules_version == 1
    result = plain_matches.submit(match_id, 1, {"type": "take", "pile": 1, "count": 1})
    assert result.entry["rules_version"] == 2 and result.entry["events"][0]["stones"] == 1
    plain_matches.caches.folds._items.clear()
    final = plain_matches.load(match_id)
    assert plain_matches.game(final.record).outcome(final.folded.state)["winners"] == [1]
    assert json.dumps(final.folded.state)
