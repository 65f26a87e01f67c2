"""``gameroom.plugin_api.Game`` as the game author's whole contract: what it tells about a game class."""

from __future__ import annotations

import pytest

from gameroom.plugin_api import Game


class Base(Game):
    def evaluate(self, state, seat):
        return 0.5


class Child(Base):
    mcts_iterations = 10

    def sample_state(self, view, seat, rng):
        return dict(view)


class Restores(Child):
    #: Game's own function, assigned back: not an override.
    sample_state = Game.sample_state


def test_overrides_tells_a_method_the_class_defines_from_one_it_inherits_from_game():
    assert Base.overrides("evaluate")
    assert not Base.overrides("sample_state")
    assert not Base.overrides("sealed_steps")


def test_overrides_sees_what_a_parent_class_overrode_and_attributes_too():
    assert Child.overrides("evaluate")  # from Base, not Game
    assert Child.overrides("sample_state")
    assert Child.overrides("mcts_iterations") and not Child.overrides("mcts_time_limit")
    assert Child().overrides("sample_state")  # on an instance as well


def test_assigning_games_own_method_back_is_not_an_override():
    assert not Restores.overrides("sample_state")
    assert Restores.overrides("evaluate")


def test_overrides_of_game_itself_is_false_for_everything():
    assert not any(Game.overrides(name) for name in Game.REQUIRED)


def test_overrides_refuses_a_name_game_does_not_have():
    with pytest.raises(AttributeError, match="sample_sate"):
        Base.overrides("sample_sate")
