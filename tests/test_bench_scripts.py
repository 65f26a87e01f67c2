"""Every benchmark in bench/ still starts: its --help runs (imports included) and explains it.

Nothing else in the suite imports bench/, so a refactor of the shared helpers can break a
benchmark unseen (a re-export that a lint pass removed once broke four of them).
"""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if not p.name.startswith("_"))


def test_the_benchmarks_are_found():
    assert {"bench_http.py", "bench_store.py", "bench_live.py", "run_all.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_each_benchmark_starts_and_explains_its_options(script):
    run = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=BENCH,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith(f"usage: {script}"), run.stdout[:300]
