"""Reading JSON request bodies strictly: every body any client sends goes through here.

The standard library parses far more than the API can hold: documents nested
until the interpreter's recursion limit gives out (a 500), integers of
thousands of digits (Redis, orjson and every JSON client stop at 64 bits),
``NaN`` and ``Infinity`` (not JSON at all), objects with a name twice (which
value counts differs from parser to parser), and strings with lone surrogates
(``"\\ud800"``, which no UTF-8 encoder will write back: once stored, every
response that carries them would fail). Such a body is refused here, before
any schema or use case sees it, with a problem that says which limit it broke;
the request changes nothing.

Flask's ``request.get_json`` (through :class:`StrictJSONProvider`) and the
webargs parser (``gameroom.api.blueprint.Parser``) both load with :func:`loads`.
"""

from __future__ import annotations

import json

from flask import Request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wsgi import LimitedStream

from .. import jsoncodec
from ..errors import BadRequest

#: Deepest nesting of objects and arrays a request may have (the deepest
#: document the API defines, an exported entry's events, is about 8 deep).
MAX_DEPTH = 64
#: Integers in a request must fit in 64 signed bits (versions, counts, offsets).
MAX_INT = 2**63 - 1


def _refuse_constant(name: str):
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def _object(pairs: list) -> dict:
    """An object, unless a name occurs twice in it: parsers disagree on which one counts (RFC 8259
    §4 leaves it open), so a body two readers could take differently is refused (about 1 µs)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise BadRequest("A JSON object in the body has the same name twice.", code="duplicate-json-name")
    return found


#: One decoder for every body (``json.loads`` with an argument makes a new one per call).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=_object)


def loads(data: str | bytes):
    """Parse a request body; ``json.JSONDecodeError`` (a ValueError) when it is not JSON,
    :class:`BadRequest` when it is JSON beyond the API's limits."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            # a non-empty ``doc``: webargs reads an empty one as "no body"
            raise json.JSONDecodeError(f"not UTF-8: {exc.reason}", "<bytes>", 0) from None
    try:
        value = _DECODER.decode(data)
    except RecursionError:
        raise _too_deep() from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer beyond Python's 4,300-digit conversion limit
        raise BadRequest(
            "Integers in a request must fit in 64 signed bits.", code="number-out-of-range"
        ) from None
    check(value)
    return value


def _too_deep() -> BadRequest:
    return BadRequest(f"The JSON body is nested more than {MAX_DEPTH} levels deep.", code="json-too-deep")


def check(value) -> None:
    """Raise :class:`BadRequest` unless ``value`` (parsed JSON) is within the API's limits.

    Iterative, so that checking a deep document cannot itself recurse too deep.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if not -MAX_INT - 1 <= item <= MAX_INT:
                raise BadRequest(
                    "Integers in a request must fit in 64 signed bits.", code="number-out-of-range"
                )
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                raise BadRequest("Numbers in a request must be finite.", code="number-out-of-range")
        elif isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise _too_deep()
            if isinstance(item, dict):
                for key, child in item.items():
                    _check_text(key)
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(
            "Strings in a request must be valid Unicode (no lone surrogates such as \\ud800).",
            code="invalid-unicode",
        ) from None


class StrictJSONProvider(DefaultJSONProvider):
    """The app's JSON provider: Flask hands it to every request, so ``request.get_json``
    loads with :func:`loads`; ``jsonify`` and flask-smorest's responses (the export, the
    import's result, the game documents) dump with :mod:`gameroom.jsoncodec`, the one encoder
    of every response, problem, stream frame and stored entry (keys in the order built)."""

    def loads(self, s, **kwargs):
        return loads(s)

    def dumps(self, obj, **kwargs) -> str:
        return jsoncodec.dumps_text(obj)


class LimitedRequest(Request):
    """Flask's request, refusing a chunked body over the limit with 413 (not a truncated body).

    With no Content-Length (``Transfer-Encoding: chunked``) Werkzeug reads the
    body up to ``max_content_length`` and stops there without a word, so a body
    over the limit arrived cut short and was reported as malformed JSON (400).
    A body that fills the limit is taken as over it: nothing tells the two apart.
    """

    def get_data(self, cache: bool = True, as_text: bool = False, parse_form_data: bool = False):
        data = super().get_data(cache=cache, as_text=as_text, parse_form_data=parse_form_data)
        stream = self.__dict__.get("stream")
        if self.content_length is None and isinstance(stream, LimitedStream) and stream.is_exhausted:
            raise RequestEntityTooLarge()
        return data
