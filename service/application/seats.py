"""What players and creators do to a match besides moving: the facade :class:`Seats`."""

from __future__ import annotations

from . import absence, rematch
from .creating import creation_settings
from .loaded import Loaded
from .matches import Matches


class Seats:
    """The players' actions on their seats, over one :class:`~gameroom.application.Matches`
    (free of HTTP and RQ, like it); the HTTP API calls them.

    - **Seat absence** (:mod:`gameroom.application.absence`): :meth:`resign`, :meth:`leave`
      (hand the seat to an AI), :meth:`reclaim` (the creator takes a left seat back).
    - **Rematch** (:mod:`gameroom.application.rematch`): :meth:`rematch` and :meth:`release`
      (the creator opens a rematch's seat kept for its player).
    - :meth:`settings`: the clock and privacy settings of a creation request, checked.

    Every action is a lifecycle entry in the match's stream (see :mod:`gameroom.core.lifecycle`),
    appended at the version it was judged on: two racing actions cannot both apply, and a
    repeated one finds the match already changed and does nothing. A clock's timeout is not
    here: see :mod:`gameroom.application.clocks`.
    """

    def __init__(self, matches: Matches):
        self.matches = matches
        self.records = matches.records

    def settings(self, body: dict) -> dict:
        """The settings of a creation request (clock, timeout policy, unlisted, hide_names), checked."""
        return creation_settings(self.matches, body)

    def resign(self, match_id: str, seat: int) -> tuple[Loaded, dict | None]:
        """``seat`` concedes: the match ends; the others win unless the game says otherwise."""
        return absence.resign(self.matches, match_id, seat)

    def leave(
        self, match_id: str, seat: int, token: str, level: str | None = None
    ) -> tuple[Loaded, dict | None]:
        """``seat`` hands itself to an AI of ``level`` for the rest of the match; ``token`` stops working."""
        return absence.leave(self.matches, match_id, seat, token, level)

    def reclaim(self, match_id: str, seat: int, admin_token: str | None) -> tuple[Loaded, str]:
        """The creator takes a left seat back for a person: returns the seat's new token."""
        return absence.reclaim(self.matches, match_id, seat, admin_token)

    def release(self, match_id: str, seat: int, admin_token: str | None) -> tuple[Loaded, dict | None]:
        """See :func:`gameroom.application.rematch.release`."""
        return rematch.release(self.matches, match_id, seat, admin_token)

    def rematch(self, match_id: str, seat: int | None, token: str) -> dict:
        """See :func:`gameroom.application.rematch.rematch`."""
        return rematch.rematch(self.matches, match_id, seat, token)
