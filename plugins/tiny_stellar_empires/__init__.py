"""Tiny Stellar Empires (2014), a gameroom plugin. See README.md in this folder."""

from gameroom.plugin_api import hookimpl

from .game import TinyStellarEmpires

__all__ = ["TinyStellarEmpires"]


@hookimpl
def gameroom_games():
    return [TinyStellarEmpires()]
