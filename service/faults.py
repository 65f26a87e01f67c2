"""Fault injection for crash tests: kill this process at a named point.

``GAMEROOM_FAULT=<point>`` in a process's environment makes it SIGKILL
itself the first time it reaches :func:`point` with that name, e.g.
``after-append`` (a move is in the log, nothing after it has run: no
enqueue of the next AI turn, no answer to the client). Unset, a point costs
one dictionary look-up. Never set it in production.
"""

from __future__ import annotations

import os
import signal


def point(name: str) -> None:
    """Die here, at once and without cleanup, if ``GAMEROOM_FAULT`` names this point."""
    if os.environ.get("GAMEROOM_FAULT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
