"""The Stars Are Right (Klaus Westerhoff, 2008) as a gameroom plugin.

Modules: ``content`` (validated card data), ``matcher`` (constellations),
``sky`` (push/swap/flip and no-cancel), ``state`` (evolve), ``services``,
``summon``, ``rules`` (legal moves and decide), ``views`` (hidden
information), ``schemas``, ``describe``, ``ai`` and ``game``.
"""

from gameroom.plugin_api import hookimpl

from .game import StarsAreRight

__all__ = ["StarsAreRight", "gameroom_games"]


@hookimpl
def gameroom_games():
    return [StarsAreRight()]
