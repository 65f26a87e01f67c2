"""Every first-party game has the same module layout, mapped to its rules spec in a README.

The layout (issue 16, item 4): the same module names with the same
responsibilities in every plugin under ``plugins/``, so that a reader who knows
one game finds their way in the others. A module outside the list is allowed
only if the plugin's README names it (a helper the game genuinely needs, such
as a grid's geometry).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from gameroom.plugin_api import Game

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"

#: module -> what it is for (the README of each plugin maps these to the spec).
LAYOUT = {
    "content": "loading and validating the data files",
    "state": "the state's layout and types",
    "moves": "move types and parsing their fields",
    "decide": "who acts, legal moves, validating a move into events",
    "evolve": "folding events into state",
    "views": "per-seat views and redaction",
    "scoring": "scores and the outcome",
    "describe": "one sentence per event",
    "scenario": "building positions for tests",
    "schemas": "marshmallow schemas",
    "ai": "hints for the AI levels",
    "game": "the Game class wiring the modules",
}

#: Imports a plugin module may make from the server: its one public module.
SERVER_IMPORTS = {"gameroom.plugin_api"}
#: The pure core never talks to the web, Redis or the job queue.
FORBIDDEN_IMPORTS = ("flask", "werkzeug", "redis", "rq", "gevent", "gunicorn")

FIRST_PARTY = sorted(p.name for p in PLUGINS.iterdir() if (p / "__init__.py").is_file())


def _modules(plugin: str) -> set[str]:
    return {p.stem for p in (PLUGINS / plugin).glob("*.py") if p.stem != "__init__"}


def _readme(plugin: str) -> str:
    path = PLUGINS / plugin / "README.md"
    assert path.is_file(), f"{plugin} has no README.md"
    return path.read_text(encoding="utf-8")


def _module_rows(readme: str) -> dict[str, list[str]]:
    """``module -> cells after the name`` for every table row that starts with `` `name.py` ``."""
    rows = {}
    for line in readme.splitlines():
        m = re.match(r"\|\s*`(\w+)\.py`\s*\|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = [cell.strip() for cell in m.group(2).split("|")]
    return rows


def _game(plugin: str) -> Game:
    module = importlib.import_module(f"gameroom.plugins.{plugin}.game")
    classes = [
        v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Game) and v is not Game
    ]
    assert len(classes) == 1, f"{plugin}/game.py defines {len(classes)} Game classes"
    return classes[0]()


def test_the_three_first_party_games_are_checked():
    assert {"stars_are_right", "look_at_the_stars", "tiny_stellar_empires"} <= set(FIRST_PARTY)


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_every_first_party_plugin_has_every_module_of_the_layout(plugin):
    missing = set(LAYOUT) - _modules(plugin)
    assert not missing, f"{plugin} lacks {sorted(missing)}"


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_a_module_outside_the_layout_is_named_in_the_plugins_readme(plugin):
    rows = _module_rows(_readme(plugin))
    extra = _modules(plugin) - set(LAYOUT)
    unnamed = sorted(m for m in extra if m not in rows)
    assert not unnamed, f"{plugin}: {unnamed} are outside the layout and not in its README"
    stale = sorted(m for m in rows if m not in _modules(plugin))
    assert not stale, f"{plugin}'s README names modules that do not exist: {stale}"


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_the_readme_maps_every_module_to_the_rules_spec(plugin):
    readme = _readme(plugin)
    slug = _game(plugin).info.slug
    assert f"shared/rules/{slug}.md" in readme, f"{plugin}'s README does not name its rules spec"
    rows = _module_rows(readme)
    for module in sorted(_modules(plugin)):
        assert module in rows, f"{plugin}'s README has no row for {module}.py"
        responsibility, spec = rows[module][0], rows[module][-1]
        assert len(rows[module]) == 2 and responsibility, (
            f"{plugin}/{module}.py: row needs a responsibility and a spec"
        )
        assert spec, f"{plugin}/{module}.py: the spec column is empty (write '—' for none)"


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_plugin_modules_import_only_the_public_plugin_api_and_no_web_or_redis(plugin):
    for path in sorted((PLUGINS / plugin).glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top not in FORBIDDEN_IMPORTS, f"{path.name} imports {name}"
                if top == "gameroom":
                    assert name in SERVER_IMPORTS, f"{path.name} imports {name}, not gameroom.plugin_api"


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_every_module_says_what_it_is_for(plugin):
    for module in sorted(_modules(plugin)):
        tree = ast.parse((PLUGINS / plugin / f"{module}.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{plugin}/{module}.py has no module docstring"


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_moves_declares_exactly_the_move_types_the_schemas_publish(plugin):
    moves = importlib.import_module(f"gameroom.plugins.{plugin}.moves")
    published = set(_game(plugin).schemas().moves)
    assert set(moves.MOVE_TYPES) == published


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_the_game_class_lives_in_game_and_the_package_exports_it(plugin):
    package = importlib.import_module(f"gameroom.plugins.{plugin}")
    game = _game(plugin)
    assert isinstance(package.gameroom_games()[0], type(game))


#: One name per concept in every game's view; the names on the right are the ones replaced.
VIEW_SYNONYMS = {"seat": ("viewer",), "first": ("start", "start_player"), "current": ("cur", "to_move")}


@pytest.mark.parametrize("plugin", FIRST_PARTY)
def test_views_name_the_shared_concepts_alike(plugin):
    from marshmallow import fields

    view = _game(plugin).schemas().view._declared_fields
    assert "seat" in view and "num_seats" in view
    for name, replaced in VIEW_SYNONYMS.items():
        used = sorted(set(replaced) & set(view))
        assert not used, f"{plugin}'s view says {used} for {name!r}"
    if "active" in view:  # the seats that may act now, as the platform says it
        assert isinstance(view["active"], fields.List), f"{plugin}: 'active' is a list of seats"
    if "current" in view:  # the one seat whose turn it is
        assert isinstance(view["current"], fields.Integer), f"{plugin}: 'current' is one seat"
