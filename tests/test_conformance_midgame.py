"""The kit's mid-game check compares replay (a fold of the log's prefix from scratch) with the
live state the play loop carried, so a game whose live state replay cannot rebuild fails it."""

import json

import pytest

from gameroom.testing.conformance import GameConformance
from gameroom_nim import Nim


class MemoNim(Nim):
    """Nim whose evolve counts the events it sees for the first time (a cache leaking into the
    state). Replays agree with each other but not with the live match; the count is dropped
    once the match is over, so the final state replays fine."""

    def __init__(self):
        self.seen: set[str] = set()

    def evolve(self, state, event):
        key = json.dumps(event, sort_keys=True)
        fresh = key not in self.seen
        self.seen.add(key)
        new = super().evolve(state, event)
        if new["winner"] is not None:
            return {k: v for k, v in new.items() if k != "first_seen"}
        return {**new, "first_seen": (state or {}).get("first_seen", 0) + fresh}


def test_a_live_state_that_replay_does_not_rebuild_fails_the_mid_game_check():
    with pytest.raises(AssertionError, match="replay of the first half differs from the live state"):
        GameConformance().test_mid_game_sampling_and_replay(MemoNim())


def test_nim_itself_passes_the_mid_game_check():
    GameConformance().test_mid_game_sampling_and_replay(Nim())
