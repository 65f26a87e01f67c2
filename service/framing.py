"""Header blocks that cannot be framed safely, refused before any app sees them.

gevent's WSGI handler (which reads every request the worker does not read
itself, :mod:`gameroom.wire`) is lenient where a lenient server is a
request-smuggling target behind a proxy that reads the same bytes otherwise
(RFC 9112 §6.1, §6.3, §5.2):

- two ``Content-Length`` headers: it used the first, a proxy may use the other;
- a ``Content-Length`` Python's ``int`` reads but the grammar does not
  (``+5``, `` 5``, ``5_0``, ``²``, ``１``);
- ``Transfer-Encoding`` beside a ``Content-Length``, or a transfer coding other
  than a lone ``chunked`` (``gzip, chunked``: gevent reads it as no body at all);
- a header line with a bare CR, a NUL or an obsolete line folding, and a line
  that is no header (the standard library's parser then ends the headers
  early: every later header was read as the body).

:func:`problem` says what is wrong with such a block (None when nothing is), and
:func:`refusal` is the 400 problem+json sent for it, after which the connection
is closed: the rest of what the client sent cannot be trusted to start a request.
"""

from __future__ import annotations

import re

from . import jsoncodec
from .api.problems import MEDIA_TYPE, TYPE_BASE

#: The grammar of a Content-Length value (RFC 9110 §8.6): ASCII digits only (``str.isdigit``
#: also takes ``²`` and ``１``), and at most 18 of them (``int`` refuses over 4300).
_DIGITS = re.compile(r"[0-9]{1,18}")
#: The problem code of every refusal here.
CODE = "bad-http-framing"


def content_length(value: str) -> int | None:
    """The number of bytes a ``Content-Length`` value gives, or None if it is not the grammar's."""
    return int(value) if _DIGITS.fullmatch(value) else None


def problem(headers, version: str) -> str | None:
    """What makes ``headers`` (an ``http.client.HTTPMessage`` as the standard library parsed
    them) unsafe to frame a request of HTTP ``version`` by, or None."""
    if headers.defects or headers.get_payload():
        return "A header line is malformed (not 'name: value', or cut by a bare CR)."
    for name, value in headers.items():
        if any(c in value or c in name for c in "\r\n\x00"):
            return f"The {name} header holds a line break, a folded line or a NUL."
    lengths = headers.get_all("content-length") or []
    codings = headers.get_all("transfer-encoding") or []
    if len(lengths) > 1:
        return "A request has at most one Content-Length header."
    if lengths and content_length(lengths[0]) is None:
        return "Content-Length must be a decimal number of bytes (at most 18 digits)."
    if codings:
        if lengths:
            return "A request has a Content-Length or a Transfer-Encoding, not both."
        if version != "HTTP/1.1":
            return "Transfer-Encoding needs HTTP/1.1."
        if len(codings) > 1 or codings[0].strip().lower() != "chunked":
            return "The only transfer coding taken is a single 'chunked'."
    return None


def refusal(detail: str) -> bytes:
    """The whole 400 response (problem+json, then the connection closes) refusing a request for ``detail``."""
    body = jsoncodec.dumps(
        {
            "type": TYPE_BASE + CODE,
            "title": "Bad Request",
            "status": 400,
            "detail": detail,
            "code": CODE,
        }
    )
    head = (
        f"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: {MEDIA_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body
