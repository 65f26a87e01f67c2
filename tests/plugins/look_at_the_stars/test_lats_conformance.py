"""The platform's conformance kit over Look at the Stars."""
from plugins.look_at_the_stars import LookAtTheStars
from service.testing.conformance import GameConformance


class TestLookAtTheStarsConformance(GameConformance):
    game = LookAtTheStars()
