"""The served worker's one shared Redis connection (gameroom.eventstore.multiplex), on a real
redis-server, in a process monkey-patched by gevent as the worker is (tests/eventstore/
multiplex_probe.py): every caller gets its own reply, however many wait at once, whatever
another caller's command answers, and whichever caller gives up; commands are written
together; a lost connection or a timeout fails what waited on it as Direct's rules say."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gameroom.eventstore.embedded import EmbeddedRedis

PROBE = Path(__file__).with_name("multiplex_probe.py")


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    """A redis-server of this module's own: its tests kill connections and keep Redis busy."""
    with EmbeddedRedis(tmp_path_factory.mktemp("multiplex-redis")) as server:
        yield server


def probe(redis_server, scenario: str) -> dict:
    done = subprocess.run(
        [sys.executable, str(PROBE), redis_server.url, scenario],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_many_callers_at_once_each_get_their_own_reply_on_one_connection(redis_server):
    got = probe(redis_server, "many_callers")
    assert got["echoes"] == {name: {"reply": name} for name in got["echoes"]} and len(got["echoes"]) == 300
    assert got["incr_replies"] == list(range(1, 101)) and got["counter"] == 100  # each ran once
    assert got["new_connections"] == 1
    # written together: the 400 commands behind the one in flight went out in a few writes
    assert got["gate"] == {"reply": None}  # the BLPOP timed out, after the others were queued
    assert got["commands"] == 401 and got["writes"] <= 10


def test_an_error_reply_is_only_its_callers_own(redis_server):
    got = probe(redis_server, "error_replies")
    for name, outcome in got["calls"].items():
        if name.startswith("echo-"):
            assert outcome == {"reply": name}
        else:
            assert outcome == {"raised": "ResponseError"}
    # a pipeline with an error reply in the middle: raised, both INCRs ran, and in step after it
    assert got["pipelined"] == {"raised": "ResponseError"}
    assert got["counter_after"] == {"reply": "2"}


def test_callers_that_give_up_waiting_leave_every_later_reply_in_place(redis_server):
    got = probe(redis_server, "abandoned_callers")
    assert got["busy"] == {"reply": "busy"}
    assert got["killed"] == {f"killed-{i}": {"raised": "GreenletExit"} for i in range(10)}
    assert got["timed_out"] == {"raised": "Timeout"}
    assert got["kept"] == {f"kept-{i}": {"reply": f"kept-{i}"} for i in range(10)}
    assert got["after"] == {f"after-{i}": {"reply": f"after-{i}"} for i in range(10)}
    assert got["later"] == {"reply": "later"}
    assert got["same_connection"] is True  # nobody had to drop it


def test_a_lost_connection_fails_what_waited_on_it_and_direct_retries_once(redis_server):
    got = probe(redis_server, "killed_connection")
    assert got["killed"] == 1
    assert got["busy"] == {"reply": "busy"}  # retried on a new connection, as Direct retries
    assert got["echoes"] == {f"echo-{i}": {"reply": f"echo-{i}"} for i in range(20)}
    assert got["new_connection"] is True


def test_a_timeout_fails_what_waited_behind_it_and_nothing_is_retried(redis_server):
    got = probe(redis_server, "timeout")
    assert got["calls"]["busy"] == {"raised": "TimeoutError"}
    assert got["calls"]["incr"] == {"raised": "TimeoutError"}
    for i in range(5):
        assert got["calls"][f"echo-{i}"] == {"raised": "TimeoutError"}
    assert got["counter"] <= 1  # sent once before the timeout, never again
    assert got["next"] == {"reply": "next"}  # a new connection for what follows


def test_a_command_larger_than_the_socket_buffer_goes_out_whole_and_in_order(redis_server):
    got = probe(redis_server, "large_values")
    assert got["calls"]["set"] == {"reply": "OK"}
    assert {n: r for n, r in got["calls"].items() if n != "set"} == {
        f"echo-{i}": {"reply": f"echo-{i}"} for i in range(50)
    }
    assert got["stored_length"] == got["length"] and got["read_matches"] is True


def test_a_redis_that_lost_its_scripts_runs_each_call_once(redis_server):
    got = probe(redis_server, "lost_scripts")
    assert got["shared"] is True and got["first"] == 1
    assert sorted(r["reply"] for r in got["calls"].values()) == list(range(2, 12))
    assert got["counter"] == 11


def test_transactions_of_many_callers_each_reach_redis_whole(redis_server):
    got = probe(redis_server, "transactions")
    for name, outcome in got["calls"].items():
        assert outcome == ({"reply": [1, 2]} if name.startswith("tx-") else {"reply": name}), name
    assert got["counters"] == [2] * 50  # each transaction ran once, both of its commands
    assert got["writes"] <= 10  # written together (behind the one in flight), as single commands are
