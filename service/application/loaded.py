"""What the use cases hand back: a match as loaded (:class:`Loaded`) and a move's result (:class:`MoveResult`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.decider import Folded
from ..core.matches import MatchRecord
from ..core.moves import has_drafts

__all__ = ["Loaded", "MoveResult", "has_drafts"]


@dataclass
class Loaded:
    record: MatchRecord
    #: the match as its log folds (what everyone may be shown, redacted)
    folded: Folded
    #: the caller's seat's sealed steps not yet in the log (see :mod:`gameroom.eventstore.drafts`)
    draft: tuple = ()
    #: ``folded`` with ``draft`` folded in (None: no draft)
    own: Folded | None = None
    #: whether ``draft`` was read for the caller's seat (see ``Matches.with_draft``)
    drafted: bool = False

    @property
    def version(self) -> int:
        return self.folded.version

    @property
    def seen(self) -> Folded:
        """The match as the caller's seat sees it: the log with its own draft steps."""
        return self.own if self.own is not None else self.folded


@dataclass
class MoveResult:
    version: int
    entry: dict
    loaded: Loaded
    duplicate: bool = False
    #: the move went to the seat's draft: nothing was appended (``version`` is unchanged)
    sealed: bool = False
