"""One Lua script run straight on a pooled connection: the append's hot path, without
redis-py's per-command layers.

redis-py 8 wraps every command of its client in a retry helper, metrics recording
and a pool checkout that probes the socket with ``select.poll`` (which gevent
emulates in Python); on a move those cost more CPU than the rest of the append
(bench/README.md, "Wire path"). :class:`DirectScript` keeps a few connections of
its own, made with the client's own connection class and settings (address,
timeouts, credentials, TLS) and redis-py's reply parser, and sends EVALSHA on
them. A connection goes back only after its reply was read whole, so it needs no
probe; any other outcome closes it. It keeps the client's rules
(:func:`gameroom.eventstore.connection_options`): at most ``max_connections`` at
once (a caller waits up to the pool's ``timeout``, then ``ConnectionError`` as
from the pool), a broken connection retried once, at once, on a new connection (after closing the idle
ones, which a restarted Redis broke too);
a timeout never retried (the script may have run); an unknown script (NOSCRIPT:
nothing ran) sent again as EVAL with its text. A forked child (an RQ work
horse) never uses its parent's connections. Only a plain client uses it; a
cluster client keeps redis-py's own path (slots, redirects).
"""

from __future__ import annotations

import os
import threading
from hashlib import sha1

import redis


class DirectScript:
    """``script(keys, args)``: the reply of ``EVALSHA`` of ``text`` on connections like ``client``'s."""

    def __init__(self, client: redis.Redis, text: str):
        pool = client.connection_pool
        self._make = lambda: pool.connection_class(**pool.connection_kwargs)
        self._wait = getattr(pool, "timeout", None)  # a BlockingConnectionPool's wait for a free connection
        self._slots = threading.BoundedSemaphore(pool.max_connections)
        self._idle: list = []
        self._pid = os.getpid()
        self.text = text
        self.sha = sha1(text.encode()).hexdigest()

    def __call__(self, keys: list, args: list):
        try:
            return self._run(keys, args)
        except redis.ConnectionError:  # broken (a Redis that restarted): once more, at once
            return self._run(keys, args)

    def _run(self, keys: list, args: list):
        if not self._slots.acquire(timeout=self._wait):
            raise redis.ConnectionError("No connection available.")
        try:
            if self._pid != os.getpid():  # a forked child: the parent's sockets are not ours
                self._idle, self._pid = [], os.getpid()
            connection = self._idle.pop() if self._idle else self._make()
            try:
                try:
                    reply = self._ask(connection, "EVALSHA", self.sha, keys, args)
                except redis.exceptions.NoScriptError:  # not run: Redis lost its script cache
                    reply = self._ask(connection, "EVAL", self.text, keys, args)
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

    @staticmethod
    def _ask(connection, command: str, script: str, keys: list, args: list):
        connection.send_packed_command(connection.pack_command(command, script, len(keys), *keys, *args))
        return connection.read_response()
