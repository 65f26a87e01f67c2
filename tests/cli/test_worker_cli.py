"""`gameroom worker` with one of its two Redis roles away: each log line names the role that does
not answer (events or queue) and its URL, without the password."""

import os
import subprocess

from gameroom.testing.polling import wait_until
from gameroom.testing.served import GAMEROOM, free_port


def _burst(url: str, queue_url: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
    return subprocess.run(
        [
            str(GAMEROOM),
            "--log-level",
            "WARNING",
            "worker",
            "--url",
            url,
            "--queue-url",
            queue_url,
            "--burst",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_queue_redis_that_does_not_answer_is_named_as_the_queue_not_the_seed_secret(redis_server):
    away = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    done = _burst(redis_server.url, away)
    shown = away.replace("hunter2", "***")
    assert f"no answer from the queue Redis at {shown}" in done.stderr, done.stderr
    assert "seed secret" not in done.stderr and "events Redis" not in done.stderr, done.stderr
    assert "hunter2" not in done.stderr and "Traceback" not in done.stderr


def test_an_events_redis_that_does_not_answer_is_named_as_the_events_redis(redis_server):
    away = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    done = _burst(away, redis_server.url)
    shown = away.replace("hunter2", "***")
    assert f"no answer from the events Redis at {shown} yet; the seed secret is read later" in done.stderr
    assert "queue Redis" not in done.stderr and "hunter2" not in done.stderr, done.stderr


def test_a_worker_whose_redis_stays_away_waits_longer_each_time_in_one_line_per_attempt(redis_server):
    """Not every 0.5 s for ever: 0.5, 1, 2, 4 … s (up to MAX_BACKOFF), one line per attempt."""
    import threading

    away = f"redis://127.0.0.1:{free_port()}/0"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
    proc = subprocess.Popen(
        [str(GAMEROOM), "worker", "--url", redis_server.url, "--queue-url", away],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()

    def attempts():
        return [line for line in list(lines) if "starting again in" in line]

    try:  # three attempts have failed, however long the machine took for them
        wait_until(lambda: len(attempts()) >= 3, 60, "three failed attempts")
    finally:
        proc.terminate()
        proc.wait(60)
        reader.join(60)
    err = "".join(lines)
    waits = [float(line.rsplit("starting again in ", 1)[1].strip().rstrip("s")) for line in attempts()]
    assert waits[:3] == [0.5, 1.0, 2.0], err  # doubling each time, not 0.5 s every time
    assert waits == sorted(waits), waits
    # the start's one warning, then one line per attempt (the upkeep thread says its own, every 5 s)
    per_attempt = [line for line in err.splitlines() if "queue Redis" in line and "upkeep:" not in line]
    assert len(per_attempt) <= len(waits) + 1, err
    assert "Traceback" not in err
