"""Liveness and readiness probes."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView
from marshmallow import Schema, fields

from ..errors import GameroomError
from .blueprint import Blueprint
from .docs import PROBLEM

blp = Blueprint("health", __name__, url_prefix="/api", description="Probes")


class HealthSchema(Schema):
    status = fields.String(required=True)
    games = fields.Integer()


class NotReady(GameroomError):
    status, code, title = 503, "not-ready", "Not ready"


@blp.route("/healthz")
class Health(MethodView):
    @blp.operation("getHealth")
    @blp.response(200, HealthSchema)
    def get(self):
        """The process is up."""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.operation("getReadiness")
    @blp.response(200, HealthSchema)
    @blp.alt_response(
        503,
        **PROBLEM,
        description="not-ready: the events Redis or (when AI turns are scheduled) the queue Redis "
        "does not answer, or no game is loaded",
    )
    def get(self):
        """Redis answers (the queue's too when this app schedules AI turns) and the game plugins are
        loaded."""
        matches = current_app.extensions["gameroom"]
        try:
            matches.store.ping()
        except Exception:
            raise NotReady("Redis does not answer.") from None
        wiring = current_app.extensions["gameroom_wiring"]
        if wiring.schedulers:
            try:
                wiring.clients.ping_queue()
            except Exception:
                raise NotReady("The queue Redis (RQ's, for AI turns and clocks) does not answer.") from None
        if not len(matches.registry):
            raise NotReady("No game plugins are loaded.")
        return {"status": "ready", "games": len(matches.registry)}
