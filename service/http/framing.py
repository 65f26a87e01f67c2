"""Requests that cannot be framed or read safely, refused before any app sees them.

gevent's WSGI handler (which reads every request the worker does not read
itself, :mod:`gameroom.http.wire`) is lenient where a lenient server is a
request-smuggling target behind a proxy that reads the same bytes otherwise
(RFC 9112 §6.1, §6.3, §5.2):

- two ``Content-Length`` headers: it used the first, a proxy may use the other;
- a ``Content-Length`` Python's ``int`` reads but the grammar does not
  (``+5``, ``5_0``, ``²``, ``１``);
- ``Transfer-Encoding`` beside a ``Content-Length``, or a transfer coding other
  than a lone ``chunked`` (``gzip, chunked``: gevent reads it as no body at all);
- a header line with a bare CR, a NUL or an obsolete line folding, and a line
  that is no header.

The header lines are judged as they arrived (:func:`read_header_lines`,
:func:`problem`), not as the standard library's ``email`` parser (gevent's)
returns them: that parser ends a line at a bare CR, so ``X-A: y\\rContent-Length: 2``
became two headers, and it reads a ``multipart/*`` or ``message/*``
``Content-Type`` as a MIME structure whose (empty) body it reports defects of.

:class:`Refused` is every such refusal, and every other request that cannot
be read as HTTP/1.x (a malformed request line, one too long, too many or too
long header lines): its :meth:`~Refused.response` is the problem+json sent for
it, after which the connection is closed (the rest of what the client sent
cannot be trusted to start a request). :func:`redacted` is what a log may say
of the request line: never its query string (``?token=``).
"""

from __future__ import annotations

import re
from http import HTTPStatus

from ..api.problems import MEDIA_TYPE, problem_body

#: The grammar of a Content-Length value (RFC 9110 §8.6): ASCII digits only (``str.isdigit``
#: also takes ``²`` and ``１``), and at most 18 of them (``int`` refuses over 4300).
_DIGITS = re.compile(r"[0-9]{1,18}")
#: What a log takes for a method (RFC 9110's token, as methods are written: upper case).
_METHOD = re.compile(r"[A-Z]{1,20}")
#: A header name (RFC 9110 §5.1: a token).
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
#: An HTTP version gevent's handler serves (ASCII digits; it also reads ``HTTP/1``, then fails).
_VERSION = re.compile(r"HTTP/(?:0\.9|1\.[0-9])")
#: The problem code of a request that cannot be framed or read.
CODE = "bad-http-framing"
#: The longest header line and the most header lines read (the standard library's limits).
MAX_HEADER_LINE = 65536
MAX_HEADERS = 100


class Refused(ValueError):
    """A request refused before any app sees it (a ValueError: gevent's handler treats it as
    the client's error, not the app's)."""

    def __init__(self, detail: str, status: int = 400, code: str = CODE):
        super().__init__(detail)
        self.detail, self.status, self.code = detail, status, code

    def response(self) -> bytes:
        """The whole response (problem+json, then the connection closes)."""
        phrase = HTTPStatus(self.status).phrase
        body = problem_body(self.status, self.code, phrase, self.detail)
        head = (
            f"HTTP/1.1 {self.status} {phrase}\r\nConnection: close\r\nContent-Type: {MEDIA_TYPE}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        return head.encode("latin-1") + body


def content_length(value: str) -> int | None:
    """The number of bytes a ``Content-Length`` value gives, or None if it is not the grammar's."""
    return int(value) if _DIGITS.fullmatch(value) else None


def request_line_problem(line: str) -> str | None:
    """What makes a request line (latin-1 text, with its line end) unreadable, or None.

    What gevent's handler takes, no more: ``METHOD target HTTP/x.y`` (or HTTP/0.9's
    ``GET target``); what it refuses it refused with the line, query and all, in its message."""
    words = line.split()
    if len(words) == 2 and words[0] == "GET":
        return None
    if len(words) != 3:
        return (
            "The request line must be 'METHOD target HTTP/1.1' (a space or tab in the target is not taken)."
        )
    if not _VERSION.fullmatch(words[2]):
        return "The HTTP version must be HTTP/1.1 or HTTP/1.0."
    return None


def read_header_lines(rfile) -> list[bytes]:
    """The header lines of a request as they arrived (each with its line end), read from
    ``rfile`` up to and with the empty line that ends them, or the end of the input."""
    lines = []
    while True:
        line = rfile.readline(MAX_HEADER_LINE + 1)
        if len(line) > MAX_HEADER_LINE:
            raise Refused(
                f"A header line is longer than {MAX_HEADER_LINE} bytes.", 431, "header-fields-too-large"
            )
        if line in (b"\r\n", b"\n", b""):
            return lines
        lines.append(line)
        if len(lines) > MAX_HEADERS:
            raise Refused(
                f"A request has at most {MAX_HEADERS} header lines.", 431, "header-fields-too-large"
            )


def problem(lines: list[bytes], version: str) -> str | None:
    """What makes the header ``lines`` (as :func:`read_header_lines` read them) unsafe to frame
    a request of HTTP ``version`` by, or None."""
    lengths, codings = [], []
    for line in lines:
        text = line.removesuffix(b"\n").removesuffix(b"\r")
        if text[:1] in (b" ", b"\t"):
            return "A header line is folded (starts with a space or a tab)."
        name, colon, value = text.partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            return "A header line is malformed (not 'name: value')."
        if b"\r" in value or b"\x00" in value:
            return f"The {name.decode()} header holds a bare CR or a NUL."
        lowered = name.lower()
        if lowered in (b"content-length", b"transfer-encoding"):
            # a field value without the blanks around it (RFC 9110 §5.5), as the worker's own path
            # (gameroom.http.wire) reads it: both paths take "Content-Length: 12 " alike
            (lengths if lowered == b"content-length" else codings).append(
                value.strip(b" \t").decode("latin-1")
            )
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


def redacted(requestline: str, limit: int = 100) -> str:
    """What a log may say of a request line: its method and path, never its query string
    (a live stream's ``?token=``), at most ``limit`` characters."""
    words = requestline.split("?", 1)[0].split()[:2]
    if not words or not _METHOD.fullmatch(words[0]):
        # no request line: a header line (``Authorization:Bearer <token>``) or body bytes
        # where one was expected; nothing of it may reach a log
        return "-"
    if len(words) == 2 and not words[1].startswith(("/", "*", "http://", "https://")):
        words = words[:1]  # not a target: whatever it is, it is not shown
    shown = " ".join(words)
    return shown if len(shown) <= limit else shown[:limit] + "…"
