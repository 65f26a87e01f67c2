"""GET /api/matches/{id}/stream: Server-Sent Events, one per appended entry.

Each event's ``id`` is the entry's version, so a client that reconnects with
``Last-Event-ID`` (EventSource does this by itself) misses nothing. Entries
are redacted for the caller exactly as in ``/events``. Browsers' EventSource
cannot set headers, so the token may also come as ``?token=``.
"""
from __future__ import annotations

import time

from flask import Response, current_app, request, stream_with_context
from flask.views import MethodView
from marshmallow import Schema, fields

from schemas.matches import MAX_NUMBER, number_field

from .. import jsoncodec
from ..core import lifecycle
from ..errors import BadRequest
from .auth import caller_seat
from .blueprint import Blueprint
from .docs import PROBLEM, UNAUTHORIZED

#: What ``/stream`` sends, for the OpenAPI document.
SSE_FORMAT = ("Server-Sent Events (text/event-stream). First `retry: 2000`; then, for every entry appended "
              "after the start version, a frame `id: <version>`, `event: entry`, `data: <the Entry as JSON, "
              "redacted for the caller>` (schema: `x-item-schema`, the `Entry` component); `: keep-alive` "
              "comments while nothing happens. The stream ends when the match is over and drained, or after "
              "the server's maximum age: reconnect with `Last-Event-ID`.")

blp = Blueprint("stream", __name__, url_prefix="/api/matches", description="Live updates")


class StreamArgsSchema(Schema):
    token = fields.String(metadata={"description": "seat token, for clients that cannot set headers"})
    after = number_field(0, metadata={"description": "start after this version"})


def _start_version() -> int:
    raw = request.headers.get("Last-Event-ID") or request.args.get("after") or "0"
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest("Last-Event-ID must be a version number.", code="bad-last-event-id") from None
    if not 0 <= value <= MAX_NUMBER:
        raise BadRequest(f"Last-Event-ID must be a version from 0 to {MAX_NUMBER}.", code="bad-last-event-id")
    return value


def sse_frames(matches, match_id: str, seat, after: int, keepalive: float, max_age: float):
    """Yield SSE frames until ``max_age`` passes or the match is over and drained."""
    deadline = time.monotonic() + max_age
    yield "retry: 2000\n\n"
    while time.monotonic() < deadline:
        entries = matches.store.subscribe(match_id, after, block_ms=int(keepalive * 1000))
        if not entries:
            yield ": keep-alive\n\n"
            loaded = matches.load(match_id)
            over = lifecycle.outcome(matches.game(loaded.record), loaded.folded) is not None
            if loaded.version <= after and over:
                return
            continue
        loaded = matches.load(match_id)
        for entry in matches.redact(loaded, entries, seat):
            after = entry["version"]
            yield f"id: {after}\nevent: entry\ndata: {jsoncodec.dumps_text(entry)}\n\n"


@blp.route("/<match_id>/stream")
class Stream(MethodView):
    @blp.operation("streamEvents", responses={200: {"content": {"text/event-stream": {
        "schema": {"type": "string", "description": SSE_FORMAT},
        "x-item-schema": {"$ref": "#/components/schemas/Entry"}}}, "headers": {
        "Cache-Control": {"description": "`no-cache`", "schema": {"type": "string"}},
        "X-Accel-Buffering": {"description": "`no`: proxies must not buffer the stream",
                              "schema": {"type": "string"}}}}})
    @blp.arguments(StreamArgsSchema(), location="query")
    @blp.header("Last-Event-ID", "resume after this version (EventSource sends it by itself on reconnect); "
                "wins over `after`", schema={"type": "string", "pattern": "^[0-9]+$"})
    @blp.response(200, description="Server-Sent Events, one per entry appended after the start version")
    @blp.alt_response(400, **PROBLEM, description="bad-last-event-id")
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, **PROBLEM)
    def get(self, args, match_id):
        """Live entries as Server-Sent Events, resumable with ``Last-Event-ID``."""
        matches = current_app.extensions["gameroom"]
        seat = caller_seat(matches, match_id, allow_query=True)
        after = _start_version()
        config = current_app.config["GAMEROOM"]
        frames = sse_frames(matches, match_id, seat, after, config.sse_keepalive, config.sse_max_age)
        return Response(stream_with_context(frames), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
