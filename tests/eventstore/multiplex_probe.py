"""Run by tests/eventstore/test_multiplex.py in a process of its own, monkey-patched by gevent as
the served worker is: ``python multiplex_probe.py REDIS_URL SCENARIO``. Prints what happened as
JSON on its last line."""

import gevent.monkey

gevent.monkey.patch_all()

import hashlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import uuid  # noqa: E402

import gevent  # noqa: E402
import redis  # noqa: E402

from gameroom.config import Config  # noqa: E402
from gameroom.eventstore import direct  # noqa: E402
from gameroom.eventstore.connect import connect  # noqa: E402

URL = sys.argv[1]
#: A script that keeps Redis busy for ``ARGV[1]`` microseconds (to the microsecond: TIME's
#: seconds alone may turn over at once), then returns ``ARGV[2]``.
BUSY = (
    "local function now() local t = redis.call('TIME'); return tonumber(t[1]) * 1000000 + tonumber(t[2]) end; "
    "local stop = now() + tonumber(ARGV[1]); while now() < stop do end; return ARGV[2]"
)
admin = redis.Redis.from_url(URL, socket_timeout=10)


def shared(**settings):
    run = direct.of(connect(Config(**settings), URL).events)
    assert run._shared is not None, "a patched process must use the shared connection"
    return run


def key() -> str:
    return f"multiplex-test:{uuid.uuid4().hex}"


def outcome(call):
    """What ``call()`` gave: its reply (bytes as text), or the name of what it raised."""
    try:
        reply = call()
    except BaseException as exc:  # noqa: BLE001 (GreenletExit too: it is what a killed caller gets)
        return {"raised": type(exc).__name__}
    return {"reply": reply.decode() if isinstance(reply, bytes) else reply}


def echoes(run, names):
    """Greenlets, each sending ECHO of its own name."""
    return {name: gevent.spawn(outcome, lambda name=name: run("ECHO", name)) for name in names}


def results(greenlets):
    gevent.joinall(list(greenlets.values()), timeout=30)
    return {
        name: g.value if g.successful() else {"raised": type(g.exception).__name__}
        for name, g in greenlets.items()
    }


def many_callers():
    run = shared()
    counter = key()
    before = admin.info("clients")["connected_clients"]
    # A command in flight for 0.5 s first, so that every caller after it finds one waiting (as
    # callers do under load). Without it the batching seen depends on the machine's load: a caller
    # that finds nothing in flight writes at once, and a fast reply empties the line each time.
    gate = gevent.spawn(outcome, lambda: run("BLPOP", key(), "0.5"))
    gevent.sleep(0)
    calls = {f"echo-{i}": gevent.spawn(outcome, lambda i=i: run("ECHO", f"echo-{i}")) for i in range(300)}
    calls.update({f"incr-{i}": gevent.spawn(outcome, lambda: run("INCR", counter)) for i in range(100)})
    got = results(calls)
    gate.join(5)
    return {
        "gate": gate.value,
        "echoes": {n: r for n, r in got.items() if n.startswith("echo-")},
        "incr_replies": sorted(r.get("reply") for n, r in got.items() if n.startswith("incr-")),
        "counter": int(admin.get(counter)),
        "writes": run._shared.writes,
        "commands": run._shared.commands,
        "new_connections": admin.info("clients")["connected_clients"] - before,
    }


def error_replies():
    run = shared()
    text = key()
    admin.set(text, "not a number")
    calls = {}
    for i in range(100):
        if i % 2:
            calls[f"echo-{i}"] = gevent.spawn(outcome, lambda i=i: run("ECHO", f"echo-{i}"))
        else:
            calls[f"incr-{i}"] = gevent.spawn(outcome, lambda: run("INCR", text))
    got = results(calls)
    counter = key()
    pipelined = outcome(lambda: run.pipeline(("INCR", counter), ("XLEN", counter), ("INCR", counter)))
    return {"calls": got, "pipelined": pipelined, "counter_after": outcome(lambda: run("GET", counter))}


def abandoned_callers():
    run = shared()
    connection = run("CLIENT", "ID")
    busy = gevent.spawn(outcome, lambda: run("EVAL", BUSY, 0, 300_000, "busy"))
    gevent.sleep(0.05)  # Redis is running it
    doomed = echoes(run, [f"killed-{i}" for i in range(10)])
    waiting = echoes(run, [f"kept-{i}" for i in range(10)])
    gevent.sleep(0.05)  # all twenty wait behind the busy script
    gevent.killall(list(doomed.values()))
    timed_out = gevent.spawn(outcome, lambda: gevent.with_timeout(0.05, run, "ECHO", "timed-out"))
    after = echoes(run, [f"after-{i}" for i in range(10)])
    return {
        "busy": results({"busy": busy})["busy"],
        "killed": results(doomed),
        "kept": results(waiting),
        "timed_out": results({"t": timed_out})["t"],
        "after": results(after),
        "later": outcome(lambda: run("ECHO", "later")),
        "same_connection": run("CLIENT", "ID") == connection,
    }


def killed_connection():
    run = shared()
    connection = run("CLIENT", "ID")
    busy = gevent.spawn(outcome, lambda: run("EVAL", BUSY, 0, 300_000, "busy"))
    gevent.sleep(0.05)
    waiting = echoes(run, [f"echo-{i}" for i in range(20)])
    gevent.sleep(0.05)
    killed = admin.execute_command("CLIENT", "KILL", "ID", connection)
    return {
        "killed": killed,
        "busy": results({"busy": busy})["busy"],
        "echoes": results(waiting),
        "new_connection": run("CLIENT", "ID") != connection,
    }


def timeout():
    run = shared(redis_timeout=0.2)
    counter = key()
    busy = gevent.spawn(outcome, lambda: run("EVAL", BUSY, 0, 1_000_000, "busy"))
    gevent.sleep(0.05)
    incr = gevent.spawn(outcome, lambda: run("INCR", counter))
    waiting = echoes(run, [f"echo-{i}" for i in range(5)])
    got = results({"busy": busy, "incr": incr, **waiting})
    gevent.sleep(1.0)  # Redis has finished the script (and whatever was sent behind it)
    return {
        "calls": got,
        "counter": int(admin.get(counter) or 0),
        "next": outcome(lambda: run("ECHO", "next")),
    }


def large_values():
    run = shared()
    name = key()
    value = uuid.uuid4().bytes * (6 * 1024 * 1024 // 16)  # 6 MB: more than a socket's buffer
    setter = gevent.spawn(outcome, lambda: run("SET", name, value))
    waiting = echoes(run, [f"echo-{i}" for i in range(50)])
    got = results({"set": setter, **waiting})
    read = run("GET", name)
    return {
        "calls": got,
        "read_matches": hashlib.sha256(read).hexdigest() == hashlib.sha256(value).hexdigest(),
        "stored_length": admin.strlen(name),
        "length": len(value),
    }


def lost_scripts():
    run = shared()
    counter = key()
    script = direct.script(connect(Config(), URL).events, "return redis.call('INCR', KEYS[1])")
    first = script([counter], [])
    admin.script_flush()
    calls = {f"run-{i}": gevent.spawn(outcome, lambda: script([counter], [])) for i in range(10)}
    got = results(calls)
    return {
        "first": first,
        "calls": got,
        "counter": int(admin.get(counter)),
        "shared": run._shared is not None,
    }


def transactions():
    """MULTI ... EXEC from many callers at once, between others' single commands: each
    transaction's commands reach Redis together (no one else's inside its MULTI)."""
    run = shared()
    client = connect(Config(), URL).events
    counters = [key() for _ in range(50)]

    def transaction(counter):
        pipe = client.pipeline(transaction=True)
        pipe.execute_command("INCR", counter)
        pipe.execute_command("INCR", counter)
        return direct.transaction(client, pipe)

    gate = gevent.spawn(outcome, lambda: run("BLPOP", key(), "0.5"))  # see many_callers
    gevent.sleep(0)
    calls = {f"tx-{i}": gevent.spawn(outcome, lambda c=c: transaction(c)) for i, c in enumerate(counters)}
    calls.update(
        {f"echo-{i}": gevent.spawn(outcome, lambda i=i: run("ECHO", f"echo-{i}")) for i in range(50)}
    )
    got = results(calls)
    gate.join(5)
    return {
        "calls": got,
        "counters": [int(admin.get(c)) for c in counters],
        "writes": run._shared.writes,
    }


if __name__ == "__main__":
    print(json.dumps(globals()[sys.argv[2]]()))
