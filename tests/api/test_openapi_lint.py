"""The OpenAPI documents pass Redocly CLI's recommended ruleset with 0 errors and 0 warnings.

Redocly CLI comes from the npm registry through ``npx`` (node and npm are Debian
packages; ``.ci/run`` has them). Without ``npx`` the test is skipped and says so;
``openapi-spec-validator`` (``test_openapi.py``) still checks the documents then.
The two rules turned off in ``redocly.yaml`` are justified there.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gameroom.registry import build_registry

ROOT = Path(__file__).resolve().parents[2]
REDOCLY = "@redocly/cli@2.77.0"
#: npm's ways of saying it could not reach the registry.
OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNREFUSED", "ENETUNREACH")


def _lint(*paths: Path) -> dict:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("SKIPPED the Redocly lint: npx is not on PATH (install Debian's nodejs and npm)")
    done = subprocess.run(
        [
            npx,
            "--yes",
            REDOCLY,
            "lint",
            *map(str, paths),
            "--config",
            str(ROOT / "redocly.yaml"),
            "--format=json",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    if done.returncode != 0 and any(code in done.stderr for code in OFFLINE):
        pytest.skip(f"SKIPPED the Redocly lint: npx could not fetch {REDOCLY}: {done.stderr[-300:]}")
    # One JSON report per file, one after the other: add them up.
    decoder, text, at = json.JSONDecoder(), done.stdout, done.stdout.find("{")
    assert at >= 0, (
        f"no report from redocly (exit {done.returncode}): {done.stdout[-500:]} {done.stderr[-2000:]}"
    )
    merged = {"totals": {"errors": 0, "warnings": 0}, "problems": [], "files": 0}
    while at >= 0:
        report, end = decoder.raw_decode(text, at)
        merged["files"] += 1
        merged["problems"] += report.get("problems", [])
        for key in ("errors", "warnings"):
            merged["totals"][key] += report["totals"][key]
        at = text.find("{", end)
    assert merged["files"] == len(paths), merged
    return merged


def _problems(report: dict) -> list[str]:
    return [
        f"{p.get('severity')} {p.get('ruleId')}: {p.get('message')} at "
        f"{[loc.get('pointer') for loc in p.get('location', [])]}"
        for p in report.get("problems", [])
    ]


def test_the_committed_document_passes_the_recommended_rules():
    report = _lint(ROOT / "openapi.yaml")
    assert report["totals"]["errors"] == 0 and report["totals"]["warnings"] == 0, "\n".join(_problems(report))


def test_every_per_game_document_passes_the_recommended_rules(client, tmp_path):
    paths = []
    for installed in build_registry():
        response = client.get(f"/api/games/{installed.slug}/openapi.json")
        assert response.status_code == 200
        paths.append(tmp_path / f"{installed.slug}.json")
        paths[-1].write_bytes(response.get_data())
    report = _lint(*paths)
    assert report["totals"]["errors"] == 0 and report["totals"]["warnings"] == 0, "\n".join(_problems(report))
