"""No match is ever stuck: every installed game, played through `gameroom serve` with one human
seat that never moves and a 1 s clock on the shipped timeout policy, finishes."""

import time

import pytest

from gameroom.registry import build_registry
from gameroom.testing.served import Served, http_json

#: Shorter matches (the rules' own turn limit) keep the suite within CI's budget.
OPTIONS = {"stars-are-right": {"turn_limit": 4}}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_every_game_finishes_with_a_silent_human_seat_on_a_1_s_clock(tmp_path):
    games = [g.slug for g in build_registry()]
    # `gameroom serve` as shipped (one HTTP worker, two AI workers), shut down on exit
    with Served(tmp_path, workers=1, ai_workers=2) as server:
        base = server.base
        pending, tokens = {}, {}
        for slug in games:
            seats = [{"name": "Silent"}, {"name": "Bot", "ai": "greedy"}]
            created = http_json(
                "POST",
                base + "/api/matches",
                {"game": slug, "seats": seats, "options": OPTIONS.get(slug, {}), "clock": {"per_move": 1}},
            )[1]
            pending[slug] = created["match"]["id"]
            tokens[slug] = created["tokens"]["0"]
            assert created["match"]["clock"]["control"]["per_move"] == 1
        summaries = {}
        deadline = time.monotonic() + 800
        while pending and time.monotonic() < deadline:
            for slug, match_id in list(pending.items()):
                summaries[slug] = http_json("GET", f"{base}/api/matches/{match_id}")[1]
                if summaries[slug]["status"] == "finished":
                    del pending[slug]
            time.sleep(1)
        assert not pending, {slug: summaries.get(slug) for slug in pending}
        for slug, summary in summaries.items():
            assert summary["outcome"] is not None, slug
            history = http_json("GET", f"{base}/api/matches/{summary['id']}/events?limit=500")[1]["entries"]
            timeouts = [e for e in history if e["kind"] == "lifecycle" and e["action"] == "timeout"]
            # the silent seat never moved by itself: every one of its turns began with a timeout
            assert timeouts and all(e["seat"] == 0 for e in timeouts), slug
            assert all(e["policy"] == {"action": "ai-turn", "level": "random"} for e in timeouts), slug
