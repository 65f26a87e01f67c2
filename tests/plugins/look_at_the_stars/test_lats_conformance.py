"""The platform's conformance kit over Look at the Stars."""

from gameroom.plugins.look_at_the_stars import LookAtTheStars
from gameroom.testing.conformance import GameConformance


class TestLookAtTheStarsConformance(GameConformance):
    game = LookAtTheStars()
