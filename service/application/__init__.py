"""The application layer: use cases over the pure core (:mod:`gameroom.core`) and the store.

Free of HTTP and RQ: the API and the workers call it, so a move from a bot and a move from a
browser take the same path. Three facades keep the call sites short:

- :class:`Matches` (:mod:`.matches`): create and claim (:mod:`.creating`), load and views
  (:mod:`.reading`), moves and drafts (:mod:`.moves`), clocks and timeouts (:mod:`.clocks`),
  platform entries and what follows every append (:mod:`.appending`), idempotency keys
  (:mod:`.idempotency`), its caches (:mod:`.caches`);
- :class:`History` (:mod:`.history`): undo (:mod:`.undo`), fork (:mod:`.fork`), export and
  import (:mod:`.transfer`, with the log checks :mod:`.logcheck`, :mod:`.logform`,
  :mod:`.logorder`);
- :class:`Seats` (:mod:`.seats`): seat absence (:mod:`.absence`: resign, leave, reclaim) and
  rematch (:mod:`.rematch`), with the checks they share (:mod:`.guards`).

A move, validated and appended: :mod:`gameroom.api.play` -> :mod:`.moves` ->
:mod:`gameroom.core.moves` (with :mod:`gameroom.core.decider`) -> the store's append ->
:func:`.appending.announce`. A clock timeout, applied: :mod:`gameroom.workers.timeouts` (the
job) -> :mod:`.clocks` -> :func:`gameroom.core.lifecycle.timeout_entry`.
"""

from .history import History
from .idempotency import request_fingerprint, undo_fingerprint
from .loaded import Loaded, MoveResult, has_drafts
from .matches import Matches
from .seats import Seats

__all__ = [
    "History",
    "Loaded",
    "Matches",
    "MoveResult",
    "Seats",
    "has_drafts",
    "request_fingerprint",
    "undo_fingerprint",
]
