"""`gameroom serve` as a user runs it: a real process, embedded Redis, AI worker, Ctrl-C."""

import os
import re
import signal
import subprocess
import time

import pytest

from gameroom.testing.served import GAMEROOM, Served, http_json


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_serve_answers_plays_ai_stops_on_ctrl_c_and_keeps_matches(tmp_path):
    server = Served(tmp_path, workers=1).start()
    try:
        status, games = http_json("GET", server.base + "/api/games")
        assert status == 200 and "nim" in [g["slug"] for g in games]
        # One human against the AI worker: the bot answers every human move by itself.
        _, created = http_json(
            "POST",
            server.base + "/api/matches",
            {"game": "nim", "seats": [{"name": "Ana"}, {"name": "Bot", "ai": "greedy"}], "seed": "x"},
        )
        match_id, token = created["match"]["id"], created["tokens"]["0"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            _, summary = http_json("GET", f"{server.base}/api/matches/{match_id}")
            if summary["status"] == "finished":
                break
            if summary["active_seats"] == [0]:
                _, legal = http_json("GET", f"{server.base}/api/matches/{match_id}/legal-moves", token=token)
                http_json(
                    "POST",
                    f"{server.base}/api/matches/{match_id}/moves",
                    {"move": legal["moves"][0]},
                    token=token,
                )
            else:
                time.sleep(0.05)
        assert summary["status"] == "finished", summary
        _, history = http_json("GET", f"{server.base}/api/matches/{match_id}/events?limit=500")
        assert any(e["seat"] == 1 and e["kind"] == "move" for e in history["entries"]), "the AI never moved"
        redis_pid = int((tmp_path / "var" / "redis.pid").read_text())
        assert _alive(redis_pid)
    finally:
        code = server.stop()
    assert code == 0, (tmp_path / "serve.log").read_text()
    deadline = time.monotonic() + 10
    while _alive(redis_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(redis_pid), "redis-server was left behind"
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert leftovers == []

    again = Served(tmp_path, workers=1).start()
    try:
        _, summary = http_json("GET", f"{again.base}/api/matches/{match_id}")
        assert summary["status"] == "finished" and summary["version"] == history["version"]
    finally:
        assert again.stop() == 0


@pytest.mark.slow
def test_ctrl_c_with_a_live_stream_open_stops_cleanly_without_a_traceback(tmp_path):
    import socket

    server = Served(tmp_path, workers=1, ai_workers=0).start()
    try:
        _, created = http_json(
            "POST", server.base + "/api/matches", {"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]}
        )
        stream = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        stream.sendall(
            f"GET /api/matches/{created['match']['id']}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        assert stream.recv(64).startswith(b"HTTP/1.1 200")  # the stream is open
        time.sleep(1)  # and waiting for entries
        # Ctrl-C as a terminal sends it: SIGINT to the server and to its HTTP worker (which gunicorn
        # also sends SIGQUIT), one process after the other
        pids = subprocess.run(["pgrep", "-f", f"serve --port {server.port}"], capture_output=True, text=True)
        for pid in sorted(int(p) for p in pids.stdout.split()):
            os.kill(pid, signal.SIGINT)
        server.proc.wait(30)
    finally:
        code = server.stop()
    log = (tmp_path / "serve.log").read_text()
    assert code == 0, log
    assert "Traceback" not in log and "failed with SystemExit" not in log, log


#: The start of a line of the log format (``gameroom``'s own loggers) and of gunicorn's.
STAMPED = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ [\w.]+: |\[\d{4}-\d\d-\d\d )")


@pytest.mark.slow
def test_replay_shares_a_running_server_redis_and_every_line_logged_has_a_time(tmp_path):
    server = Served(tmp_path, workers=1, ai_workers=0).start()
    try:
        _, created = http_json(
            "POST", server.base + "/api/matches", {"game": "nim", "seats": [{"name": "A"}, {"name": "B"}]}
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
        replay = subprocess.run(
            [str(GAMEROOM), "replay", created["match"]["id"]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        code = server.stop()
    assert replay.returncode == 0, replay.stderr
    assert "Nim match" in replay.stdout
    assert [line for line in replay.stderr.splitlines() if not STAMPED.match(line)] == []
    assert f"INFO gameroom: using the running embedded Redis in {tmp_path / 'var'}" in replay.stderr
    log = (tmp_path / "serve.log").read_text()
    assert code == 0, log
    assert [line for line in log.splitlines() if line and not STAMPED.match(line)] == []
    assert re.search(r"INFO gameroom: serving on http://127\.0\.0\.1:\d+ ", log), log
    assert any(line.endswith("INFO gameroom: stopped") for line in log.splitlines()), log


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    server = Served(tmp_path_factory.mktemp("live"), workers=1).start()
    yield server
    assert server.stop() == 0


SHORT = {"stars-are-right": {"turn_limit": 2}}


@pytest.mark.slow
@pytest.mark.parametrize(
    "slug", [g.slug for g in __import__("gameroom.registry", fromlist=["x"]).build_registry()]
)
def test_every_game_plays_to_the_end_over_realhttp_json(live_server, slug):
    """A client that knows nothing but the HTTP API plays a whole match, every seat human."""
    import random

    base = live_server.base
    game = next(g for g in http_json("GET", base + "/api/games")[1] if g["slug"] == slug)
    n = max(2, game["min_players"])
    _, created = http_json(
        "POST",
        base + "/api/matches",
        {"game": slug, "seats": [{"name": f"P{i}"} for i in range(n)], "options": SHORT.get(slug, {})},
    )
    match_id, tokens = created["match"]["id"], {int(k): v for k, v in created["tokens"].items()}
    rnd = random.Random(slug)
    state = created["match"]
    # max_steps is null for a game whose default matches are unbounded: SHORT bounds them.
    for _ in range(game["max_steps"] or 2 * 4 * 40):
        if state["status"] == "finished":
            break
        seat = rnd.choice(state["active_seats"])
        _, legal = http_json("GET", f"{base}/api/matches/{match_id}/legal-moves", token=tokens[seat])
        status, body = http_json(
            "POST",
            f"{base}/api/matches/{match_id}/moves",
            {"move": rnd.choice(legal["moves"]), "expected_version": legal["version"]},
            token=tokens[seat],
        )
        assert status == 201
        state = body["state"]
    assert state["status"] == "finished" and state["outcome"]["winners"] is not None
    _, history = http_json("GET", f"{base}/api/matches/{match_id}/events?limit=500")
    assert history["entries"][0]["kind"] == "setup" and history["version"] == state["version"]
