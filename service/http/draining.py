"""A process's graceful stop, told to what holds long responses, without importing the server.

gunicorn stops a worker gracefully (SIGTERM: a stop, or the old workers of a
reload, SIGHUP) by waiting ``graceful_timeout`` for its connections to end,
then SIGKILLing it. A live stream (SSE) ends by itself only at its maximum age
(300 s), so every stream used to be cut mid-response at the kill, 10 s later,
with nothing logged. The serving worker (:class:`gameroom.http.worker.GeventWorker`)
now calls :func:`begin` as soon as it is told to stop: each registered
listener (the process's stream hub ends every open stream) runs once, and
:func:`active` tells the code that serves responses (a stream opened
meanwhile ends after what it has to send). A stream so ended completes its
response as at its maximum age, so EventSource reconnects with
``Last-Event-ID``, to another process.

Listeners are held weakly: a test process builds many apps, and a dropped
app's hub must not be kept alive, nor called, by this module.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

_active = False
_listeners: list[weakref.WeakMethod] = []


def active() -> bool:
    """Whether this process is stopping: finish what is under way, start nothing long."""
    return _active


def on_drain(method: Callable[[], int]) -> None:
    """Call the bound ``method`` once when the process begins to drain; it returns how many
    streams (or other long responses) it ended. Held weakly."""
    _listeners[:] = [ref for ref in _listeners if ref() is not None]  # the dropped apps' hubs
    _listeners.append(weakref.WeakMethod(method))  # type: ignore[arg-type]


def begin() -> int:
    """Start draining (once; later calls do nothing): call every listener; returns how many
    streams they ended."""
    global _active
    if _active:
        return 0
    _active = True
    ended = 0
    for ref in _listeners:
        method = ref()
        if method is not None:
            ended += method()
    return ended


def reset() -> None:
    """Not draining any more (tests that drain in their own process)."""
    global _active
    _active = False
