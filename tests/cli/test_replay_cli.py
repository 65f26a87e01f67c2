"""`gameroom replay MATCH`: rebuild a match from its events and print it."""

import json

from click.testing import CliRunner

from gameroom.cli import main


def _finished_nim(plain_matches):
    loaded, _ = plain_matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": [2, 1]}, seed="cli")
    match_id = loaded.record.id
    game = plain_matches.registry.get("nim")
    while True:
        loaded = plain_matches.load(match_id)
        active = game.active_seats(loaded.folded.state)
        if not active:
            return match_id, loaded
        plain_matches.submit(match_id, active[0], game.legal_moves(loaded.folded.state, active[0])[0])


def test_replay_prints_final_state_and_outcome(plain_matches, redis_server):
    match_id, loaded = _finished_nim(plain_matches)
    env = {"GAMEROOM_REDIS_URL": redis_server.url}
    result = CliRunner().invoke(main, ["replay", match_id, "--json"], env=env)
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed["state"] == loaded.folded.state and printed["version"] == loaded.version
    assert (
        printed["outcome"]["winners"]
        == plain_matches.game(loaded.record).outcome(loaded.folded.state)["winners"]
    )


def test_replay_steps_tells_the_match_in_sentences(plain_matches, redis_server):
    match_id, loaded = _finished_nim(plain_matches)
    result = CliRunner().invoke(
        main, ["replay", match_id, "--steps"], env={"GAMEROOM_REDIS_URL": redis_server.url}
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("v")]
    assert len(lines) == loaded.version
    assert "Piles [2, 1]" in lines[0] and ("Ana took" in lines[1] or "Bo took" in lines[1])
    assert "outcome:" in result.output


def test_replay_of_an_unknown_match_fails_clearly(redis_server):
    result = CliRunner().invoke(main, ["replay", "nope"], env={"GAMEROOM_REDIS_URL": redis_server.url})
    assert result.exit_code != 0 and "No match nope" in result.output


def test_replay_of_a_resigned_match_tells_the_resignation_and_its_outcome(plain_matches, redis_server):
    from gameroom.lifecycle import Lifecycle

    loaded, _ = plain_matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}], seed="cli-resign")
    Lifecycle(plain_matches).resign(loaded.record.id, 1)
    env = {"GAMEROOM_REDIS_URL": redis_server.url}
    result = CliRunner().invoke(main, ["replay", loaded.record.id, "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["outcome"] == {"scores": [1.0, 0.0], "winners": [0]}
    result = CliRunner().invoke(main, ["replay", loaded.record.id, "--steps"], env=env)
    assert "v    2  Bo resigned." in result.output
