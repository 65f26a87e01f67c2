"""`gameroom tournament`: fair seating, reproducible results, honest statistics."""

import json

import pytest
from click.testing import CliRunner

from gameroom.ai import report, tournament
from gameroom.cli import main


def run_cli(*args):
    return CliRunner().invoke(main, ["--log-level", "WARNING", "tournament", *args], catch_exceptions=False)


def test_a_tournament_prints_win_rates_scores_and_margins(tmp_path):
    out = tmp_path / "nim.json"
    result = run_cli(
        "--game",
        "nim",
        "--seats",
        "mcts,random",
        "-n",
        "6",
        "--budget",
        "40",
        "--search",
        "minimax=0.3",
        "--json",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert "win rate [95% CI]" in result.output and "mean margin" in result.output
    assert "mcts" in result.output and "random" in result.output
    data = json.loads(out.read_text())
    assert len(data["matches"]) == 6 and [r["entrant"] for r in data["summary"]] == ["mcts", "random"]
    assert sum(r["wins"] for r in data["summary"]) == 6


def test_seats_are_swapped_fairly_and_deals_shared():
    two = tournament.schedule(2, 4, "s")
    assert [m.entrants for m in two] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert two[0].seed == two[1].seed != two[2].seed
    three = tournament.schedule(3, 3, "s")
    assert sorted(m.entrants[0] for m in three) == [0, 1, 2]


def test_the_same_seed_and_iteration_budget_give_the_same_results_in_any_number_of_processes(tmp_path):
    outputs = []
    for jobs in ("1", "2"):
        path = tmp_path / f"{jobs}.json"
        result = run_cli(
            "--game",
            "nim",
            "--seats",
            "mcts,greedy",
            "-n",
            "4",
            "--budget",
            "30",
            "--jobs",
            jobs,
            "--seed",
            "same",
            "--json",
            str(path),
        )
        assert result.exit_code == 0, result.output
        outputs.append(
            [(m["entrants"], m["scores"], m["steps"]) for m in json.loads(path.read_text())["matches"]]
        )
    assert outputs[0] == outputs[1]


def test_a_chart_is_written(tmp_path):
    chart = tmp_path / "chart.png"
    result = run_cli("--game", "nim", "--seats", "greedy,random", "-n", "4", "--chart", str(chart))
    assert result.exit_code == 0, result.output
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seats", "mcts,wizard"], "unknown AI level"),
        (["--seats", "mcts"], "takes 2-2 seats"),
        (["--seats", "mcts,random", "--budget", "fast"], "Invalid value"),
    ],
)
def test_bad_arguments_are_explained(args, message):
    result = CliRunner().invoke(main, ["tournament", "--game", "nim", "-n", "2", *args])
    assert result.exit_code == 2 and message in result.output


def test_help_explains_the_options():
    result = CliRunner().invoke(main, ["tournament", "--help"])
    for word in (
        "--seats",
        "--budget",
        "--search",
        "--jobs",
        "--chart",
        "--seed",
        "Wilson",
        "half a win",
        "matplotlib",
    ):
        assert word in result.output


def test_budgets_parse():
    assert tournament.parse_budget("300") == {"iterations": 300, "time_limit": 0.0}
    assert tournament.parse_budget("0.5s") == {"time_limit": 0.5}
    assert tournament.parse_budget("300ms") == {"time_limit": 0.3}
    assert tournament.parse_budget("200/1s") == {"iterations": 200, "time_limit": 1.0}
    with pytest.raises(ValueError):
        tournament.parse_budget("-3")
    assert tournament.parse_search(["minimax=1", "rollout=4"]) == {"minimax": 1.0, "rollout": 4}
    with pytest.raises(ValueError):
        tournament.parse_search(["depth=3"])


def test_wilson_interval_and_ties_count_half():
    low, high = report.wilson(160, 200)
    assert low == pytest.approx(0.7392, abs=1e-3) and high == pytest.approx(0.8496, abs=1e-3)
    results = [
        {"entrants": [0, 1], "scores": [3, 3], "winners": [0, 1], "decisions": {0: [0.1], 1: [0.2]}},
        {"entrants": [1, 0], "scores": [5, 2], "winners": [0], "decisions": {0: [0.1], 1: [0.2]}},
    ]
    a, b = report.summarize(results, ["a", "b"])
    assert (a["wins"], b["wins"]) == (0.5, 1.5)
    assert a["score"][0] == 2.5 and a["margin"][0] == -1.5 and b["margin"][0] == 1.5
