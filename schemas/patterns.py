"""A pattern that the whole string must match.

marshmallow's ``validate.Regexp`` looks with ``re.match``, and Python's ``$``
also matches just before a final newline: ``^[a-z]+$`` took ``"ab\\n"``, which
was then stored and shown as a name or an option. The OpenAPI document
publishes a field's pattern as written, and JSON Schema patterns are
ECMAScript, where ``$`` is the end of the string and Python's ``\\Z`` does not
exist; so the published pattern keeps its ``$``, and the check here is
``re.fullmatch``, which means what ``$`` means to every client.
"""

from marshmallow import ValidationError, validate


class FullMatch(validate.Regexp):
    """``validate.Regexp`` (apispec still publishes its pattern), matching the whole string."""

    def __call__(self, value):
        if not isinstance(value, str) or self.regex.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value
