"""``gameroom.plugin_api.Game`` as the game author's whole contract: what it tells about a game class."""

from __future__ import annotations

import inspect
import re

import pytest

from gameroom.ai.mcts import settings
from gameroom.plugin_api import Game, GameInfo


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


def _public_methods() -> list[str]:
    return sorted(
        name
        for name, value in vars(Game).items()
        if not name.startswith("_") and callable(getattr(Game, name)) and not isinstance(value, type)
    )


def test_the_contract_has_its_methods():
    """The documentation check below sees every method (not an empty list it passes trivially)."""
    methods = _public_methods()
    assert set(Game.REQUIRED) <= set(methods)
    assert {"overrides", "sample_state", "rollout_policy", "use_content"} <= set(methods)
    assert len(methods) >= 28


@pytest.mark.parametrize("name", _public_methods())
def test_every_public_method_of_game_documents_its_parameters_and_return(name):
    method = getattr(Game, name)
    doc = inspect.getdoc(method) or ""
    assert doc.strip(), f"Game.{name} has no docstring"
    params = [p for p in inspect.signature(method).parameters if p not in ("self", "cls")]
    missing = [p for p in params if f":param {p}:" not in doc]
    assert not missing, f"Game.{name}'s docstring does not document {missing}"
    documented = re.findall(r":param (\w+):", doc)
    assert documented == params, f"Game.{name} documents {documented}, in this order, but takes {params}"
    assert ":return:" in doc, f"Game.{name}'s docstring does not say what it returns"


def test_every_mcts_setting_is_a_documented_attribute_of_game():
    source = inspect.getsource(Game)
    names = [name for name in vars(Game) if name.startswith("mcts_")]
    assert set(names) >= {"mcts_iterations", "mcts_time_limit", "mcts_rollout", "mcts_minimax"}
    for name in names:
        assert re.search(rf"#: mcts: .*\n(?:    #:.*\n)*    {name}: ", source), f"{name} has no #: comment"
    # and the search has no setting that is not one of them
    game = Base()
    game.info = GameInfo(slug="base", title="Base", min_players=2, max_players=2)
    assert set(settings(game)) == {n.removeprefix("mcts_") for n in names}
