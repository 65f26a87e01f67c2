"""Every game's golden playthroughs: they fold, re-decide and import exactly as recorded."""

import json
from pathlib import Path

import pytest

from gameroom.application import History
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
    from gameroom.application.logcheck import TamperedLog

    data = json.loads(FILES[0].read_text())
    game = registry.get(data["game"])
    doc = golden.as_export(data, game)
    k = len(doc["entries"]) // 2
    doc["entries"][k] = {**doc["entries"][k], "events": doc["entries"][k]["events"] + [{"type": "forged"}]}
    with pytest.raises(TamperedLog) as caught:
        History(plain_matches).import_(doc)
    assert caught.value.extra["version"] == k + 1


def test_a_server_written_log_with_sealed_steps_replays_as_a_golden_playthrough(plain_matches, registry):
    """A Look at the Stars log written through the server carries each seat's sealed steps in
    its confirming entry; recorded as a golden playthrough it re-decides them too."""
    game = registry.get("look-at-the-stars")
    loaded, _ = plain_matches.create(game.info.slug, [{"name": "A"}, {"name": "B"}], None, seed="g-sealed")
    match_id = loaded.record.id
    while game.outcome(plain_matches.load(match_id).folded.state) is None:
        for seat in (0, 1):
            own = plain_matches.with_draft(plain_matches.load(match_id), seat).seen.state
            moves = game.legal_moves(own, seat)
            plain_matches.submit(
                match_id, seat, next((m for m in moves if m["type"] == "skip_card"), moves[0])
            )
            plain_matches.submit(match_id, seat, {"type": "confirm_turn"})
    entries = plain_matches.store.read(match_id)
    assert all(len(e.get("sealed", ())) == 1 for e in entries[1:])
    final = plain_matches.load(match_id).folded.state
    data = {"game": game.info.slug, "num_seats": 2, "seed": "g-sealed", "entries": entries}
    golden.check(game, data | {"final_state": final, "outcome": game.outcome(final)})
    forged = [dict(e) for e in entries]
    forged[3] = {**forged[3], "sealed": [{**forged[3]["sealed"][0], "events": []}]}
    with pytest.raises(AssertionError, match="sealed step"):
        golden.check(game, data | {"entries": forged, "final_state": final, "outcome": game.outcome(final)})
