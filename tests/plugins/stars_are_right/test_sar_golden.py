"""Golden playthroughs: recorded matches must fold (and re-decide) to the recorded end."""
import json
from pathlib import Path

import pytest

from plugins.stars_are_right import StarsAreRight
from service.core.decider import Folded, apply_entry, decide, fold

GAME = StarsAreRight()
FILES = sorted(Path(__file__).with_name("golden").glob("*.json"))


def test_golden_files_exist():
    assert len(FILES) >= 3


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_playthrough_refolds_to_the_recorded_end(path):
    record = json.loads(path.read_text())
    assert record["game"] == GAME.info.slug
    folded = fold(GAME, record["entries"])
    assert folded.state == record["final_state"]
    assert GAME.outcome(folded.state) == record["outcome"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_moves_decide_to_the_recorded_events(path):
    record = json.loads(path.read_text())
    entries = record["entries"]
    folded = apply_entry(GAME, Folded(), entries[0])
    for entry in entries[1:]:
        again = decide(GAME, folded, entry["seat"], entry["move"], record["seed"])
        assert again["events"] == entry["events"], entry["version"]
        folded = apply_entry(GAME, folded, entry)
    assert folded.state == record["final_state"]
