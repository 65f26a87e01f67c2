"""Golden playthroughs: recorded logs must fold to the recorded final state and outcome."""
import json
import pathlib

import pytest

from plugins.look_at_the_stars import LookAtTheStars
from service.core.decider import fold

GAME = LookAtTheStars()
FILES = sorted((pathlib.Path(__file__).with_name("golden")).glob("*.json"))


def test_golden_files_exist():
    assert len(FILES) >= 3


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_golden_playthrough_refolds_identically(path):
    record = json.loads(path.read_text())
    assert record["game"] == GAME.info.slug
    folded = fold(GAME, record["entries"])
    assert folded.state == record["final_state"]
    assert GAME.outcome(folded.state) == record["outcome"]
    assert len(record["outcome"]["scores"]) == record["num_seats"]
