"""Golden playthroughs: recorded matches must fold to the recorded end."""

import json
from pathlib import Path

import pytest

from plugins.tiny_stellar_empires import TinyStellarEmpires
from service.core.decider import fold

G = TinyStellarEmpires()
FILES = sorted(Path(__file__).with_name("golden").glob("*.json"))


def test_golden_files_exist():
    assert len(FILES) >= 3


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_playthrough_refolds_to_the_recorded_end(path):
    record = json.loads(path.read_text())
    assert record["game"] == G.info.slug
    folded = fold(G, record["entries"])
    assert folded.state == record["final_state"]
    assert G.outcome(folded.state) == record["outcome"]
    assert folded.state["turns"] == [folded.state["T"]] * record["num_seats"]
