"""The HTTP API: flask-smorest blueprints, one per resource."""

from . import games, health, history, lifecycle, matches, play, stream

BLUEPRINTS = [health.blp, games.blp, history.blp, matches.blp, play.blp, stream.blp, lifecycle.blp]
