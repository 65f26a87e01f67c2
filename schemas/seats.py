"""The bodies and results of the players' actions: resign, leave, reclaim, release, rematch."""

from marshmallow import Schema, fields, validate


class LeaveSchema(Schema):
    level = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(1, 64),
        metadata={"description": "the AI level that plays the seat from now on (default random)"},
    )


class EmptyBodySchema(Schema):
    """The body of an action that takes no parameters: none at all, or ``{}`` (what many HTTP
    clients send with every POST). Anything in it is refused (422), never ignored: an irreversible
    action (resign, rematch, reclaim, release) must not run on a request the client meant as
    something else."""


class LifecycleResultSchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "the version of the lifecycle entry"})
    entry = fields.Dict(required=True, metadata={"description": "the entry, as history shows it"})
    match = fields.Dict(required=True, metadata={"description": "the match's public summary"})


class RematchSchema(Schema):
    match = fields.Dict(required=True, metadata={"description": "the rematch's public summary"})
    seat = fields.Integer(allow_none=True, required=True, metadata={"description": "the caller's seat in it"})
    token = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "the caller's new seat token (shown once); null for the creator's admin token"
        },
    )
