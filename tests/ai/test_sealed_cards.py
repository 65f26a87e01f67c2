"""The sealed-cards test game (simultaneous, hidden hands) passes the conformance kit every game must pass."""

import pytest

from gameroom.testing.conformance import GameConformance
from gameroom.testing.sealed import SealedCards


class TestSealedCards(GameConformance):
    @pytest.fixture
    def subject(self):
        return SealedCards()
