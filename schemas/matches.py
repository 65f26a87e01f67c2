"""Match resources and their requests."""

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from .names import name_field
from .settings import ClockSchema, SeatControlSchema, SettingsCreateFieldsMixin, SettingsSchema
from .strict import QueryInteger, StrictInteger

#: The largest version, offset or count a request may name: the largest integer
#: every JSON client holds exactly (2^53 - 1), far beyond any real match.
MAX_NUMBER = 2**53 - 1


def number_field(minimum: int, *, query: bool = False, **kwargs):
    """A version, offset or count: an integer from ``minimum`` to :data:`MAX_NUMBER`, written as
    a JSON integer in a body, in ASCII digits in a query string (``query=True``)."""
    field = QueryInteger if query else StrictInteger
    return field(validate=validate.Range(minimum, MAX_NUMBER), **kwargs)


class SeatSpecSchema(Schema):
    name = name_field(required=True)
    ai = fields.String(
        load_default=None,
        allow_none=True,
        metadata={"description": "AI level (see GET /api/games); absent for a human seat"},
    )


class MatchCreateSchema(SettingsCreateFieldsMixin):
    game = fields.String(required=True, metadata={"example": "nim"})
    seats = fields.List(
        fields.Nested(SeatSpecSchema, allow_none=True),
        required=True,
        validate=validate.Length(1, 16),
        metadata={"description": "one item per seat; null leaves the seat open to claim"},
    )
    options = fields.Dict(load_default=dict)
    seed = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(1, 128),
        metadata={
            "description": "mixed with a secret of the server, so that nobody can "
            "compute the draws from it; fixes all randomness only on a server "
            "started with GAMEROOM_REPRODUCIBLE_SEEDS=1 (kept secret)"
        },
    )


class SeatSchema(Schema):
    name = fields.String(allow_none=True)
    ai = fields.String(allow_none=True)
    open = fields.Boolean(metadata={"description": "anyone may claim it (POST .../seats/{seat})"})
    reserved = fields.Boolean(
        metadata={
            "description": "a rematch keeps it for its player in the previous match (who takes it by "
            "accepting the rematch): not open, until its creator releases it"
        }
    )


class OutcomeSchema(Schema):
    scores = fields.List(fields.Float(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    breakdown = fields.List(fields.Dict())


class ForkedFromSchema(Schema):
    match = fields.String(
        required=True, metadata={"description": "the finished match this one was forked from"}
    )
    version = fields.Integer(required=True, metadata={"description": "the version it was forked at"})


class MatchSummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "active", "finished"]))
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    active_seats = fields.List(fields.Integer(), required=True)
    outcome = fields.Nested(OutcomeSchema, allow_none=True)
    options = fields.Dict()
    created = fields.Float()
    settings = fields.Nested(SettingsSchema, metadata={"description": "lifecycle choices made at creation"})
    clock = fields.Nested(
        ClockSchema, metadata={"description": "the clocks now, for a match with a time control"}
    )
    seat_control = fields.List(
        fields.Nested(SeatControlSchema),
        metadata={
            "description": "who plays each seat (AI takeovers, left seats), once any lifecycle action happened"
        },
    )
    forked_from = fields.Nested(
        ForkedFromSchema,
        metadata={
            "description": "a fork: the match and version it starts from. That history is public "
            "(the original's export), the seats' hands there included; what no seat could see there "
            "(the draw pile's order) was dealt anew"
        },
    )


class MatchListArgsSchema(Schema):
    game = fields.String()
    status = fields.String(validate=validate.OneOf(["waiting", "active", "finished"]))
    limit = QueryInteger(load_default=50, validate=validate.Range(1, 200))
    offset = number_field(0, query=True, load_default=0)


class MatchListSchema(Schema):
    matches = fields.List(fields.Nested(MatchSummarySchema), required=True)


class ClaimSeatSchema(Schema):
    name = name_field(required=True)


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True)
    match = fields.Nested(MatchSummarySchema, required=True)


class IncludeArgsSchema(Schema):
    include = fields.String(
        validate=validate.OneOf(["legal_moves"]),
        metadata={
            "description": "legal_moves: add the caller's legal moves to the state (saves a request when you act again)"
        },
    )


class StateArgsSchema(IncludeArgsSchema):
    version = number_field(1, query=True, metadata={"description": "a past version (time travel)"})
    seat = number_field(
        0,
        query=True,
        metadata={
            "description": "view as this seat: your own, or any seat once the match is over (all is public then)"
        },
    )


class StateSchema(Schema):
    match = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    seat = fields.Integer(
        allow_none=True, metadata={"description": "the caller's seat; null for a spectator"}
    )
    active_seats = fields.List(fields.Integer(), required=True)
    view = fields.Dict(required=True, metadata={"description": "the game's view for the caller"})
    outcome = fields.Nested(OutcomeSchema, allow_none=True)
    legal_moves = fields.List(
        fields.Dict(), metadata={"description": "with include=legal_moves: the caller's legal moves"}
    )
    clock = fields.Nested(
        ClockSchema,
        metadata={
            "description": "the clocks (time left per seat, whose clock runs): now, or as they were at a past version"
        },
    )
    seat_control = fields.List(
        fields.Nested(SeatControlSchema),
        metadata={
            "description": "who plays each seat (AI takeovers, left seats), once any lifecycle action happened"
        },
    )
    sealed_steps = fields.Integer(
        validate=validate.Range(min=1),
        metadata={
            "description": "shown to the caller's seat only: how many of its own steps wait sealed until it "
            "confirms (a game's simultaneous phase); they are in its view but not in the log, so "
            "`version` does not count them"
        },
    )


class MatchCreatedSchema(Schema):
    match = fields.Nested(MatchSummarySchema, required=True)
    tokens = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "seat number -> bearer token, shown only once"},
    )
    admin_token = fields.String(
        metadata={
            "description": "the creator's token (shown once): reissues a left seat's token, sets up a rematch"
        }
    )
    state = fields.Nested(
        StateSchema,
        required=True,
        metadata={
            "description": "the opening state as a spectator sees it (public information only); "
            "a seat's own view: GET .../state with its token"
        },
    )


class LegalMovesSchema(Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(allow_none=True)
    moves = fields.List(fields.Dict(), required=True)


class MoveRequestSchema(Schema):
    move = fields.Dict(
        required=True,
        metadata={"description": "one of the game's moves, as listed by legal-moves", "minProperties": 1},
    )
    expected_version = number_field(1, load_default=None, allow_none=True)
    seat = StrictInteger(
        load_default=None,
        allow_none=True,
        metadata={"description": "optional: refused with not-your-seat unless it is the token's seat"},
    )

    @validates_schema
    def _move_has_type(self, data, **kwargs):
        if not isinstance(data.get("move"), dict) or not data["move"]:
            raise ValidationError("A move is a non-empty object.", "move")


class EntrySchema(Schema):
    version = fields.Integer(required=True)
    kind = fields.String(
        required=True,
        validate=validate.OneOf(["setup", "move", "undo", "lifecycle", "deal"]),
        metadata={
            "description": "deal: a fork's first own entry, the game dealing anew what no seat could see "
            "at the fork (the draw pile's order); what it deals stays hidden until the fork is over"
        },
    )
    seat = fields.Integer(allow_none=True)
    time = fields.Float(allow_none=True)
    undone = fields.Boolean(required=True)
    events = fields.List(fields.Dict(), required=True)
    text = fields.List(fields.String(), required=True, metadata={"description": "one sentence per event"})
    move = fields.Dict(
        metadata={"description": "the command; shown to its author (and to all once the match is over)"}
    )
    target = fields.Integer(metadata={"description": "for undo entries: the version returned to"})
    action = fields.String(
        validate=validate.OneOf(["start", "resign", "leave", "reclaim", "timeout", "rematch", "release"]),
        metadata={"description": "for lifecycle entries: what happened to the match"},
    )
    level = fields.String(metadata={"description": "leave: the AI level that plays the seat now"})
    policy = fields.Dict(metadata={"description": "timeout: the policy applied ({action, level})"})
    outcome = fields.Nested(
        OutcomeSchema, metadata={"description": "resign / forfeit: the outcome it ended with"}
    )
    next = fields.String(metadata={"description": "rematch: the id of the next match"})


class MoveResponseSchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "the version the move created"})
    events = fields.List(
        fields.Dict(), required=True, metadata={"description": "its events, redacted for the caller"}
    )
    text = fields.List(fields.String(), required=True)
    duplicate = fields.Boolean(
        required=True, metadata={"description": "true when an Idempotency-Key was replayed"}
    )
    state = fields.Nested(StateSchema, required=True)


class HistoryArgsSchema(Schema):
    after = number_field(0, query=True, load_default=0)
    limit = QueryInteger(load_default=100, validate=validate.Range(1, 500))


class EventPageSchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "the match's current version"})
    entries = fields.List(fields.Nested(EntrySchema), required=True)
