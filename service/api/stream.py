"""GET /api/matches/{id}/stream: Server-Sent Events, one per appended entry.

Each event's ``id`` is the entry's version, so a client that reconnects with
``Last-Event-ID`` (EventSource does this by itself) misses nothing, across
server restarts too: versions are positions in the match's Redis stream.
Entries are redacted for the caller exactly as in ``/events``. Browsers'
EventSource cannot set headers, so the token may also come as ``?token=``.

Live entries come from the process's :class:`~gameroom.eventstore.hub.StreamHub`
(one Redis reader for all open streams). With nothing to send for
``sse_keepalive`` seconds, a ``: keep-alive`` comment goes out. When the match
is over and the caller has every entry, an ``end`` event closes the response;
a reconnect to a finished match that has nothing newer gets ``204 No
Content``, which tells EventSource to stop reconnecting.
"""

from __future__ import annotations

import collections
import logging
import time

from flask import Response, current_app, request
from flask.views import MethodView
from marshmallow import Schema, fields

from gameroom.schemas.matches import MAX_NUMBER, number_field

from .. import jsoncodec
from ..core import lifecycle
from ..core.matches import hash_token
from ..errors import BadRequest
from ..eventstore.hub import StreamLimit
from ..http import draining, hangup
from . import problems
from .auth import bearer_token, seat_of
from .blueprint import Blueprint
from .docs import PROBLEM, UNAUTHORIZED
from .throttle import ThrottledLog

#: What ``/stream`` sends, for the OpenAPI document.
SSE_FORMAT = (
    "Server-Sent Events (text/event-stream). First `retry: 2000`; then, for every entry appended "
    "after the start version, a frame `id: <version>`, `event: entry`, `data: <the Entry as JSON, "
    "redacted for the caller>` (schema: `x-item-schema`, the `Entry` component); `: keep-alive` "
    "comments while nothing happens. Once the match is over and the caller has every entry, an "
    '`end` event (`data: {"version": <last version>}`) closes the stream, and a reconnect then '
    "gets 204 (EventSource stops reconnecting). A stream also ends after the server's maximum "
    "age, or when its server process stops: reconnect with `Last-Event-ID`."
)

blp = Blueprint("stream", __name__, url_prefix="/api/matches", description="Live updates")


class StreamArgsSchema(Schema):
    token = fields.String(
        metadata={
            "description": "seat token, for clients that cannot set headers; "
            "beside an Authorization header it must name the same token (else 400 conflicting-tokens)"
        }
    )
    after = number_field(0, query=True, metadata={"description": "start after this version"})


def _start_version() -> int:
    raw = request.headers.get("Last-Event-ID")  # present but empty: refused like any non-number
    if raw is None:
        raw = request.args.get("after") or "0"
    if not (raw.isascii() and raw.isdigit()):  # int() would also take " 7", "+7", "1_0" and other digits
        raise BadRequest("Last-Event-ID must be a version number.", code="bad-last-event-id")
    digits = raw.lstrip("0") or "0"
    if len(digits) > len(str(MAX_NUMBER)) or int(digits) > MAX_NUMBER:  # int() refuses over 4300 digits
        raise BadRequest(f"Last-Event-ID must be a version from 0 to {MAX_NUMBER}.", code="bad-last-event-id")
    return int(digits)


def _finished(matches, loaded) -> bool:
    """Over by the game's rules, or by a resignation or forfeit (see :mod:`gameroom.core.lifecycle`)."""
    return lifecycle.outcome(matches.game(loaded.record), loaded.folded) is not None


class _FrameCache:
    """The SSE text of recently delivered entries, per match, versions and seat.

    Every stream of a match receives the same new entries from the hub: the
    first stream of each seat (spectators are one "seat") redacts and encodes
    them, the others reuse the text.
    """

    def __init__(self, size: int = 4096):
        self.size = size
        self._items: collections.OrderedDict = collections.OrderedDict()

    def get(self, key):
        return self._items.get(key)

    def put(self, key, value) -> None:
        self._items[key] = value
        if len(self._items) > self.size:
            self._items.popitem(last=False)


_FRAMES = _FrameCache()


def _fold(matches, match_id: str, upto: int):
    """The match folded up to ``upto`` at least: this process's fold when it is recent enough."""
    loaded = matches.open(match_id, fresh=False)[0]
    return loaded if loaded.version >= upto else matches.load(match_id)


def _retired(matches, match_id: str, token_hash: str, upto: int) -> bool:
    """Whether the stream's token was retired (its seat left, was reclaimed...) by version ``upto``."""
    return lifecycle.revoked(_fold(matches, match_id, upto).folded, token_hash)


def _frames(matches, match_id: str, entries: list[dict], seat) -> tuple[str, int, bool]:
    """``(SSE text of entries for seat, last version, whether the match is over and this was its last entry)``."""
    key = (match_id, entries[0]["version"], entries[-1]["version"], seat)
    cached = _FRAMES.get(key)
    if cached is not None:
        return cached
    loaded = _fold(matches, match_id, entries[-1]["version"])
    parts = []
    for entry in matches.redact(loaded, entries, seat):
        parts.append(f"id: {entry['version']}\nevent: entry\ndata: {jsoncodec.dumps_text(entry)}\n\n")
    last = entries[-1]["version"]
    result = ("".join(parts), last, last >= loaded.version and _finished(matches, loaded))
    _FRAMES.put(key, result)
    return result


def sse_frames(
    matches, sub, seat, after: int, keepalive: float, max_age: float, token_hash: str | None = None
):
    """Yield SSE frames until ``max_age`` passes, the match is over and the caller has it all, or
    the process stops (:mod:`gameroom.http.draining`: the entries already received are sent first).

    A seat's stream (``token_hash``: its token's) ends, sending nothing more, once the token is
    retired (the seat left, or was given to someone else): what follows is no longer its
    holder's to see, and the reconnect gets 401 like any other request with that token.
    """
    match_id = sub.match_id
    with sub:
        deadline = time.monotonic() + max_age
        yield "retry: 2000\n\n"
        entries = matches.store.read(match_id, after, sub.backlog_upto) if sub.backlog_upto > after else []
        last_sent = time.monotonic()
        while True:
            entries = [e for e in entries if e["version"] > after]
            if entries:
                if token_hash is not None and _retired(matches, match_id, token_hash, entries[-1]["version"]):
                    return
                frames, after, finished = _frames(matches, match_id, entries, seat)
                yield frames
                last_sent = time.monotonic()
                if finished:
                    yield f"event: end\ndata: {jsoncodec.dumps_text({'version': after})}\n\n"
                    return
            now = time.monotonic()
            if now >= deadline or draining.active():  # the process stops: reconnect to another
                return
            if now - last_sent >= keepalive:
                yield ": keep-alive\n\n"
                last_sent = now
            entries = sub.get(max(0.0, min(keepalive - (now - last_sent), deadline - now)))
            if sub.closed and not draining.active():  # the client went away (see :mod:`gameroom.http.hangup`)
                return


@blp.route("/<match_id>/stream")
class Stream(MethodView):
    @blp.operation(
        "streamEvents",
        responses={
            200: {
                "content": {
                    "text/event-stream": {
                        # The body is text: a generated client hands it over as a string (an object
                        # schema made them call ``from_dict`` on the text). Each frame's data is an Entry
                        # as JSON (``x-item-schema``), or ``{"version": N}`` for the closing ``end``.
                        "schema": {"type": "string", "description": SSE_FORMAT},
                        "x-item-schema": {"$ref": "#/components/schemas/Entry"},
                    }
                },
                "headers": {
                    "Cache-Control": {"description": "`no-cache`", "schema": {"type": "string"}},
                    "X-Accel-Buffering": {
                        "description": "`no`: proxies must not buffer the stream",
                        "schema": {"type": "string"},
                    },
                },
            }
        },
    )
    @blp.arguments(StreamArgsSchema(), location="query")
    @blp.header(
        "Last-Event-ID",
        "resume after this version (EventSource sends it by itself on reconnect); wins over `after`",
        schema={"type": "string", "pattern": "^[0-9]+$"},
    )
    @blp.response(
        200,
        description="Server-Sent Events, one per entry appended after the start version; "
        "an `end` event once the match is over and every entry was sent",
    )
    @blp.alt_response(204, description="The match is over and the caller has every entry: stop reconnecting")
    @blp.alt_response(400, **PROBLEM, description="bad-last-event-id, conflicting-tokens")
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(429, **PROBLEM, headers={"Retry-After": {"schema": {"type": "integer"}}})
    @blp.alt_response(503, **PROBLEM, headers={"Retry-After": {"schema": {"type": "integer"}}})
    def get(self, args, match_id):
        """Live entries as Server-Sent Events, resumable with ``Last-Event-ID``."""
        matches = current_app.extensions["gameroom"]
        token = bearer_token(allow_query=True)
        loaded, seat = seat_of(matches, match_id, token)
        after = _start_version()
        if after > loaded.version:  # no such version: waiting for it would show nothing, ever
            raise BadRequest(
                f"The match has versions up to {loaded.version}; resume from one of them.",
                code="bad-last-event-id",
            )
        if after >= loaded.version and _finished(matches, loaded):
            done = Response(status=204)
            del done.headers["Content-Type"]  # no body, so no type (Flask's default is HTML)
            return done
        config = current_app.config["GAMEROOM"]
        client = request.remote_addr or ""  # the proxies' client with GAMEROOM_TRUSTED_PROXIES
        try:
            sub = current_app.extensions["gameroom_hub"].subscribe(match_id, client)
        except StreamLimit as limit:
            return _refused(limit, config, client)
        frames = sse_frames(
            matches,
            sub,
            seat,
            after,
            config.sse_keepalive,
            config.sse_max_age,
            token_hash=hash_token(token) if seat is not None else None,
        )
        response = Response(
            frames,
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        stop_watching = hangup.watch(request.environ, sub.close)  # frees the slot as soon as the client goes
        response.call_on_close(sub.close)  # also when the client leaves before the first frame
        response.call_on_close(stop_watching)
        return response


#: The cap of streams per process reached: one line, then at most one every 10 s with a count.
_capacity_log = ThrottledLog(logging.getLogger(__name__), logging.WARNING)
#: A client address at its own cap, likewise (the line names the first such address of its
#: 10 s): a client opening streams in a loop, or every player behind a proxy not trusted for
#: their addresses (``GAMEROOM_TRUSTED_PROXIES``), who would otherwise be refused unseen.
_client_cap_log = ThrottledLog(logging.getLogger(__name__), logging.WARNING)


def _refused(limit: StreamLimit, config, client: str):
    if limit.per_client:
        _client_cap_log(
            "client %s has %d live streams open in this process, the most one client may; "
            "refusing its new ones with 429%s",
            client,
            limit.limit,
            "" if config.trusted_proxies else " (behind a proxy, see GAMEROOM_TRUSTED_PROXIES)",
        )
        response = problems.problem(
            429,
            "too-many-streams",
            "Too many streams",
            f"This client address has {limit.limit} live streams open, the most allowed.",
        )
    else:
        _capacity_log(
            "this process holds %d live streams, the most it allows; refusing new ones", limit.limit
        )
        response = problems.problem(
            503,
            "stream-capacity",
            "Stream capacity reached",
            f"This server process holds {limit.limit} live streams, the most it allows.",
        )
    response.headers["Retry-After"] = str(config.sse_retry_after)
    return response
