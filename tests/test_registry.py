"""Plugin discovery through entry points, and start-up failures that name the culprit."""

import types
from importlib.metadata import distribution

import pytest

from gameroom.errors import PluginError
from gameroom.plugin_api import Game, GameInfo, hookimpl
from gameroom.registry import ENTRY_POINT_GROUP, build_registry


def _module(name, games=None, **hooks):
    mod = types.ModuleType(name)
    if games is not None:
        mod.gameroom_games = hookimpl(lambda: games)
    for hook_name, fn in hooks.items():
        setattr(mod, hook_name, hookimpl(fn))
    return mod


def test_the_separately_installed_example_is_discovered_through_its_entry_point():
    dist = distribution("gameroom-nim")
    assert any(ep.group == ENTRY_POINT_GROUP and ep.name == "nim" for ep in dist.entry_points)
    installed = build_registry().installed("nim")
    assert (installed.distribution, installed.version) == ("gameroom-nim", dist.version)
    assert type(installed.game).__module__ == "gameroom_nim"


def test_duplicate_slug_fails_naming_both_plugins():
    nim = build_registry().get("nim")
    with pytest.raises(PluginError, match="Duplicate game slug 'nim'.*plugin 'nim'"):
        build_registry(extra_plugins=[("copycat", _module("copycat", [type(nim)()]))])


def test_missing_required_function_fails_naming_it():
    class Half(Game):
        info = GameInfo(slug="half", title="Half", min_players=1, max_players=2)

        def setup(self, num_seats, options, rng):
            return []

    with pytest.raises(
        PluginError, match="'half' does not implement required function\\(s\\): evolve, active_seats"
    ):
        build_registry(extra_plugins=[("half", _module("half", [Half()]))], load_entry_points=False)


def test_misspelt_hook_fails_at_start_up():
    bad = _module("typo", None, gameroom_game=lambda: [])
    with pytest.raises(PluginError, match="typo.*unknown hook"):
        build_registry(extra_plugins=[("typo", bad)], load_entry_points=False)


def test_something_that_is_not_a_game_is_refused():
    with pytest.raises(PluginError, match="not a gameroom.plugin_api.Game"):
        build_registry(extra_plugins=[("junk", _module("junk", [object()]))], load_entry_points=False)


def test_ai_policies_hook_collects_levels_from_add_on_plugins():
    def chaos(game, view, seat, legal, rng, **_):
        return legal[-1]

    addon = _module("addon", None, gameroom_ai_policies=lambda game: {"chaos": chaos})
    registry = build_registry(extra_plugins=[("addon", addon)])
    assert registry.ai_policies(registry.get("nim"))["chaos"] is chaos


def test_games_command_lists_distribution_and_version():
    from click.testing import CliRunner

    from gameroom.cli import main

    result = CliRunner().invoke(main, ["games"])
    assert result.exit_code == 0
    line = next(row for row in result.output.splitlines() if row.startswith("nim "))
    assert "gameroom-nim" in line and distribution("gameroom-nim").version in line


def test_entry_appended_observers_see_every_new_entry_and_cannot_break_a_move(redis_client):
    from gameroom.composition import matches_on

    seen = []

    def gameroom_entry_appended(match_id, entry):
        seen.append((match_id, entry["version"], entry["kind"]))
        raise RuntimeError("a broken observer")

    observer = _module("observer", None, gameroom_entry_appended=gameroom_entry_appended)
    registry = build_registry(extra_plugins=[("observer", observer)])
    matches = matches_on(redis_client, registry)
    loaded, _ = matches.create("nim", [{"name": "A"}, {"name": "B"}], {"piles": [3]})
    seat = registry.get("nim").active_seats(loaded.folded.state)[0]
    result = matches.submit(loaded.record.id, seat, {"type": "take", "pile": 0, "count": 1})
    assert result.version == 2 and matches.store.version(loaded.record.id) == 2
    assert seen == [(loaded.record.id, 1, "setup"), (loaded.record.id, 2, "move")]


def test_an_ai_level_provided_by_two_add_on_plugins_stops_start_up_naming_both():
    def chaos(game, view, seat, legal, rng, **_):
        return legal[0]

    def for_nim(game):
        return {"chaos": chaos} if game.info.slug == "nim" else None

    first = _module("first_addon", None, gameroom_ai_policies=for_nim)
    second = _module("second_addon", None, gameroom_ai_policies=for_nim)
    with pytest.raises(PluginError, match="AI level 'chaos' for nim is provided twice") as refused:
        build_registry(extra_plugins=[("first_addon", first), ("second_addon", second)])
    assert "'first_addon'" in str(refused.value) and "'second_addon'" in str(refused.value)


def test_two_plugins_with_one_entry_point_name_stop_start_up_with_a_clear_message():
    nim = build_registry().get("nim")
    with pytest.raises(PluginError, match="Two game plugins are named 'nim'"):
        build_registry(extra_plugins=[("nim", _module("another_nim", [type(nim)()]))])


def test_the_games_command_reports_a_plugin_error_without_a_traceback(monkeypatch):
    from click.testing import CliRunner

    from gameroom import registry
    from gameroom.cli import main

    real = registry.build_registry

    def clashing(*args, **kwargs):
        nim = real().get("nim")
        return real(extra_plugins=[("nim", _module("another_nim", [type(nim)()]))])

    monkeypatch.setattr(registry, "build_registry", clashing)
    result = CliRunner().invoke(main, ["games"])
    assert result.exit_code != 0
    assert "Two game plugins are named 'nim'" in result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, ValueError)


def test_a_games_hook_implemented_under_another_name_with_specname_is_found():
    nim = build_registry().get("nim")

    class Renamed(type(nim)):
        info = GameInfo(slug="nim-renamed", title="Nim renamed", min_players=2, max_players=2)

    mod = types.ModuleType("renamed")
    mod.provide_my_games = hookimpl(specname="gameroom_games")(lambda: [Renamed()])
    registry = build_registry(extra_plugins=[("renamed", mod)])
    assert registry.installed("nim-renamed").plugin == "renamed"
