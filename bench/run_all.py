"""Run the benchmarks of bench/ one after another with their default settings (``make bench``).

    .venv/bin/python bench/run_all.py                 # both, ~110 s on 2 cores
    .venv/bin/python bench/run_all.py --only store    # just bench_store.py
    .venv/bin/python bench/run_all.py --out DIR       # where the JSON figures go (default bench/out/)

Each benchmark runs in its own process with the interpreter running this
script, writes ``<out>/<name>.json``, and cleans up its own servers (also on
Ctrl-C). The exit status is non-zero if any benchmark failed.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: name -> script; each run with its defaults.
BENCHMARKS = {
    "store": "bench_store.py",
    "http": "bench_http.py",
}


def _wait_or_kill(proc: subprocess.Popen, grace: float = 30.0) -> None:
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--only", action="append", choices=sorted(BENCHMARKS), help="run only this one (repeatable)"
    )
    p.add_argument(
        "--out", default=str(HERE / "out"), help="folder for the JSON figures (default bench/out/)"
    )
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failed = []
    for name, script in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        cmd = [sys.executable, str(HERE / script), "--json", str(out / f"{name}.json")]
        print(f"== {script} ==", flush=True)
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=HERE.parent)
        try:
            # A benchmark bounds its own run time; the timeout is only a safety net.
            rc = proc.wait(timeout=900)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)  # let it stop its servers
            rc = "timeout"
            _wait_or_kill(proc)
        except KeyboardInterrupt:
            # Ctrl-C reached the benchmark too (same process group); forward it in case it did not,
            # then give it time to stop its servers and Redis.
            proc.send_signal(signal.SIGINT)
            _wait_or_kill(proc)
            print("\ninterrupted", file=sys.stderr)
            return 130
        print(
            f"== {script}: {'ok' if rc == 0 else f'FAILED ({rc})'} in {time.monotonic() - t0:.0f} s ==\n",
            flush=True,
        )
        if rc != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
