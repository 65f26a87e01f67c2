from marshmallow import Schema, fields


class GameSchema(Schema):
    slug = fields.String(required=True)
    title = fields.String(required=True)
    description = fields.String()
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    rules_version = fields.Integer(required=True)
    hidden_information = fields.Boolean(required=True)
    simultaneous = fields.Boolean(required=True)
    max_steps = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "an upper bound on the moves of a match under the default options; "
            "null when they put no bound on it (players may play on until someone wins)"
        },
    )
    ai_levels = fields.List(fields.String(), required=True)
    distribution = fields.String(required=True)
    version = fields.String(required=True)
    schemas = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={"description": "names of this game's components in the OpenAPI document"},
    )
    renderer = fields.String(
        allow_none=True,
        metadata={
            "description": "URL of the game's web renderer (an ES module); null: the generic renderer draws it"
        },
    )
    options_schema = fields.Dict(metadata={"description": "JSON Schema of the match options"})
