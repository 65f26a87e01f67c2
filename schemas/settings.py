"""A match's settings: its clock, its timeout policy, privacy and rematch reservations; and how
its clocks and the control of its seats (left, taken over by an AI) are shown."""

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from .strict import StrictBoolean, StrictNumber

#: Longest per-move limit and largest starting bank (seconds): a week and thirty days.
MAX_PER_MOVE, MAX_BANK, MAX_INCREMENT = 7 * 86400, 30 * 86400, 3600


class ClockControlSchema(Schema):
    per_move = StrictNumber(
        load_default=None,
        allow_none=True,
        validate=validate.Range(1, MAX_PER_MOVE),
        metadata={
            "description": "seconds for each turn of a seat (from when it becomes active until it is not)"
        },
    )
    bank = StrictNumber(
        load_default=None,
        allow_none=True,
        validate=validate.Range(1, MAX_BANK),
        metadata={"description": "Fischer time bank: seconds each seat starts with"},
    )
    increment = StrictNumber(
        load_default=0.0,
        validate=validate.Range(0, MAX_INCREMENT),
        metadata={"description": "seconds added to a seat's bank each time its turn ends"},
    )

    @validates_schema
    def _some_limit(self, data, **kwargs):
        if data.get("per_move") is None and data.get("bank") is None:
            raise ValidationError("Give per_move, bank, or both.", "per_move")
        if data.get("bank") is None and data.get("increment"):
            raise ValidationError("An increment needs a bank.", "increment")


class TimeoutPolicySchema(Schema):
    action = fields.String(
        load_default="ai-turn",
        validate=validate.OneOf(["ai-turn", "ai-match", "forfeit"]),
        metadata={
            "description": "when a seat's time runs out: an AI plays its turn (ai-turn) "
            "or the rest of the match (ai-match), or the seat forfeits"
        },
    )
    level = fields.String(
        load_default="random",
        validate=validate.Length(1, 64),
        metadata={"description": "the AI level that takes over (see GET /api/games)"},
    )


class SettingsCreateFieldsMixin(Schema):
    """What ``POST /api/matches`` takes besides game, seats, options and seed."""

    clock = fields.Nested(
        ClockControlSchema,
        load_default=None,
        allow_none=True,
        metadata={"description": "a time control; absent: no clock"},
    )
    timeout = fields.Nested(
        TimeoutPolicySchema,
        load_default=None,
        allow_none=True,
        metadata={"description": "what happens when a clock runs out (default: ai-turn, random)"},
    )
    unlisted = StrictBoolean(
        load_default=False,
        metadata={"description": "private: not in the lobby; reachable by its id (the invitation link)"},
    )
    hide_names = StrictBoolean(load_default=False, metadata={"description": "the lobby shows no seat names"})


class SettingsSchema(Schema):
    clock = fields.Nested(ClockControlSchema)
    timeout = fields.Nested(TimeoutPolicySchema)
    unlisted = fields.Boolean()
    hide_names = fields.Boolean()
    rematch_of = fields.String(metadata={"description": "the match this one is the rematch of"})
    reserved = fields.List(
        fields.Integer(),
        metadata={"description": "rematch: seats kept for their players in the previous match"},
    )


class SeatClockSchema(Schema):
    seat = fields.Integer(required=True)
    running = fields.Boolean(required=True, metadata={"description": "this seat's clock runs now"})
    remaining = fields.Float(allow_none=True, required=True, metadata={"description": "seconds left"})
    deadline = fields.Float(
        allow_none=True,
        required=True,
        metadata={"description": "server time (Unix seconds) when it runs out, while running"},
    )
    bank = fields.Float(
        allow_none=True,
        required=True,
        metadata={"description": "the bank as of the last entry (Fischer clocks)"},
    )


class ClockSchema(Schema):
    control = fields.Nested(ClockControlSchema, required=True)
    timeout = fields.Nested(TimeoutPolicySchema, required=True)
    at = fields.Float(
        allow_none=True,
        required=True,
        metadata={
            "description": "the time the clocks are shown at: now, or the entry's time for a past version"
        },
    )
    seats = fields.List(fields.Nested(SeatClockSchema), required=True)
    running = fields.List(fields.Integer(), required=True, metadata={"description": "seats whose clock runs"})


class TakeoverSchema(Schema):
    level = fields.String(required=True)
    until = fields.String(required=True, validate=validate.OneOf(["turn", "match"]))


class SeatControlSchema(Schema):
    seat = fields.Integer(required=True)
    left = fields.Boolean(required=True, metadata={"description": "the seat's player left it to an AI"})
    takeover = fields.Nested(
        TakeoverSchema,
        allow_none=True,
        required=True,
        metadata={"description": "the AI playing the seat instead of its person, if any"},
    )
