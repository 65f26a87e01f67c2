"""Commands and Lua scripts run straight on pooled connections: the request hot path,
without redis-py's per-command layers.

redis-py 8 wraps every command of its client in a retry helper, metrics recording
and a pool checkout that probes the socket with ``select.poll`` (which gevent
emulates in Python); on a move those cost more CPU than the rest of the append
(bench/README.md, "Wire path"). :class:`Direct` keeps a few connections of
its own per client, made with the client's own connection class and settings
(address, timeouts, credentials, TLS) and redis-py's reply parser, and sends
commands on them; :class:`DirectScript` runs one script there (EVALSHA). A
connection goes back only after its reply was read whole, so it needs no probe;
any other outcome closes it. It keeps the client's rules
(:func:`gameroom.eventstore.connection_options`): at most ``max_connections`` at
once (a caller waits up to the pool's ``timeout``, then ``ConnectionError`` as
from the pool), a broken connection retried once, at once, on a new connection (after closing the idle
ones, which a restarted Redis broke too);
a timeout never retried (the script may have run); an unknown script (NOSCRIPT:
nothing ran) sent again as EVAL with its text. A forked child (an RQ work
horse) never uses its parent's connections. Only a plain client uses it; a
cluster client keeps redis-py's own path (slots, redirects): :func:`script`
picks.

In a gevent worker (the served API) there are no per-caller connections: every
greenlet's commands share one connection and go out together
(:class:`gameroom.eventstore.multiplex.Multiplexed`), with the same rules for a
lost connection, a timeout and NOSCRIPT; the cap and the pool's wait then do not
apply (one connection).

Replies are Redis's own (no redis-py response callbacks): a caller parses them.

A client made with ``GAMEROOM_FAST_PATHS`` off (:func:`gameroom.eventstore.connect.is_ordinary`)
keeps redis-py's own path, as a cluster client does: :func:`of` gives an :class:`Ordinary`, whose
commands go through the client and its pool (a script's reply is the same either way: redis-py
has no response callback for EVAL and EVALSHA).
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from hashlib import sha1
from typing import Any

import redis

from .connect import is_cluster, is_ordinary


def _patched(module: str) -> bool:
    """Whether gevent patched ``module`` in this process (the served worker patches before the app loads)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and monkey.is_module_patched(module)


def _multiplexed(make):
    from .multiplex import Multiplexed  # gevent's: imported only where gevent runs

    return Multiplexed(make)


_forks = [0]  # processes forked from this one so far (in a child: its parent's count + 1)
os.register_at_fork(after_in_child=lambda: _forks.__setitem__(0, _forks[0] + 1))


class Direct:
    """``direct(*command)``: Redis's raw reply to one command, on connections like ``client``'s.

    Use :func:`of` to share one per client."""

    def __init__(self, client: redis.Redis):
        pool = client.connection_pool
        self._make = lambda: pool.connection_class(**pool.connection_kwargs)
        self._wait = getattr(pool, "timeout", None)  # a BlockingConnectionPool's wait for a free connection
        self._slots = threading.BoundedSemaphore(pool.max_connections)
        self._idle: list = []
        self._fork = _forks[0]  # (not os.getpid(): a system call, on every command)
        #: In a gevent worker: one connection, every greenlet's commands written together.
        self._shared = _multiplexed(self._make) if _patched("socket") else None

    def __call__(self, *command, fallback: tuple | None = None):
        """The reply to ``command``; ``fallback``: the command sent instead if Redis answers
        NOSCRIPT (an EVALSHA's EVAL)."""
        try:
            return self._run(command, fallback)
        except redis.ConnectionError:  # broken (a Redis that restarted): once more, at once
            return self._run(command, fallback)

    def pipeline(self, *commands: tuple) -> list:
        """The replies to ``commands``, sent together (one round trip); an error reply is raised
        once every reply was read. A broken connection is retried once, as :meth:`__call__`."""
        try:
            return self._run(commands, None, many=True)
        except redis.ConnectionError:
            return self._run(commands, None, many=True)

    def _run(self, command: tuple, fallback: tuple | None, many: bool = False):
        if self._shared is not None:
            return self._run_shared(command, fallback, many)
        if not self._slots.acquire(timeout=self._wait):
            raise redis.ConnectionError("No connection available.")
        try:
            if self._fork != _forks[0]:  # a forked child: the parent's sockets are not ours
                self._idle, self._fork = [], _forks[0]
            connection = self._idle.pop() if self._idle else self._make()
            try:
                try:
                    reply = self._ask_all(connection, command) if many else self._ask(connection, command)
                except redis.exceptions.NoScriptError:  # not run: Redis lost its script cache
                    if fallback is None:
                        raise
                    reply = self._ask(connection, fallback)
            except redis.ResponseError:  # an error reply, read whole: the connection is fine
                self._idle.append(connection)
                raise
            except BaseException as exc:  # the reply may be half read, or never sent: not reused
                connection.disconnect()
                if isinstance(exc, redis.ConnectionError):  # the idle ones likely broke too (a restart)
                    for idle in self._idle:
                        idle.disconnect()
                raise
            self._idle.append(connection)
            return reply
        finally:
            self._slots.release()

    def _run_shared(self, command: tuple, fallback: tuple | None, many: bool):
        if self._fork != _forks[0]:  # a forked child: the parent's connection is not ours
            self._shared, self._fork = _multiplexed(self._make), _forks[0]
        shared = self._shared
        assert shared is not None
        replies = shared.ask(command if many else (command,))
        if not many and fallback is not None and isinstance(replies[0], redis.exceptions.NoScriptError):
            replies = shared.ask((fallback,))  # not run: Redis lost its script cache
        for reply in replies:
            if isinstance(reply, redis.ResponseError):
                raise reply
        return replies if many else replies[0]

    @staticmethod
    def _ask_all(connection, commands: tuple) -> list:
        Direct._send(connection, connection.pack_commands(commands))
        replies, error = [], None
        for _ in commands:
            try:
                replies.append(connection.read_response())
            except redis.ResponseError as exc:  # read the rest: the connection stays in step
                error = error or exc
                replies.append(exc)
        if error is not None:
            raise error
        return replies

    @staticmethod
    def _ask(connection, command: tuple):
        Direct._send(connection, connection.pack_command(*command))
        return connection.read_response()

    @staticmethod
    def _send(connection, packed: list) -> None:
        sock = connection._sock
        if sock is None or len(packed) != 1 or connection.health_check_interval:
            connection.send_packed_command(packed)  # connects, pings or sends in pieces as redis-py does
        else:
            Direct._write(connection, sock, packed[0])

    @staticmethod
    def _write(connection, sock, data: bytes) -> None:
        """Send ``data`` on ``connection``'s socket: one write takes a command of a request (gevent's
        ``sendall`` asks the socket's buffer size first); errors as redis-py raises them."""
        try:
            sent = sock.send(data)
            if sent < len(data):
                sock.sendall(memoryview(data)[sent:])
        except TimeoutError:
            connection.disconnect()
            raise redis.TimeoutError("Timeout writing to socket") from None
        except OSError as exc:
            connection.disconnect()
            raise redis.ConnectionError(f"Error while writing to socket: {exc}") from None


class Ordinary:
    """:class:`Direct`'s calls through redis-py's own client and pool (``GAMEROOM_FAST_PATHS`` off).

    A client on ``client``'s pool, made as :func:`gameroom.eventstore.connect.connect` makes it,
    without response callbacks: its replies are Redis's own, as :class:`Direct`'s are."""

    def __init__(self, client: redis.Redis):
        self._client = redis.Redis(connection_pool=client.connection_pool)
        self._client.response_callbacks.clear()  # its own (redis-py parses a reply only with a callback)

    def __call__(self, *command, fallback: tuple | None = None):
        try:
            return self._client.execute_command(*command)
        except redis.exceptions.NoScriptError:  # not run: Redis lost its script cache
            if fallback is None:
                raise
            return self._client.execute_command(*fallback)

    def pipeline(self, *commands: tuple) -> list:
        pipe = self._client.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        replies = pipe.execute(raise_on_error=False)
        for reply in replies:
            if isinstance(reply, redis.ResponseError):
                raise reply
        return replies


_shared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_shared_lock = threading.Lock()


def of(client: redis.Redis) -> Direct | Ordinary:
    """The one :class:`Direct` of a plain ``client`` (its connections shared by every user); an
    :class:`Ordinary` for a client made with the fast paths off."""
    with _shared_lock:
        found = _shared.get(client)
        if found is None:
            found = _shared[client] = Ordinary(client) if is_ordinary(client) else Direct(client)
        return found


class DirectScript:
    """``script(keys, args)``: the reply of ``EVALSHA`` of ``text`` on connections like ``client``'s."""

    def __init__(self, client: redis.Redis, text: str):
        self._direct = of(client)
        self.text = text
        self.sha = sha1(text.encode()).hexdigest()

    def __call__(self, keys: list, args: list):
        return self._direct(
            "EVALSHA",
            self.sha,
            len(keys),
            *keys,
            *args,
            fallback=("EVAL", self.text, len(keys), *keys, *args),
        )


def transaction(client: Any, pipe) -> list:
    """Run the commands queued on ``pipe`` (``client.pipeline(transaction=True)``, nothing run
    yet) in one MULTI/EXEC and return their replies; an error reply is raised, as redis-py's
    ``execute`` raises it.

    On a plain client through :class:`Direct` (one round trip without redis-py's
    per-command layers; the replies are Redis's own, so a caller reads only those that
    need no response callback, such as a script's); on a cluster client through
    redis-py (slots, redirects). A match's creation takes this path.
    """
    if is_cluster(client) or is_ordinary(client):
        return pipe.execute()
    commands = [args for args, _options in pipe.command_stack]
    replies = of(client).pipeline(("MULTI",), *commands, ("EXEC",))[-1]
    for reply in replies:
        if isinstance(reply, redis.ResponseError):
            raise reply
    return replies


def script(client: Any, text: str):
    """``run(keys, args)``: the raw reply of Lua ``text``: a :class:`DirectScript` on a plain
    client, redis-py's registered script on a cluster client (slots, redirects) and on a client
    made with the fast paths off."""
    if is_cluster(client) or is_ordinary(client):
        registered = client.register_script(text)
        return lambda keys, args: registered(keys=keys, args=args)
    return DirectScript(client, text)
