"""A match of every installed game with all seats AI runs to its end through `gameroom serve`, unattended."""

import time

import pytest

from gameroom.registry import build_registry
from gameroom.testing.served import Served, http_json

#: Seat levels per game: a search level against a cheaper one, so that every level plays somewhere
#: while the longest match stays within minutes.
LEVELS = {"stars-are-right": ["greedy", "mcts"]}
DEFAULT_LEVELS = ["mcts", "greedy"]
#: Shorter matches (the rules' own turn limit) keep the suite within CI's budget.
OPTIONS = {"stars-are-right": {"turn_limit": 4}}


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_every_game_plays_to_the_end_with_all_seats_ai(tmp_path):
    games = [g.slug for g in build_registry()]
    # `gameroom serve` as shipped (one HTTP worker, two AI workers), shut down on exit
    with Served(tmp_path, workers=1, ai_workers=2) as server:
        base = server.base
        created = {}
        for slug in games:
            levels = LEVELS.get(slug, DEFAULT_LEVELS)
            seats = [{"name": f"{level} bot", "ai": level} for level in levels]
            created[slug] = http_json(
                "POST",
                base + "/api/matches",
                {"game": slug, "seats": seats, "seed": "unattended", "options": OPTIONS.get(slug, {})},
            )[1]
        pending = {slug: c["match"]["id"] for slug, c in created.items()}
        summaries = {}
        deadline = time.monotonic() + 1400
        while pending and time.monotonic() < deadline:
            for slug, match_id in list(pending.items()):
                summaries[slug] = http_json("GET", f"{base}/api/matches/{match_id}")[1]
                if summaries[slug]["status"] == "finished":
                    del pending[slug]
            time.sleep(1)
        assert not pending, {slug: summaries.get(slug) for slug in pending}
        for slug, summary in summaries.items():
            assert summary["outcome"]["winners"], slug
