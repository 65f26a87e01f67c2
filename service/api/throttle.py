"""One log line per episode, not one per request: for refusals that come in floods.

A Redis outage, or a process at its cap of live streams, refuses every request
of the kind for a while; a line per refusal would bury what happened. The
first refusal is logged at once, then at most one line every ``every`` seconds,
with the number refused since the last line.
"""

from __future__ import annotations

import threading
import time


class ThrottledLog:
    def __init__(self, logger, level: int, every: float = 10.0):
        self.logger, self.level, self.every = logger, level, every
        self._logged = float("-inf")
        self._suppressed = 0
        self._lock = threading.Lock()

    def __call__(self, message: str, *args) -> None:
        """Log ``message % args`` now if the last line is ``every`` seconds old, else count it."""
        now = time.monotonic()
        with self._lock:
            if now - self._logged < self.every:
                self._suppressed += 1
                return
            suppressed, self._suppressed, self._logged = self._suppressed, 0, now
        more = f" ({suppressed} more refused since the last report)" if suppressed else ""
        self.logger.log(self.level, message + "%s", *args, more)
