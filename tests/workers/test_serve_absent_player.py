"""No match is ever stuck: every installed game, played through `gameroom serve` with one human
seat that never moves and a 1 s clock on the shipped timeout policy, finishes."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from gameroom.registry import build_registry

GAMEROOM = Path(sys.executable).with_name("gameroom")
#: Shorter matches (the rules' own turn limit) keep the suite within CI's budget.
OPTIONS = {"stars-are-right": {"turn_limit": 4}}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_every_game_finishes_with_a_silent_human_seat_on_a_1_s_clock(tmp_path):
    games = [g.slug for g in build_registry()]
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen(
        [str(GAMEROOM), "serve", "--port", str(port), "--workers", "1", "--ai-workers", "2"],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _http("GET", base + "/api/readyz")
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, (
                    tmp_path / "serve.log"
                ).read_text()
                time.sleep(0.2)
        pending, tokens = {}, {}
        for slug in games:
            seats = [{"name": "Silent"}, {"name": "Bot", "ai": "greedy"}]
            created = _http(
                "POST",
                base + "/api/matches",
                {"game": slug, "seats": seats, "options": OPTIONS.get(slug, {}), "clock": {"per_move": 1}},
            )
            pending[slug] = created["match"]["id"]
            tokens[slug] = created["tokens"]["0"]
            assert created["match"]["clock"]["control"]["per_move"] == 1
        summaries = {}
        deadline = time.monotonic() + 800
        while pending and time.monotonic() < deadline:
            for slug, match_id in list(pending.items()):
                summaries[slug] = _http("GET", f"{base}/api/matches/{match_id}")
                if summaries[slug]["status"] == "finished":
                    del pending[slug]
            time.sleep(1)
        assert not pending, {slug: summaries.get(slug) for slug in pending}
        for slug, summary in summaries.items():
            assert summary["outcome"] is not None, slug
            history = _http("GET", f"{base}/api/matches/{summary['id']}/events?limit=500")["entries"]
            timeouts = [e for e in history if e["kind"] == "lifecycle" and e["action"] == "timeout"]
            # the silent seat never moved by itself: every one of its turns began with a timeout
            assert timeouts and all(e["seat"] == 0 for e in timeouts), slug
            assert all(e["policy"] == {"action": "ai-turn", "level": "random"} for e in timeouts), slug
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
