"""The Stars Are Right (Klaus Westerhoff, 2008) as a gameroom plugin.

Rules: shared/rules/stars-are-right.md; README.md in this folder maps the
modules to its sections.
"""

from gameroom.plugin_api import hookimpl

from .game import StarsAreRight

__all__ = ["StarsAreRight", "gameroom_games"]


@hookimpl
def gameroom_games():
    return [StarsAreRight()]
