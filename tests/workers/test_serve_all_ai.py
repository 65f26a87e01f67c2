"""A match of every installed game with all seats AI runs to its end through `gameroom serve`, unattended."""

import json
import time
import urllib.request

import pytest

from gameroom.registry import build_registry
from gameroom.testing.served import Served

#: Seat levels per game: a search level against a cheaper one, so that every level plays somewhere
#: while the longest match stays within minutes.
LEVELS = {"stars-are-right": ["greedy", "mcts"]}
DEFAULT_LEVELS = ["mcts", "greedy"]
#: Shorter matches (the rules' own turn limit) keep the suite within CI's budget.
OPTIONS = {"stars-are-right": {"turn_limit": 4}}


def _http(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


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
            created[slug] = _http(
                "POST",
                base + "/api/matches",
                {"game": slug, "seats": seats, "seed": "unattended", "options": OPTIONS.get(slug, {})},
            )
        pending = {slug: c["match"]["id"] for slug, c in created.items()}
        summaries = {}
        deadline = time.monotonic() + 1400
        while pending and time.monotonic() < deadline:
            for slug, match_id in list(pending.items()):
                summaries[slug] = _http("GET", f"{base}/api/matches/{match_id}")
                if summaries[slug]["status"] == "finished":
                    del pending[slug]
            time.sleep(1)
        assert not pending, {slug: summaries.get(slug) for slug in pending}
        for slug, summary in summaries.items():
            assert summary["outcome"]["winners"], slug
