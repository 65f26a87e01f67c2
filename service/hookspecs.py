"""Hook specifications: what a gameroom plugin may implement.

Every first-party game and every third-party package is a pluggy plugin: a
module registered under the entry-point group ``gameroom.games`` whose
functions are marked with :data:`gameroom.plugin_api.hookimpl`. A hook
implementation whose name is not specified here is an error at start-up
(pluggy's ``check_pending``), so a misspelt hook never silently does nothing.
"""

from __future__ import annotations

import pluggy

from .plugin_api import PROJECT_NAME

hookspec = pluggy.HookspecMarker(PROJECT_NAME)

# ---------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------


@hookspec
def gameroom_games():
    """Return the games this plugin provides.

    :return: a list of :class:`gameroom.plugin_api.Game` instances. Each slug
        must be unique over all installed plugins; the registry refuses to
        start on a duplicate.

    A game's board in the web client is part of the game, not a hook: see
    :meth:`gameroom.plugin_api.Game.renderer` (without one, the generic
    renderer draws the game from its view and legal moves).

    How undo treats a game's steps is part of the game too: randomness and
    :meth:`~gameroom.plugin_api.Game.reveals` make barriers;
    :meth:`~gameroom.plugin_api.Game.independent_steps` lets a seat undo its own
    steps in a simultaneous phase without the others' consent (selective undo);
    :meth:`~gameroom.plugin_api.Game.confirms` ends a seat's right to undo.

    Implemented by every game package. Collecting hook: all results are used.
    """


# ---------------------------------------------------------------------------
# AI
# ---------------------------------------------------------------------------


@hookspec
def gameroom_ai_policies(game):
    """Return extra AI levels for ``game``.

    :param game: a :class:`gameroom.plugin_api.Game`.
    :return: a dict ``level name -> policy`` where ``policy(game, view, seat,
        legal, rng, *, num_seats, **budget) -> move`` picks one of the ``legal`` moves from ``seat``'s
        view only; or ``None``.

    A policy may declare a ``time_budget`` attribute (seconds one decision
    may take; default 60), which sizes its job timeout
    (:func:`gameroom.ai.levels.time_budget`). The built-in levels need no hook:
    ``random`` plays every game, ``greedy`` and ``mcts`` every game that
    implements ``Game.sample_state`` (required for hidden-information games
    that want them); a game tunes ``mcts`` with the ``mcts_*`` attributes and
    ``rollout_policy`` of :class:`gameroom.plugin_api.Game`.

    Implemented by add-on packages that bring stronger or stranger bots.
    Collecting hook: the dicts of all plugins are merged; a level name that
    two plugins provide is an error at start-up.
    """


# ---------------------------------------------------------------------------
# Content
# ---------------------------------------------------------------------------


@hookspec
def gameroom_content(game):
    """Return named data files (card sets, boards, scenarios) that ``game``'s options may name.

    :param game: a :class:`gameroom.plugin_api.Game`.
    :return: a dict ``kind -> {name: file}`` or ``None``. ``kind`` is the
        game's word for the content (Tiny Stellar Empires reads ``card_set``);
        ``name`` is what a client writes in the option (letters, digits, ``-``,
        ``_``); ``file`` is an ``importlib.resources`` Traversable (package
        data: ``importlib.resources.files("my_cards") / "official.json"``)
        or a ``pathlib.Path``.

    Clients only ever *name* content: no option carries a path, so no client
    text reaches the filesystem. The registry hands the merged dict to
    :meth:`gameroom.plugin_api.Game.use_content` at start-up.

    Implemented by content packs. Collecting hook: the dicts of all plugins
    are merged; a name that two plugins register for one kind is an error at
    start-up.
    """


# ---------------------------------------------------------------------------
# Observers
# ---------------------------------------------------------------------------


@hookspec
def gameroom_entry_appended(match_id, entry):
    """Called after an entry was appended to a match's stream.

    :param match_id: the match id (str).
    :param entry: the stored entry (dict with ``version``, ``seat``,
        ``events`` ...), unredacted: observers run inside the server.

    Implemented by observers (metrics, achievements, archiving). Return
    values are ignored; an exception is logged and does not undo the append.
    """
