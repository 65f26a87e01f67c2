"""`gameroom tournament` refuses what it cannot use before the first match, not after the last:
search settings its help rules out, a budget it cannot read (naming --budget), an output file in
a missing folder. A file that still cannot be written at the end is one error line, after the
figures are printed."""

import pytest
from click.testing import CliRunner

from gameroom.cli import main

TOURNAMENT = ["tournament", "--game", "nim", "--seats", "random,random", "-n", "2"]


def _refused(args):
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and result.output.count("Error:") == 1, result.output
    return result


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--search", "final=xyz"],
            "Invalid value for --search: bad search setting 'final=xyz': final must be visits or value",
        ),
        (["--search", "minimax=5"], "minimax must be a number from 0 to 1"),
        (["--search", "rollout=-1"], "rollout must be a whole number, 0 or more"),
        (["--search", "rollout=x"], "rollout must be a whole number, 0 or more"),
        (["--search", "exploration=inf"], "exploration must be a number, 0 or more"),
        (["--budget", "abc"], "Invalid value for --budget: 'abc' is not a budget"),
        (["--budget", "nans"], "Invalid value for --budget"),
        (["--budget", "1/2/3s"], "Invalid value for --budget"),
        (["--options", "{"], "Invalid value for --options: not JSON"),
        (["--chart", "out.json"], "Invalid value for --chart: out.json: a chart is an image file"),
        (["--chart", "out"], "Invalid value for --chart: out: a chart is an image file"),
    ],
    ids=lambda c: " ".join(c) if isinstance(c, list) else None,
)
def test_a_setting_the_help_rules_out_is_refused_naming_its_option(args, says):
    result = _refused([*TOURNAMENT, *args])
    assert result.exit_code == 2 and says in result.output, result.output
    assert "mean length" not in result.output  # no match was played


def test_the_search_settings_the_help_allows_are_played():
    result = CliRunner().invoke(
        main,
        [
            *TOURNAMENT,
            "--seats",
            "mcts,random",
            "--budget",
            "20",
            "--search",
            "final=value",
            "--search",
            "minimax=1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "mean length" in result.output


@pytest.mark.parametrize("option", ["--json", "--chart"])
def test_a_tournament_output_in_a_missing_folder_is_refused_before_any_match(option, tmp_path):
    target = tmp_path / "nodir" / "out.png"
    result = _refused([*TOURNAMENT, "-n", "200", option, str(target)])
    assert result.exit_code == 2
    assert f"Invalid value for '{option}'" in result.output and "there is no folder" in result.output
    assert "mean length" not in result.output  # refused before the matches, not after


def test_a_tournament_output_that_is_a_folder_is_refused_before_any_match(tmp_path):
    result = _refused([*TOURNAMENT, "--json", str(tmp_path)])
    assert result.exit_code == 2 and "is a directory" in result.output
    assert "mean length" not in result.output


def test_a_tournament_whose_results_cannot_be_written_prints_them_and_ends_with_one_error_line():
    result = _refused([*TOURNAMENT, "--json", "/dev/full"])
    assert result.exit_code == 1
    assert "mean length" in result.output and "random#1" in result.output  # the figures were printed
    assert "Error: Cannot write the results to /dev/full (No space left on device)." in result.output
