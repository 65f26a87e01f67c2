"""The API's own marshmallow schemas: requests, resources, envelopes and errors.

These are the single source of truth for request validation, response
serialization and ``openapi.yaml``. Game-specific payloads (moves, views,
events, options) come from each game's plugin and are published as separate
components named ``<GameTitle><Kind>``.
"""

from .errors import ProblemSchema
from .games import GameSchema
from .matches import (
    ClaimSeatSchema,
    EventPageSchema,
    HistoryArgsSchema,
    IncludeArgsSchema,
    LegalMovesSchema,
    MatchCreatedSchema,
    MatchCreateSchema,
    MatchListArgsSchema,
    MatchSummarySchema,
    MoveRequestSchema,
    MoveResponseSchema,
    SeatTokenSchema,
    StateArgsSchema,
    StateSchema,
)

__all__ = [
    "ProblemSchema",
    "GameSchema",
    "ClaimSeatSchema",
    "EventPageSchema",
    "HistoryArgsSchema",
    "IncludeArgsSchema",
    "LegalMovesSchema",
    "MatchCreateSchema",
    "MatchCreatedSchema",
    "MatchListArgsSchema",
    "MatchSummarySchema",
    "MoveRequestSchema",
    "MoveResponseSchema",
    "SeatTokenSchema",
    "StateArgsSchema",
    "StateSchema",
]
