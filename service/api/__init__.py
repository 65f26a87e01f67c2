"""The HTTP API: flask-smorest blueprints, one per resource."""

from . import games, health, history, matches, play, seats, stream

BLUEPRINTS = [health.blp, games.blp, history.blp, matches.blp, play.blp, stream.blp, seats.blp]
