"""One Redis connection shared by a gevent worker's requests, their commands written together.

In the served worker (gunicorn's gevent worker: every request a greenlet) a
move's Redis round trip was one ``send`` and one ``recv`` of its own on a
connection of its own, and each ``send`` woke redis-server for one command: on
this project's 2-core machines those two system calls were about 15 % of the
worker's CPU under load (bench/README.md, "One shared Redis connection per
worker, commands written together"). Here the greenlets of a process share one
connection:

- A command is queued; the queue is written in one ``send`` by a callback of
  gevent's loop, which runs once the greenlets ready to run have run, so
  every command they queued goes out in that write (Redis then reads them in
  one read, and answers them in one write). A command queued when none is
  waiting for a reply is written at once (nothing to wait for).
- Redis answers in order. One caller at a time reads (the *reader*); it reads
  the replies in order until its own, handing each reply to its caller, then
  hands the reading to the next caller still waiting. A reply a caller gave up
  on (its greenlet killed or timed out while it waited) is read and dropped,
  so the replies after it still reach their callers.
- A read or write that fails (Redis gone, a timeout, a caller killed in the
  middle of reading a reply) ends the connection: every command waiting on it
  fails with that error (a :class:`redis.TimeoutError` if it was a timeout,
  which :class:`gameroom.eventstore.direct.Direct` never retries, else a
  :class:`redis.ConnectionError`), and the next command opens a new one. An
  error reply (``ResponseError``: a script's error, NOSCRIPT) is only its
  caller's; the connection stays in step.

Only non-blocking commands go through it (a blocking ``XREAD`` would hold every
caller behind it): the append, the seat claim, a load's reads.
:class:`~gameroom.eventstore.direct.Direct` uses it in a gevent-patched process
and keeps its connections per caller elsewhere (the RQ workers, the CLI).
"""

from __future__ import annotations

from collections import deque

import gevent
import gevent.socket
import redis
from gevent.event import Event
from gevent.lock import Semaphore


class _Turn:
    """One caller's commands: how many replies it waits for, and what came."""

    __slots__ = ("count", "replies", "done", "error", "abandoned", "wake")

    def __init__(self, count: int):
        self.count = count
        self.replies: list = []
        self.done = False
        self.error: BaseException | None = None
        self.abandoned = False
        self.wake = Event()


class Multiplexed:
    """``ask(commands)``: the replies to ``commands`` (tuples of a command's words), an error
    reply as its exception object, sent together on the one connection made by ``make()``."""

    def __init__(self, make) -> None:
        self._make = make
        self._conn = None
        self._generation = 0
        self._connecting = Semaphore()
        self._queue: list[bytes] = []  # written by the next flush
        self._flush_due = False
        self._backlog: list[bytes | memoryview] = []  # a write that did not fit, being sent by a greenlet
        self._turns: deque[_Turn] = deque()  # in the order their commands were queued
        self._reading = False
        #: Writes made and commands written (the batching, for tests and benchmarks).
        self.writes = 0
        self.commands = 0

    def ask(self, commands: tuple) -> list:
        conn = self._connection()
        packed = conn.pack_commands(commands)
        generation = self._generation
        turn = _Turn(len(commands))
        waiting = bool(self._turns)
        self._turns.append(turn)
        self._queue.extend(packed)
        self.commands += len(commands)
        if not waiting:
            self._flush()  # nothing in flight: no one else's command to wait for
        elif not self._flush_due:
            self._flush_due = True
            gevent.get_hub().loop.run_callback(self._flush)
        try:
            while not turn.done:
                if self._reading:
                    turn.wake.wait()
                    turn.wake.clear()
                    continue
                self._read_until(turn, conn, generation)
        except BaseException:
            if not turn.done:  # killed or timed out while waiting: its replies are dropped
                turn.abandoned = True
            raise
        if turn.error is not None:
            raise turn.error
        return turn.replies

    def _connection(self):
        if self._conn is None:
            with self._connecting:
                if self._conn is None:
                    conn = self._make()
                    conn.connect()
                    self._conn = conn
        return self._conn

    def _flush(self) -> None:
        """Write every queued command (a callback of the loop, or a caller that waits for nothing)."""
        self._flush_due = False
        if not self._queue or self._conn is None:
            return
        data = b"".join(self._queue) if len(self._queue) > 1 else self._queue[0]
        self._queue.clear()
        self.writes += 1
        if self._backlog:  # an earlier write is still going out: this one follows it
            self._backlog.append(data)
            return
        sent = 0
        sock = self._conn._sock
        if type(sock) is gevent.socket.socket:  # plain (not TLS): its OS socket never waits
            try:
                sent = sock._sock.send(data)
            except BlockingIOError:
                pass
            except OSError as exc:
                self._break(self._generation, redis.ConnectionError(f"Error while writing to socket: {exc}"))
                return
        if sent < len(data):  # the rest (or a TLS write) is sent by a greenlet, which may wait
            self._backlog.append(memoryview(data)[sent:] if sent else data)
            gevent.spawn(self._write_backlog, self._conn, self._generation)

    def _write_backlog(self, conn, generation: int) -> None:
        try:
            while self._backlog and generation == self._generation:
                conn._sock.sendall(self._backlog[0])
                self._backlog.pop(0)
        except OSError as exc:
            self._break(generation, redis.ConnectionError(f"Error while writing to socket: {exc}"))

    def _read_until(self, turn: _Turn, conn, generation: int) -> None:
        """Read replies in order, handing each to its caller, until ``turn`` has its own; then
        hand the reading to the next caller waiting."""
        self._reading = True
        try:
            while not turn.done:
                head = self._turns[0]
                while len(head.replies) < head.count:
                    try:
                        head.replies.append(conn.read_response())
                    except redis.ResponseError as exc:  # read whole: the connection is in step
                        head.replies.append(exc)
                self._turns.popleft()
                head.done = True
                if head is not turn and not head.abandoned:
                    head.wake.set()
        except BaseException as exc:  # the stream is out of step (or gone): nobody can read on
            self._break(generation, exc)
            raise
        finally:
            self._reading = False
        for waiting in self._turns:  # the next caller still waiting reads its own
            if not waiting.abandoned:
                waiting.wake.set()
                break

    def _break(self, generation: int, cause: BaseException) -> None:
        """End connection ``generation``: every command waiting on it fails."""
        if generation != self._generation:
            return
        self._generation += 1
        conn, self._conn = self._conn, None
        if isinstance(cause, (TimeoutError, redis.TimeoutError)):
            error: BaseException = redis.TimeoutError("Timeout reading from the shared connection")
        else:
            error = redis.ConnectionError(f"The shared connection was lost: {cause!r}")
        turns, self._turns = self._turns, deque()
        self._queue.clear()
        self._backlog.clear()
        self._reading = False
        for waiting in turns:
            if not waiting.done:
                waiting.done = True
                waiting.error = error
                waiting.wake.set()
        if conn is not None:
            conn.disconnect()
