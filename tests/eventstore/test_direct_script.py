"""Direct and DirectScript (the request hot path) keep the request client's rules, on a real
redis-server: a reply as Redis gives it, NOSCRIPT answered by EVAL (run once), a broken
connection retried once on a new one, a timeout never retried, a script error raised with the
connection kept, one set of connections per client."""

import os
import uuid

import pytest
import redis

from gameroom.config import Config
from gameroom.eventstore import direct
from gameroom.eventstore.connect import connect
from gameroom.eventstore.direct import DirectScript
from gameroom.eventstore.embedded import EmbeddedRedis

COUNT = "return {redis.call('INCR', KEYS[1]), ARGV[1]}"


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    """A redis-server of this module's own: its tests kill every connection and block Redis for a
    second, which must not reach the session's server that other tests share."""
    with EmbeddedRedis(tmp_path_factory.mktemp("direct-script-redis")) as server:
        yield server


def _client(redis_server, **settings):
    return connect(Config(**settings), redis_server.url).events


@pytest.fixture
def key():
    return f"direct-test:{uuid.uuid4().hex}"


def test_the_reply_is_the_scripts_and_it_runs_once_per_call(redis_server, key):
    client = _client(redis_server)
    script = DirectScript(client, COUNT)
    assert script([key], ["a"]) == [1, b"a"]
    assert script([key], ["b"]) == [2, b"b"]
    assert int(client.get(key)) == 2


def test_a_redis_that_lost_its_scripts_runs_the_text_once(redis_server, key):
    client = _client(redis_server)
    script = DirectScript(client, COUNT)
    script([key], ["x"])
    client.script_flush()
    assert script([key], ["y"]) == [2, b"y"]
    assert int(client.get(key)) == 2


def test_broken_connections_are_retried_once_on_a_new_one(redis_server, key):
    client = _client(redis_server)
    script = DirectScript(client, COUNT)
    script([key], ["warm"])  # its connection is now idle
    admin = redis.Redis.from_url(redis_server.url)
    assert (
        admin.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes") >= 1
    )  # as a restart does
    assert script([key], ["after"]) == [2, b"after"]  # the killed connection failed; the retry ran it
    assert int(client.get(key)) == 2


def test_a_timeout_is_not_retried(redis_server, key):
    client = _client(redis_server, redis_timeout=0.2)
    # busy for a whole second (to the microsecond: TIME's seconds alone may turn over at once)
    busy = DirectScript(
        client,
        "redis.call('INCR', KEYS[1]); "
        "local function now() local t = redis.call('TIME'); return tonumber(t[1]) * 1000000 + tonumber(t[2]) end; "
        "local stop = now() + 1000000; while now() < stop do end; return 1",
    )
    with pytest.raises(redis.TimeoutError):
        busy([key], [])
    admin = redis.Redis.from_url(redis_server.url, socket_timeout=10)
    assert int(admin.get(key)) == 1  # ran once: no second run after the timeout


def test_a_script_error_is_raised_and_the_connection_kept(redis_server, key):
    client = _client(redis_server)
    failing = DirectScript(client, "return redis.error_reply('GAMEROOM nope')")
    admin = redis.Redis.from_url(redis_server.url)
    with pytest.raises(redis.ResponseError, match="nope"):
        failing([key], [])
    connections = len(admin.client_list())
    for _ in range(3):
        with pytest.raises(redis.ResponseError, match="nope"):
            failing([key], [])
    assert len(admin.client_list()) == connections  # the same connection each time


def test_connections_are_made_as_the_pool_makes_them_and_capped_by_its_size(redis_server, key):
    client = _client(redis_server, redis_max_connections=1, redis_pool_timeout=0.2)
    script = DirectScript(client, COUNT)
    assert script([key], ["a"]) == [1, b"a"]
    script._direct._slots.acquire()  # the only connection is in use elsewhere
    try:
        with pytest.raises(redis.ConnectionError, match="No connection available"):
            script([key], ["b"])
    finally:
        script._direct._slots.release()
    assert script([key], ["c"]) == [2, b"c"]


def test_a_command_gets_redis_raw_reply_without_redis_py_callbacks(redis_server, key):
    client = _client(redis_server)
    client.xadd(key, {"entry": "one"}, id="1-0")
    run = direct.of(client)
    # redis-py's client makes this [(b"1-0", {b"entry": b"one"})]
    assert run("XRANGE", key, "-", "+") == [[b"1-0", [b"entry", b"one"]]]
    with pytest.raises(redis.ResponseError):
        run("HGETALL", key)  # wrong type
    assert run("XLEN", key) == 1  # and the connection was kept for it


def test_one_client_shares_one_set_of_connections(redis_server, key):
    client = _client(redis_server, redis_max_connections=1, redis_pool_timeout=0.2)
    assert direct.of(client) is direct.of(client)
    assert direct.of(_client(redis_server)) is not direct.of(client)
    script = direct.script(client, COUNT)
    assert isinstance(script, DirectScript) and script([key], ["a"]) == [1, b"a"]
    direct.of(client)._slots.acquire()  # the one connection is in use by another caller
    try:
        with pytest.raises(redis.ConnectionError, match="No connection available"):
            script([key], ["b"])
    finally:
        direct.of(client)._slots.release()


def test_a_forked_child_never_uses_its_parents_connections(redis_server):
    run = direct.of(_client(redis_server))
    parent_id = run("CLIENT", "ID")  # the parent's connection is now idle
    assert run("CLIENT", "ID") == parent_id  # and reused by the parent
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: a connection of its own, or exit code 1
        try:
            os.write(write, str(run("CLIENT", "ID")).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    child_id = int(os.read(read, 100) or b"0")
    assert child_id not in (0, parent_id)
    assert run("CLIENT", "ID") == parent_id  # the parent's own still works


def test_a_pipeline_answers_in_order_and_an_error_reply_leaves_the_connection_in_step(redis_server, key):
    run = direct.of(_client(redis_server))
    assert run.pipeline(("INCR", key), ("INCR", key), ("GET", key)) == [1, 2, b"2"]
    with pytest.raises(redis.ResponseError):
        run.pipeline(("INCR", key), ("XLEN", key), ("INCR", key))  # XLEN of a string: an error reply
    assert run("GET", key) == b"4"  # both INCRs ran, and this reply is this command's own


def _transaction(client, *commands):
    pipe = client.pipeline(transaction=True)
    for command in commands:
        pipe.execute_command(*command)
    return direct.transaction(client, pipe)


def test_a_transaction_runs_its_commands_together_and_returns_their_raw_replies(redis_server, key):
    client = _client(redis_server)
    replies = _transaction(
        client, ("INCR", key), ("EVAL", "return {redis.call('GET', KEYS[1]), 'x'}", 1, key)
    )
    assert replies == [1, [b"1", b"x"]]  # EXEC's replies, without redis-py's callbacks


def test_an_error_inside_a_transaction_is_raised_after_the_rest_ran(redis_server, key):
    client = _client(redis_server)
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        _transaction(client, ("INCR", key), ("XLEN", key), ("INCR", key))
    assert direct.of(client)("GET", key) == b"2"  # Redis ran the others; the connection is in step


def test_a_transaction_redis_refuses_to_queue_runs_nothing(redis_server, key):
    client = _client(redis_server)
    with pytest.raises(redis.ResponseError):
        _transaction(client, ("INCR", key), ("NO-SUCH-COMMAND", key))
    assert direct.of(client)("GET", key) is None  # EXECABORT: not even the INCR ran
    assert _transaction(client, ("INCR", key)) == [1]  # and the connection is in step
