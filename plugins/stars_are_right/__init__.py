"""Placeholder until the game's rules land: registers no game yet."""
from service.plugin_api import hookimpl


@hookimpl
def gameroom_games():
    return []
