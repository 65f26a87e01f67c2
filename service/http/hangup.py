"""Noticing that a live stream's client has gone while the stream has nothing to send.

A server learns of a closed connection only when it reads from it or a write
fails. A live stream writes only every keep-alive interval (15 s by default),
and the first write after a close usually still lands in the socket's buffer,
so a stream whose client went away held its slot under the stream caps for
about two intervals: a client reconnecting at its cap got 429 for ~30 s.

Under gunicorn's gevent worker (``environ["gunicorn.sock"]``, the socket
monkey-patched), :func:`watch` starts a greenlet that waits for the connection
to become readable. An EventSource client sends nothing after its request, so
readable means closed (EOF, or a reset): the greenlet then calls
``on_hangup`` at once. Bytes that do arrive (a pipelined request) are only
peeked at, left for the server, and end the watch. Elsewhere (the test
client, another WSGI server, TLS sockets) nothing is watched and a gone client
is noticed at the next write, as before.
"""

from __future__ import annotations

import socket
from collections.abc import Callable


def watch(environ: dict, on_hangup: Callable[[], None]) -> Callable[[], None]:
    """Call ``on_hangup`` when the request's client closes its connection; returns a stop function."""
    sock = environ.get("gunicorn.sock")
    if sock is None or not hasattr(sock, "fileno") or hasattr(sock, "getpeercert"):  # none, or TLS
        return _nothing
    try:
        import gevent
        from gevent import monkey
        from gevent.socket import wait_read
    except ImportError:
        return _nothing
    if not monkey.is_module_patched("socket"):
        return _nothing

    def wait() -> None:
        try:
            wait_read(sock.fileno())
            gone = not sock.recv(1, socket.MSG_PEEK)
        except OSError:  # reset, or closed under us
            gone = True
        if gone:
            on_hangup()

    watcher = gevent.spawn(wait)
    return lambda: watcher.kill(block=False)


def _nothing() -> None:
    pass
