"""The small in-process caches of :class:`gameroom.application.Matches` (:class:`Caches`).

:class:`LRU` keeps what never changes once known (the record of a match
whose seats are all filled, the seat of a valid token, what a claim checks of a
match with open seats); :class:`FoldCache`
keeps recent folds, so a load folds only the entries it has not seen.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..core.decider import Folded


class LRU:
    """A small thread-safe LRU map."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key, value) -> None:
        with self._lock:
            if self._keeps(key, value):
                self._items[key] = value
                self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def forget(self, key) -> None:
        with self._lock:
            self._items.pop(key, None)

    def _keeps(self, key, value) -> bool:
        """Whether ``put`` stores ``value`` (called under the lock)."""
        return True


class FoldCache(LRU):
    """Recently folded matches, so a load folds only the entries it has not seen."""

    def __init__(self, size: int = 512):
        super().__init__(size)

    def _keeps(self, match_id: str, folded: Folded) -> bool:
        current = self._items.get(match_id)  # never replace a fold by an older one
        return current is None or current.version <= folded.version

    def forget_beyond(self, match_id: str, version: int) -> None:
        """Drop the match's fold if it is past ``version``, the log's length: the log lost
        its tail (a Redis failover lost writes its replica had not received), so the
        fold describes versions that no longer exist and would refuse every append."""
        with self._lock:
            current = self._items.get(match_id)
            if current is not None and current.version > version:
                del self._items[match_id]


class Caches:
    """What one :class:`~gameroom.application.Matches` keeps in this process.

    ``folds``: recent folds. What never changes once known: ``records``, the record of a match
    whose seats are all filled (claims are final), and ``seats``, the seat of a valid token.
    ``claimable``: the record of a match seen with open seats: what a claim checks of it (the
    seat count, reserved and AI seats) is fixed at creation, but for a reservation its creator
    releases (a refusal reads the record again); who holds a seat the claim's script decides.
    ``move_keys``: the move keys each game's move schemas declare, by slug.
    """

    def __init__(self) -> None:
        self.folds = FoldCache()
        self.records = LRU(4096)
        self.seats = LRU(16384)
        self.claimable = LRU(4096)
        self.move_keys: dict = {}  # slug -> tagged.move_keys(...)
