"""Fields that take JSON as it is written, not what Python would coerce it to."""

from marshmallow import fields


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false`` only: marshmallow's Boolean also takes ``0``, ``1``, ``"yes"``,
    ``"off"`` and the like, which the OpenAPI document (``type: boolean``) does not allow.
    (A set of ``{True}`` would not do: ``1 == True`` and ``0 == False`` in Python.)"""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value
