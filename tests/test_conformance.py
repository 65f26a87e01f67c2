"""The conformance kit over every installed game (first-party and third-party)."""

import pytest

from gameroom.registry import build_registry
from gameroom.testing.conformance import GameConformance

REGISTRY = build_registry()


@pytest.mark.parametrize("slug", [g.slug for g in REGISTRY])
class TestInstalledGames(GameConformance):
    @pytest.fixture
    def subject(self, slug):
        return REGISTRY.get(slug)
