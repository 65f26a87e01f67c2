"""Look at the Stars (Bombyx 2022) as a gameroom plugin.

Rules: LATS specification (shared/rules/look-at-the-stars.md). Content comes
from ``data/look-at-the-stars.json``, validated at import. README.md in this
folder maps the modules to the spec's sections.
"""

from gameroom.plugin_api import hookimpl

from .game import LookAtTheStars

__all__ = ["LookAtTheStars", "gameroom_games"]


@hookimpl
def gameroom_games():
    return [LookAtTheStars()]
