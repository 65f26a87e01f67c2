"""`gameroom replay MATCH`: rebuild a match from its events and print it."""

import json
import os

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


def test_replay_of_an_unknown_match_fails_clearly_naming_the_redis_it_searched(redis_server):
    result = CliRunner().invoke(main, ["replay", "nope"], env={"GAMEROOM_REDIS_URL": redis_server.url})
    assert result.exit_code == 1
    assert f"Error: No match nope in the Redis at {redis_server.url}." in result.output


#: No Redis configured and no data folder given: replay looks in ./var, as serve keeps it.
NOTHING_SET = {"GAMEROOM_REDIS_URL": None, "GAMEROOM_DATA_DIR": None, "GAMEROOM_QUEUE_REDIS_URL": None}


def test_replay_where_no_server_ran_creates_no_data_folder_and_says_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["replay", "abc"], env=NOTHING_SET)
    assert os.listdir(tmp_path) == []  # no ./var, no appendonly.aof, no redis-server started
    assert result.exit_code == 2 and result.output.count("Error:") == 1, result.output
    assert (
        f"No data folder at {tmp_path / 'var'}; set GAMEROOM_DATA_DIR or GAMEROOM_REDIS_URL" in result.output
    )


def test_replay_in_a_folder_with_no_server_data_writes_nothing_there(tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    result = CliRunner().invoke(
        main, ["replay", "abc"], env={**NOTHING_SET, "GAMEROOM_DATA_DIR": str(folder)}
    )
    assert result.exit_code == 2 and f"No match data in {folder}" in result.output, result.output
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_replay_of_an_unknown_match_in_a_data_folder_names_the_folder(tmp_path):
    from gameroom.eventstore.embedded import EmbeddedRedis

    folder = tmp_path / "var"
    with EmbeddedRedis(folder):  # a server's data: its append-only file
        pass
    result = CliRunner().invoke(
        main, ["replay", "nope"], env={**NOTHING_SET, "GAMEROOM_DATA_DIR": str(folder)}
    )
    assert result.exit_code == 1
    assert f"Error: No match nope in the embedded Redis of the data folder {folder}." in result.output


def test_replay_help_says_where_it_reads_the_match():
    result = CliRunner().invoke(main, ["replay", "--help"])
    text = " ".join(result.output.split())
    assert "GAMEROOM_REDIS_URL" in text and "GAMEROOM_DATA_DIR" in text
    assert "never creates a data folder" in text


def test_replay_of_a_resigned_match_tells_the_resignation_and_its_outcome(plain_matches, redis_server):
    from gameroom.application import Seats

    loaded, _ = plain_matches.create("nim", [{"name": "Ana"}, {"name": "Bo"}], seed="cli-resign")
    Seats(plain_matches).resign(loaded.record.id, 1)
    env = {"GAMEROOM_REDIS_URL": redis_server.url}
    result = CliRunner().invoke(main, ["replay", loaded.record.id, "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["outcome"] == {"scores": [1.0, 0.0], "winners": [0]}
    result = CliRunner().invoke(main, ["replay", loaded.record.id, "--steps"], env=env)
    assert "v    2  Bo resigned." in result.output
