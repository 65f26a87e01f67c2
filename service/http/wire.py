"""Ordinary game requests read straight off the connection, below gevent's WSGI handler.

gevent's WSGI handler parses every request's headers with the ``email``
package and writes every response through several layers; on this machine
that costs about 85 µs per request, as much as the rules, the redaction and
the Redis append of a move together (a hello-world app answers 10,400
requests/s through it on one worker, 84,000 through a bare gevent handler:
bench/README.md). The worker's handler (:class:`gameroom.http.worker.IdleClosingHandler`)
therefore reads the request line itself and asks :func:`read_request` whether
the request is one of a match's ordinary requests and has arrived whole:

- HTTP/1.1 ``POST /api/matches/<id>/moves`` (or ``?include=legal_moves``), ``POST
  /api/matches``, ``POST /api/matches/<id>/seats/<n>``, with a ``Content-Length``
  of at most :data:`BODY_WAITED` bytes; or ``GET
  /api/matches/<id>/state`` or ``…/legal-moves`` with no query and no body
  (every response of these is whole, never a stream);
- only the headers such a request carries (:data:`HEADERS`), each at most once,
  ``Connection`` absent or ``keep-alive``, with no NUL and no CR or LF outside a line end,
  and a ``Content-Length`` of ASCII digits (:func:`gameroom.http.framing.content_length`).

Then it builds the WSGI environ here and calls the same app (every middleware,
:class:`gameroom.http.lean.LeanRequests`, Flask for whatever the lean path hands
on) and writes its response (:func:`response_bytes`). Anything else (another
method or path, ``Transfer-Encoding``, ``Expect``, an ``Origin``, a header it does
not know, a larger body still on its way) is left unread for gevent's own handler,
which answers it as it always did. Nothing here decides anything about the
move: it only moves bytes, so the answer is the app's, byte for byte.

Headers must have arrived whole (one look at the buffer, never a wait); the
body may follow them: many clients (Python's ``http.client``, hence
``requests``) send it in a write of its own. The worker then waits for it as
gevent's handler would when the app reads ``wsgi.input``, but only for a body
of at most :data:`BODY_WAITED` bytes (the API's default body limit); a larger
one is never held in memory here.
"""

from __future__ import annotations

import io
import re
import time
from wsgiref.handlers import format_date_time

from ..config import Config
from ..core.matches import MATCH_ID_PATTERN
from .framing import content_length

#: The request lines taken: method, path, query string.
_LINE = re.compile(
    rf"(?:(POST) (/api/matches(?:/{MATCH_ID_PATTERN}/(?:moves|seats/[0-9]{{1,2}}))?)(?:\?(include=legal_moves))?"
    rf"|(GET) (/api/matches/{MATCH_ID_PATTERN}/(?:state|legal-moves))) HTTP/1\.1\r\n"
)
#: The start of every request line :data:`_LINE` takes (a cheap first look).
PREFIXES = ("POST /api/matches", "GET /api/matches/")
#: The headers these requests carry, and their WSGI environ keys.
HEADERS = {
    b"host": "HTTP_HOST",
    b"content-type": "CONTENT_TYPE",
    b"content-length": "CONTENT_LENGTH",
    b"authorization": "HTTP_AUTHORIZATION",
    b"idempotency-key": "HTTP_IDEMPOTENCY_KEY",
    b"connection": "HTTP_CONNECTION",
    b"accept": "HTTP_ACCEPT",
    b"accept-encoding": "HTTP_ACCEPT_ENCODING",
    b"accept-language": "HTTP_ACCEPT_LANGUAGE",
    b"user-agent": "HTTP_USER_AGENT",
    b"if-none-match": "HTTP_IF_NONE_MATCH",
}
_HEADER_END = b"\r\n\r\n"
#: The largest body waited for when it has not arrived with its headers (the API's default
#: ``max_body``); a larger one is left to gevent's handler unless it is already in the buffer.
BODY_WAITED = Config.max_body
#: :func:`read_request`'s answer when the peer closed the connection before the whole body came.
CLOSED = object()
#: What gevent's handler sends for an error in the app it could not answer otherwise.
INTERNAL_ERROR = (
    b"HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Type: text/plain\r\n"
    b"Content-Length: 21\r\n\r\nInternal Server Error"
)


def read_request(requestline: str, rfile) -> dict | object | None:
    """The request part of the WSGI environ of an ordinary request (see the module's text), which
    is then consumed from ``rfile`` (waiting for the rest of a small body); None, with nothing
    consumed, for anything else; :data:`CLOSED` if the peer closed the connection mid-body.

    ``requestline``: the request line already read (latin-1 text, with its CRLF);
    ``rfile``: the connection's buffered reader, positioned after it.
    """
    found = _LINE.fullmatch(requestline)
    if found is None:
        return None
    buffered = rfile.peek(1)  # what has arrived (one read if nothing has): never waits for more
    end = buffered.find(_HEADER_END)
    if end < 0:
        return None
    block = buffered[:end]
    breaks = block.count(b"\r\n")
    if b"\x00" in block or block.count(b"\r") != breaks or block.count(b"\n") != breaks:
        return None  # a NUL, or a CR or LF outside a line end
    environ = {}
    for line in block.split(b"\r\n"):
        name, colon, value = line.partition(b":")
        key = HEADERS.get(name.lower())
        if not colon or key is None or key in environ:
            return None
        environ[key] = value.strip(b" \t").decode("latin-1")
    connection = environ.get("HTTP_CONNECTION")
    if connection is not None and connection.lower() != "keep-alive":
        return None
    method, path, query = found.group(1, 2, 3) if found.group(1) else (*found.group(4, 5), None)
    length = environ.get("CONTENT_LENGTH", "" if method == "POST" else "0")
    start = end + len(_HEADER_END)
    size = content_length(length)
    if size is None or (method == "GET" and length != "0"):
        return None
    if len(buffered) >= start + size:
        body = bytes(buffered[start : start + size])
        rfile.read(start + size)
    elif size <= BODY_WAITED:
        rfile.read(start)
        body = rfile.read(size)  # a buffered reader's read waits for all of it, or the end
        if len(body) < size:
            return CLOSED
    else:
        return None
    environ.update(
        REQUEST_METHOD=method,
        SCRIPT_NAME="",
        PATH_INFO=path,
        QUERY_STRING=query or "",
        RAW_URI=requestline[len(method) + 1 : -11],
        SERVER_PROTOCOL="HTTP/1.1",
    )
    environ["wsgi.input"] = io.BytesIO(body)
    environ["wsgi.input_terminated"] = True
    return environ


_dated = [0, b""]  # the second, and its Date header value


def _date() -> bytes:
    """The Date header's value for now, formatted once per second."""
    second = int(time.time())
    if second != _dated[0]:
        _dated[:] = [second, format_date_time(second).encode("latin-1")]
    return _dated[1]


def response_bytes(status: str, headers: list, chunks) -> tuple[bytes, bool]:
    """The HTTP/1.1 response as gevent's handler writes it (a ``Date`` and a ``Content-Length``
    added if the app gave none), and whether the app asked to close the connection."""
    body = b"".join(chunks)
    out = [b"HTTP/1.1 ", status.encode("latin-1"), b"\r\n"]
    given = set()
    for name, value in headers:
        if "\r" in name or "\n" in name or "\r" in value or "\n" in value:
            raise ValueError(f"carriage return or newline in response header {name!r}")
        given.add(name.lower())
        out += (name.encode("latin-1"), b": ", value.encode("latin-1"), b"\r\n")
    if "date" not in given:
        out += (b"Date: ", _date(), b"\r\n")
    if "content-length" not in given and not status.startswith(("204", "304")):
        out += (b"Content-Length: ", str(len(body)).encode("latin-1"), b"\r\n")
    out += (b"\r\n", body)
    close = any(n.lower() == "connection" and v.lower() == "close" for n, v in headers)
    return b"".join(out), close
