"""Undo, undo requests, fork, export and import."""

from marshmallow import Schema, fields, validate

from .matches import EntrySchema, MatchSummarySchema, SeatSpecSchema, StateSchema, number_field
from .strict import StrictBoolean, StrictInteger, StrictNumber


class UndoRequestBodySchema(Schema):
    steps = StrictInteger(
        load_default=1,
        validate=validate.Range(1, 1000),
        metadata={"description": "how many of your own most recent steps to undo"},
    )
    expected_version = number_field(
        1,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "optional: refused (409 stale-version) unless the match is still at this "
            "version (sealed steps in your draft do not change it: an Idempotency-Key guards their undo)"
        },
    )


class UndoRequestSchema(Schema):
    id = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "who asked"})
    steps = fields.Integer(required=True)
    target = fields.Integer(required=True, metadata={"description": "the version the match would return to"})
    undoes = fields.List(fields.Integer(), required=True)
    base_version = fields.Integer(
        required=True, metadata={"description": "any move after it withdraws the request"}
    )
    votes = fields.Dict(keys=fields.String(), values=fields.Boolean(allow_none=True), required=True)
    status = fields.String(
        required=True, validate=validate.OneOf(["pending", "approved", "refused", "withdrawn"])
    )


class UndoRequestListSchema(Schema):
    requests = fields.List(fields.Nested(UndoRequestSchema), required=True)


class UndoResultSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(["applied", "requested"]))
    entry = fields.Nested(EntrySchema, metadata={"description": "the undo entry, when applied"})
    request = fields.Nested(
        UndoRequestSchema, metadata={"description": "the request, when consent is needed"}
    )
    state = fields.Nested(StateSchema, required=True)


class VoteSchema(Schema):
    approve = StrictBoolean(required=True)


class VoteResultSchema(Schema):
    request = fields.Nested(UndoRequestSchema, required=True)
    entry = fields.Nested(EntrySchema, metadata={"description": "the undo entry, once everyone approved"})
    state = fields.Nested(StateSchema, required=True)


class ForkSchema(Schema):
    version = number_field(1, required=True)
    seats = fields.List(
        fields.Nested(SeatSpecSchema),
        load_default=None,
        metadata={"description": "default: the same names and AI levels"},
    )


class ReseedSchema(Schema):
    version = StrictInteger(
        required=True,
        validate=validate.Range(2, 2**31),
        metadata={"description": "first version decided under this seed"},
    )
    seed = fields.String(required=True, validate=validate.Length(1, 128))


class ExportSchema(Schema):
    """An export; its fields are strict because :class:`ImportSchema` loads the same document."""

    format = fields.String(required=True, validate=validate.Equal("gameroom-match"))
    format_version = StrictInteger(required=True)
    game = fields.String(required=True)
    rules_version = StrictInteger(required=True)
    complete = StrictBoolean(
        required=True, metadata={"description": "true: the full log of a finished match"}
    )
    seats = fields.List(fields.Dict(), required=True)
    options = fields.Dict(required=True)
    created = StrictNumber()
    version = StrictInteger()
    outcome = fields.Dict(allow_none=True)
    seed = fields.String(
        validate=validate.Length(1, 128),
        metadata={"description": "only in complete exports: lets an importer re-check every draw"},
    )
    reseeds = fields.List(
        fields.Nested(ReseedSchema),
        validate=validate.Length(max=64),
        metadata={
            "description": "only in complete exports of forks: the seeds that decided the log from the "
            "fork on (up to it, the original's seed decided)"
        },
    )
    entries = fields.List(fields.Dict(), required=True)


class ImportSchema(ExportSchema):
    """What ``POST /api/matches/import`` accepts: an export, whose seats are checked as create checks them."""

    seats = fields.List(fields.Nested(SeatSpecSchema), required=True, validate=validate.Length(1, 16))


class ImportResultSchema(Schema):
    match = fields.Nested(MatchSummarySchema, required=True)
