"""The fuzz target: schemathesis against a real `gameroom serve`, every check, every phase.

A bounded run (``GAMEROOM_FUZZ_EXAMPLES`` examples per operation and phase, default 5:
a few hundred cases) is part of ``make test``; ``make fuzz`` runs it with many more
(at least 2,000 cases). The run passes only with 0 server errors, 0 responses that
differ from openapi.yaml and 0 failures of any other check.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gameroom.testing.served import Served

HERE = Path(__file__).resolve().parent
EXAMPLES = int(os.environ.get("GAMEROOM_FUZZ_EXAMPLES", "5"))
MIN_CASES = int(os.environ.get("GAMEROOM_FUZZ_MIN_CASES", "200"))
SEED = os.environ.get("GAMEROOM_FUZZ_SEED", "20261201")

# slow: a real server fuzzed for a minute or more (make test runs it, make check does not);
# the timeout is a hang guard above the global one when `make fuzz` asks for many examples.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(max(1800, EXAMPLES * 30))]


def test_schemathesis_finds_no_server_error_and_no_schema_violation(tmp_path):
    st = Path(sys.executable).with_name("st")
    # Shipped defaults but for the live stream: a fuzz case cannot wait out a 300 s SSE
    # response, so each stream ends after a second (clients resume with Last-Event-ID).
    with Served(
        tmp_path, workers=2, env={"GAMEROOM_SSE_MAX_AGE": "1", "GAMEROOM_SSE_KEEPALIVE": "0.5"}
    ) as server:
        run = subprocess.run(
            [
                str(st),
                "--config-file",
                str(HERE / "schemathesis.toml"),
                "--no-color",
                "run",
                f"{server.base}/api/openapi.json",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                "--max-examples",
                str(EXAMPLES),
                "--seed",
                SEED,
                "--workers",
                "2",
                "--request-timeout",
                "30",
                "--suppress-health-check",
                "all",
            ],
            capture_output=True,
            text=True,
            timeout=1800,
            cwd=tmp_path,
        )
        server_log = server.log()
    report = run.stdout + run.stderr
    (tmp_path / "schemathesis.log").write_text(report)
    print(report[-3000:])
    cases = re.search(r"(\d+) generated", report)
    assert cases, report[-3000:]
    assert run.returncode == 0, report[-6000:]
    assert int(cases.group(1)) >= MIN_CASES, f"only {cases.group(1)} cases ran"
    # Nothing the fuzzer sent made the server log an unhandled error.
    assert "Traceback" not in server_log and "unhandled error" not in server_log, server_log[-4000:]
