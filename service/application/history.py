"""The event history as a feature: undo (direct or by request), fork, export and import.

:class:`History` is the facade the HTTP API calls; the work is done in
:mod:`gameroom.application.undo`, :mod:`gameroom.application.fork` and
:mod:`gameroom.application.transfer`.
"""

from __future__ import annotations

from . import fork, transfer
from .loaded import Loaded
from .matches import Matches
from .undo import Undos


class History:
    """What a match's history lets its players do besides moving, over one
    :class:`~gameroom.application.Matches` (free of HTTP and RQ, like it).

    - **Undo**: :meth:`undo` takes a seat's last steps back, at once or by a request the other
      human seats vote on (:meth:`vote`, :meth:`request`, :meth:`pending`); see
      :mod:`gameroom.application.undo`.
    - **Fork**: :meth:`fork` starts a new match from a finished match's first versions.
    - **Export and import**: :meth:`export` writes the log as a document; :meth:`import_`
      re-checks such a document against the rules and stores it read-only.
    """

    def __init__(self, matches: Matches):
        self.matches = matches
        self.records = matches.records
        self.undos = Undos(matches)

    # -- undo (undo.py) --------------------------------------------------------------------

    def undo(
        self,
        match_id: str,
        seat: int,
        steps: int = 1,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[str, dict | None]:
        """See :meth:`gameroom.application.undo.Undos.undo`."""
        return self.undos.undo(
            match_id, seat, steps, expected_version=expected_version, idempotency_key=idempotency_key
        )

    def request(self, match_id: str, request_id: str) -> dict:
        """The undo request ``request_id`` as it stands now."""
        return self.undos.request(match_id, request_id)

    def pending(self, match_id: str) -> list[dict]:
        """The match's undo requests still waiting for votes (at most one a seat), by seat."""
        return self.undos.pending(match_id)

    def vote(self, match_id: str, request_id: str, seat: int, approve: bool) -> tuple[dict, dict | None]:
        """See :meth:`gameroom.application.undo.Undos.vote`."""
        return self.undos.vote(match_id, request_id, seat, approve)

    # -- fork, export, import (fork.py, transfer.py) ----------------------------------------

    def fork(
        self, match_id: str, version: int, seats: list[dict] | None = None
    ) -> tuple[Loaded, dict[int, str]]:
        """See :func:`gameroom.application.fork.fork`."""
        return fork.fork(self.matches, match_id, version, seats)

    def export(self, match_id: str, viewer: int | None) -> dict:
        """See :func:`gameroom.application.transfer.export`."""
        return transfer.export(self.matches, match_id, viewer)

    def import_(self, doc: dict) -> Loaded:
        """See :func:`gameroom.application.transfer.import_match`."""
        return transfer.import_match(self.matches, doc)
