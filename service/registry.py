"""Discovery and validation of game plugins.

Plugins are found through the entry-point group ``gameroom.games`` (exactly as
a third party's package would be), registered with pluggy, and checked
before the server starts: a misspelt hook, a game missing a required
function, or two games with one slug stop start-up with a message saying
which distribution is at fault.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from importlib.metadata import entry_points

import pluggy

from . import hookspecs
from .errors import NotFound, PluginError
from .plugin_api import PROJECT_NAME, Game

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "gameroom.games"


@dataclass(frozen=True)
class InstalledGame:
    game: Game
    distribution: str
    version: str
    plugin: str

    @property
    def slug(self) -> str:
        return self.game.info.slug


class Registry:
    """The installed games, by slug."""

    def __init__(self, plugin_manager: pluggy.PluginManager, games: dict[str, InstalledGame]):
        self.pm = plugin_manager
        self._games = games

    def __iter__(self):
        return iter(sorted(self._games.values(), key=lambda g: g.slug))

    def __len__(self):
        return len(self._games)

    def __contains__(self, slug):
        return slug in self._games

    def only(self, keep) -> Registry:
        """The games for which ``keep(installed_game)`` is true (same plugin manager)."""
        return Registry(self.pm, {slug: g for slug, g in self._games.items() if keep(g)})

    def installed(self, slug: str) -> InstalledGame:
        try:
            return self._games[slug]
        except KeyError:
            raise NotFound(f"No game '{slug}' is installed.", code="unknown-game") from None

    def get(self, slug: str) -> Game:
        return self.installed(slug).game

    def ai_policies(self, game: Game) -> dict:
        """Game-provided levels merged with those of add-on plugins.

        :func:`build_registry` has already refused a level provided twice, so
        this only merges.
        """
        return _merged_ai_policies(self.pm, game)


def _merged_ai_policies(pm: pluggy.PluginManager, game: Game) -> dict:
    """``game``'s own AI levels and every add-on plugin's, by name.

    :raises PluginError: a level name provided twice, naming both providers.
    """
    merged = dict(game.ai_policies())
    providers = dict.fromkeys(merged, f"game '{game.info.slug}' itself")
    for impl in reversed(pm.hook.gameroom_ai_policies.get_hookimpls()):
        for name, policy in (impl.function(game=game) or {}).items():
            if name in merged:
                raise PluginError(
                    f"AI level '{name}' for {game.info.slug} is provided twice: by plugin "
                    f"'{impl.plugin_name}' and by {providers[name]}"
                )
            merged[name] = policy
            providers[name] = f"plugin '{impl.plugin_name}'"
    return merged


def check_game(game: object, where: str) -> None:
    """Fail with a clear message if ``game`` does not fulfil the contract."""
    if not isinstance(game, Game):
        raise PluginError(f"{where}: gameroom_games() returned {game!r}, not a gameroom.plugin_api.Game")
    info = getattr(game, "info", None)
    if info is None:
        raise PluginError(f"{where}: {type(game).__name__} has no 'info' (a GameInfo)")
    missing = [name for name in Game.REQUIRED if not game.overrides(name)]
    if missing:
        raise PluginError(
            f"{where}: game '{info.slug}' does not implement required function(s): {', '.join(missing)}"
        )
    if not (1 <= info.min_players <= info.max_players):
        raise PluginError(f"{where}: game '{info.slug}' has an impossible player range")


def _plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    return pm


def _register(pm: pluggy.PluginManager, module, name: str, dist: str, sources: dict) -> None:
    if pm.has_plugin(name):
        other = sources.get(name, ("?",))[0]
        raise PluginError(
            f"Two game plugins are named '{name}': one from distribution {dist}, one from "
            f"distribution {other} (entry-point names in group '{ENTRY_POINT_GROUP}' must be unique)"
        )
    try:
        pm.register(module, name=name)
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"Plugin '{name}' (distribution {dist}) has an invalid hook: {exc}") from exc


def build_registry(extra_plugins=(), load_entry_points: bool = True) -> Registry:
    """Discover, register and validate every game plugin.

    ``extra_plugins`` are ``(name, module)`` pairs registered in addition to
    the entry points (tests use it for deliberately broken plugins).
    """
    pm = _plugin_manager()
    sources: dict[str, tuple[str, str]] = {}
    if load_entry_points:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                module = ep.load()
            except Exception as exc:  # pragma: no cover - depends on a broken install
                raise PluginError(f"Cannot load game plugin '{ep.name}' ({ep.value}): {exc}") from exc
            dist = ep.dist.name if ep.dist else "?"
            version = ep.dist.version if ep.dist else "?"
            if pm.is_registered(module):
                continue
            _register(pm, module, ep.name, dist, sources)
            sources[ep.name] = (dist, version)
    for name, module in extra_plugins:
        _register(pm, module, name, "(local)", sources)
        sources[name] = ("(local)", "-")
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        name = pm.get_name(exc.plugin) or repr(exc.plugin)
        dist = sources.get(name, ("?",))[0]
        raise PluginError(
            f"Plugin '{name}' (distribution {dist}) implements an unknown hook: {exc} "
            f"(known hooks: {', '.join(sorted(pm.hook.__dict__))})"
        ) from exc

    games: dict[str, InstalledGame] = {}
    # Through pluggy's own hook implementations, not an attribute look-up: an
    # implementation may carry another name (``@hookimpl(specname="gameroom_games")``).
    for impl in reversed(pm.hook.gameroom_games.get_hookimpls()):
        plugin_name = impl.plugin_name
        dist, version = sources.get(plugin_name, ("?", "?"))
        where = f"plugin '{plugin_name}' (distribution {dist})"
        for game in impl.function() or []:
            check_game(game, where)
            slug = game.info.slug
            if slug in games:
                other = games[slug]
                raise PluginError(
                    f"Duplicate game slug '{slug}': provided by {where} and by plugin "
                    f"'{other.plugin}' (distribution {other.distribution})"
                )
            games[slug] = InstalledGame(game, dist, version, plugin_name)
            log.debug("registered game %s from %s", slug, where)
    for installed in games.values():
        _merged_ai_policies(pm, installed.game)  # a level provided twice stops start-up here
        _give_content(pm, installed.game)
    return Registry(pm, games)


def _give_content(pm: pluggy.PluginManager, game) -> None:
    """Merge what every plugin's ``gameroom_content`` registers for ``game`` and hand it over."""
    merged: dict[str, dict] = {}
    for found in pm.hook.gameroom_content(game=game):
        for kind, files in (found or {}).items():
            taken = merged.setdefault(kind, {})
            for name in files:
                if name in taken:
                    raise PluginError(f"Two plugins register {kind} '{name}' for game '{game.info.slug}'")
            taken.update(files)
    if merged:
        try:
            game.use_content(merged)
        except ValueError as exc:
            raise PluginError(f"Content for game '{game.info.slug}' refused: {exc}") from exc
