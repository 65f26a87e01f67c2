"""The HTTP API: flask-smorest blueprints, one per resource."""
from . import games, health, matches, play, stream

BLUEPRINTS = [health.blp, games.blp, matches.blp, play.blp, stream.blp]
