"""Fields that take JSON as it is written, not what Python would coerce it to.

marshmallow's ``Integer``, ``Float`` and ``Boolean`` read ``"1"``, ``1.5``,
``"yes"`` and the like as the type asked for; the OpenAPI document (``type:
integer``, ``number``, ``boolean``) allows none of them, and a client that sends
them meant something else. Each field here subclasses marshmallow's own, so the
OpenAPI document still says integer, number and boolean (apispec maps a field
through its classes) and validators (``validate.Range``) run as before; a value
of the wrong JSON type is the same 422 validation problem as any schema error.
"""

from marshmallow import fields


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false`` only: marshmallow's Boolean also takes ``0``, ``1``, ``"yes"``,
    ``"off"`` and the like, which the OpenAPI document (``type: boolean``) does not allow.
    (A set of ``{True}`` would not do: ``1 == True`` and ``0 == False`` in Python.)"""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class StrictInteger(fields.Integer):
    """A JSON integer only: not ``true`` (a bool is an int in Python), not a string of digits, and
    not a number written with a fraction or an exponent (``2.0`` and ``2e0`` too: JSON parses them
    as floats, and a client that writes them did not write an integer)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if type(value) is not int:
            raise self.make_error("invalid", input=value)
        return value


class StrictNumber(fields.Float):
    """A JSON number only (integer or not), loaded as a float: not ``true``, not a string.
    (Request bodies with ``NaN`` or ``Infinity`` are refused before any schema sees them.)"""

    def _deserialize(self, value, attr, data, **kwargs):
        if type(value) not in (int, float):
            raise self.make_error("invalid", input=value)
        return self._validated(value)


class QueryInteger(fields.Integer):
    """An integer in a query string: ASCII digits only.

    Query values reach the schema as strings, and ``int()`` also reads ``"+1"``, ``" 1"``,
    ``"1\\n"``, ``"1_0"`` and other scripts' digits (full-width ``"１"``). No query argument
    of the API is negative, so a sign is refused too.
    """

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, str) or not value.isascii() or not value.isdigit():
            raise self.make_error("invalid", input=value)
        try:
            return int(value)
        except ValueError:  # beyond Python's 4,300-digit conversion limit
            raise self.make_error("invalid", input=value) from None
