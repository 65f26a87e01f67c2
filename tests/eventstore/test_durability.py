"""An acknowledged append survives SIGKILL of redis-server at any instant, aimed at the fsync window.

With ``appendfsync everysec``, a kill that lands while a background fsync is
in flight loses acknowledged appends: Redis then postpones its write(2) of the
AOF buffer for up to two seconds (``aof_delayed_fsync``) and keeps answering.
These tests run concurrent appenders against a real redis-server, watch
``INFO persistence`` for that window (``aof_pending_bio_fsync``, a growing
``aof_delayed_fsync``) and SIGKILL redis-server in it (or, where the window
never opens, as with ``always``, after a bounded wait with appends in flight),
restart it on the same files and check every acknowledged append.
"""

import threading
import time
from pathlib import Path

import pytest
import redis

from gameroom.eventstore import EventStore
from gameroom.eventstore.embedded import EmbeddedRedis
from gameroom.testing.polling import wait_until

DEPLOY_CONF = Path(__file__).resolve().parents[2] / "deploy" / "redis.conf"
WRITERS = 8
#: Longest wait for the fsync window before killing anyway (seconds).
AIM_FOR = 3.0
#: Acknowledged appends (over all writers) a round waits for before it aims: the kill lands
#: amid appends, and three rounds acknowledge enough for it to prove something, however fast
#: the machine appends.
ACKED_BEFORE_AIMING = 150


def _persistence(client) -> dict:
    return client.info("persistence")


def _aimed_kill_round(server: EmbeddedRedis, round_no: int) -> tuple[dict, bool]:
    """Append from WRITERS threads, SIGKILL redis-server in the fsync window; returns acked and whether aimed."""
    acked = {t: [] for t in range(WRITERS)}
    stop = threading.Event()

    def writer(t):
        store = EventStore(server.client(socket_timeout=5))
        match = f"r{round_no}-w{t}"
        version = store.version(match)
        while not stop.is_set():
            try:
                result = store.append(match, {"t": t, "n": version}, version)
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                return  # killed: this one was not acknowledged
            version = result.version
            acked[t].append(version)

    threads = [threading.Thread(target=writer, args=(t,), daemon=True) for t in range(WRITERS)]
    for thread in threads:
        thread.start()
    watcher = server.client()
    wait_until(  # let the appends get going
        lambda: sum(len(v) for v in acked.values()) >= ACKED_BEFORE_AIMING,
        60,
        f"{ACKED_BEFORE_AIMING} acknowledged appends",
    )
    delayed = _persistence(watcher)["aof_delayed_fsync"]
    aimed = False
    deadline = time.monotonic() + AIM_FOR
    while time.monotonic() < deadline:
        info = _persistence(watcher)
        if info.get("aof_pending_bio_fsync", 0) or info["aof_delayed_fsync"] > delayed:
            aimed = True
            break
    server.kill()  # SIGKILL: no shutdown, no final write or fsync
    stop.set()
    for thread in threads:
        thread.join(10)
    return acked, aimed


def _lost_after_restart(server: EmbeddedRedis, acked: dict, round_no: int) -> int:
    server.start()
    store = EventStore(server.client())
    lost = 0
    for t, versions in acked.items():
        kept = {e["version"] for e in store.read(f"r{round_no}-w{t}")}
        lost += sum(1 for v in versions if v not in kept)
    return lost


def _kill_rounds(server: EmbeddedRedis, rounds: int) -> tuple[int, int, int]:
    """(acknowledged, lost, aimed rounds) over ``rounds`` aimed kills."""
    server.start()
    total = lost = aimed_rounds = 0
    try:
        for round_no in range(rounds):
            acked, aimed = _aimed_kill_round(server, round_no)
            total += sum(len(v) for v in acked.values())
            aimed_rounds += aimed
            lost += _lost_after_restart(server, acked, round_no)
    finally:
        server.stop()
    return total, lost, aimed_rounds


@pytest.mark.slow
@pytest.mark.parametrize("setup", ["embedded default", "deploy/redis.conf"])
def test_no_acknowledged_append_is_lost_when_redis_is_sigkilled_in_the_fsync_window(
    tmp_path, setup, record_property
):
    if setup == "embedded default":
        server = EmbeddedRedis(tmp_path / "data")
        assert server.appendfsync == "always"
    else:
        server = EmbeddedRedis(tmp_path / "data", config_file=DEPLOY_CONF)
    total, lost, aimed = _kill_rounds(server, rounds=3)
    record_property("acknowledged", total)
    record_property("aimed_rounds", aimed)
    assert total >= 3 * ACKED_BEFORE_AIMING, (
        "too few appends were acknowledged for the kill to prove anything"
    )
    assert lost == 0, f"{lost} of {total} acknowledged appends lost"


@pytest.mark.slow
def test_the_aim_finds_the_window_that_everysec_leaves_open(tmp_path, record_property):
    """The control: with everysec the watcher does see fsyncs in flight under this load (and what a kill
    there loses is recorded, not asserted: it depends on the disk). Without it the test above aims at
    nothing."""
    total, lost, aimed = _kill_rounds(EmbeddedRedis(tmp_path / "data", appendfsync="everysec"), rounds=3)
    record_property("everysec_acknowledged", total)
    record_property("everysec_lost", lost)
    print(f"everysec: {lost} of {total} acknowledged appends lost in 3 aimed kills ({aimed} in the window)")
    assert aimed >= 1, "no background fsync was ever seen in flight: the aimed kill aims at nothing here"
