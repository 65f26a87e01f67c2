"""RFC 9457 problem details."""

from marshmallow import Schema, fields


class ProblemSchema(Schema):
    type = fields.String(required=True, metadata={"description": "URI naming the problem type"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable machine-readable error code"})
    rule = fields.String(metadata={"description": "the game's rule code, for illegal-move"})
    current_version = fields.Integer(
        metadata={"description": "for stale-version and out-of-time: the match's version now"}
    )
    deadline = fields.Float(
        metadata={"description": "for out-of-time: when the seat's time ran out (server time, epoch seconds)"}
    )
    version = fields.Integer(
        metadata={"description": "for tampered-log: the first version that breaks the rules"}
    )
    errors = fields.Raw(metadata={"description": "field -> messages, for validation errors"})
