"""Every game's golden playthroughs: they fold, re-decide and import exactly as recorded."""

import json
from pathlib import Path

import pytest

from gameroom.history import History
from gameroom.testing import golden

FILES = sorted(Path(__file__).parent.glob("plugins/*/golden/*.json"))


def test_every_first_party_game_has_golden_playthroughs(registry):
    games = {json.loads(p.read_text())["game"] for p in FILES}
    assert {"stars-are-right", "look-at-the-stars", "tiny-stellar-empires"} <= games
    assert len(FILES) >= 9


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_golden_playthrough_replays_exactly(registry, path):
    data = json.loads(path.read_text())
    golden.check(registry.get(data["game"]), data)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_golden_playthrough_import_round_trips(plain_matches, registry, path):
    data = json.loads(path.read_text())
    game = registry.get(data["game"])
    loaded = History(plain_matches).import_(golden.as_export(data, game))
    assert loaded.record.read_only
    assert loaded.folded.state == data["final_state"]
    assert plain_matches.store.read(loaded.record.id)[-1]["events"] == data["entries"][-1]["events"]


def test_a_tampered_golden_log_is_refused_at_its_first_bad_version(plain_matches, registry):
    from gameroom.history import TamperedLog

    data = json.loads(FILES[0].read_text())
    game = registry.get(data["game"])
    doc = golden.as_export(data, game)
    k = len(doc["entries"]) // 2
    doc["entries"][k] = {**doc["entries"][k], "events": doc["entries"][k]["events"] + [{"type": "forged"}]}
    with pytest.raises(TamperedLog) as caught:
        History(plain_matches).import_(doc)
    assert caught.value.extra["version"] == k + 1
