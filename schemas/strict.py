"""Fields that take JSON as it is written, not what Python would coerce it to."""
from marshmallow import fields


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false`` only: marshmallow's Boolean also takes ``0``, ``1``, ``"yes"``,
    ``"off"`` and the like, which the OpenAPI document (``type: boolean``) does not allow."""

    truthy = {True}
    falsy = {False}
