"""The surface for game authors.

A game plugin imports this module and nothing else from gameroom::

    from gameroom.plugin_api import Game, GameInfo, IllegalMove, hookimpl

    class Nim(Game):
        info = GameInfo(slug="nim", title="Nim", min_players=2, max_players=2,
                        rules_version=1, hidden_information=False, max_steps=100)
        def setup(self, num_seats, options, rng): ...
        def evolve(self, state, event): ...
        ...

    @hookimpl
    def gameroom_games():
        return [Nim()]

and registers the module under the entry-point group ``gameroom.games``.

A game is a *decider*: a handful of pure functions over JSON-compatible data
(dicts, lists, strings, numbers, booleans, ``None``). ``decide`` turns a move
into events, ``evolve`` folds events into state. Replay only ever calls
``evolve``, so it never re-validates and never draws randomness.

Seats are numbered ``0 .. num_seats - 1``. ``None`` as a seat means a
spectator. Every event is a dict with a ``"type"`` key.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pluggy

from .schemas.patterns import FullMatch
from .schemas.strict import StrictBoolean, StrictInteger, StrictNumber
from .tagged import tag_schemas, tagged_variants

__all__ = [
    "PROJECT_NAME",
    "hookimpl",
    "Game",
    "GameInfo",
    "GameSchemas",
    "tagged_variants",
    "tag_schemas",
    "StrictBoolean",
    "StrictInteger",
    "StrictNumber",
    "FullMatch",
    "IllegalMove",
    "Rng",
    "Seat",
    "State",
    "Event",
    "Move",
]

PROJECT_NAME = "gameroom"

#: Decorator marking a function of a plugin module as a hook implementation.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

Seat = int | None
State = Any
Event = dict
Move = dict


class IllegalMove(Exception):
    """Raised by :meth:`Game.decide` when a move breaks a rule.

    ``code`` is a short, stable, kebab-case rule code (``"no-cancel"``,
    ``"pattern-not-matched"``); ``message`` is one human sentence. Both reach
    the client in the problem+json error, so neither may mention hidden
    information the caller cannot see.
    """

    def __init__(self, code: str, message: str = ""):
        super().__init__(message or code)
        self.code = code
        self.message = message or code


#: Options schema instances by class (marshmallow schemas are reusable across loads and threads).
_OPTIONS_SCHEMAS: dict = {}


@dataclass(frozen=True)
class GameInfo:
    """Static metadata of a game.

    ``rules_version`` is an integer bumped whenever a rules change would make
    old event logs fold differently; it is recorded in every match's first
    entry (see :meth:`Game.upcast`). ``max_steps`` is an upper bound on the
    number of accepted moves in any match under the default options, or
    ``None`` when the default options put no bound on a match (a game whose
    rules let players play on for ever); :meth:`Game.max_steps_for` gives the
    bound for given options. The conformance kit fails a playout that runs
    longer.
    """

    slug: str
    title: str
    min_players: int
    max_players: int
    rules_version: int = 1
    hidden_information: bool = False
    max_steps: int | None = 10_000
    description: str = ""
    simultaneous: bool = False

    def as_dict(self) -> dict:
        return {
            "slug": self.slug,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "rules_version": self.rules_version,
            "hidden_information": self.hidden_information,
            "max_steps": self.max_steps,
            "description": self.description,
            "simultaneous": self.simultaneous,
        }


@dataclass(frozen=True)
class GameSchemas:
    """marshmallow schemas a game publishes for its API surface.

    ``options`` loads (and fills defaults of) the match options; ``move``,
    ``view`` and ``event`` document and check the JSON a client exchanges.
    Declare the options' numbers and flags with :class:`StrictInteger`,
    :class:`StrictNumber` and :class:`StrictBoolean`: marshmallow's own fields
    would read ``"3"``, ``2.9`` or ``"yes"`` as ``3``, ``2`` or ``True``, which
    the published ``type: integer`` / ``boolean`` does not allow. (Moves reach
    ``decide`` as the client sent them: check types there, and remember that
    ``True`` is an ``int`` in Python.)
    ``move`` and ``event`` are flat schemas with a ``type`` field (any
    marshmallow ``Schema`` class works).

    ``moves`` and ``events`` (optional, recommended) map each ``type`` value
    to a schema of its own with the fields that type requires (build them
    with :func:`tagged_variants` or :func:`tag_schemas`). The OpenAPI
    document then publishes ``<Game>Move`` and ``<Game>Event`` as a ``oneOf``
    of them discriminated on ``type``, so generated clients get one class per
    move; and a submitted move carrying a key its type does not declare is
    refused (422 ``unknown-move-field``). Without ``moves``, a move is held
    to the keys of ``move``. An event variant must accept the event whole
    (as everyone sees it once the match is over) and as ``redact`` leaves it
    for each seat: the conformance kit checks both.
    """

    options: type
    move: type
    view: type
    event: type
    moves: Any = None
    events: Any = None


class Rng:
    """Deterministic randomness handed to ``setup`` and ``decide``.

    The platform seeds it from the match seed and the version being decided,
    so a retried command draws the same outcome. Games must write every drawn
    outcome into their events (replay never draws). ``used`` tells the
    platform that this step drew randomness, which makes it an undo barrier.
    """

    def __init__(self, seed: int | str | bytes | Callable[[], int | str | bytes]):
        """``seed``, or a function returning it: called on the first draw (most steps draw nothing)."""
        self._seed = seed
        self._random: random.Random | None = None
        self.used = False

    def _touch(self) -> random.Random:
        self.used = True
        if self._random is None:
            self._random = random.Random(self._seed() if callable(self._seed) else self._seed)
        return self._random

    def randrange(self, start: int, stop: int | None = None) -> int:
        return self._touch().randrange(start, stop) if stop is not None else self._touch().randrange(start)

    def randint(self, a: int, b: int) -> int:
        return self._touch().randint(a, b)

    def random(self) -> float:
        return self._touch().random()

    def choice(self, seq: Sequence):
        return self._touch().choice(seq)

    def shuffled(self, seq: Sequence) -> list:
        """A new list with ``seq``'s items in random order."""
        items = list(seq)
        self._touch().shuffle(items)
        return items

    def sample(self, seq: Sequence, k: int) -> list:
        return self._touch().sample(list(seq), k)


class Game:
    """Base class of a game. Override every method marked *required*.

    All methods are pure: they read their arguments, never mutate them, and
    use no clock, I/O or global randomness (only the ``rng`` they are given).
    State is opaque to the platform but must be JSON-compatible, so that
    snapshots, the conformance kit and AI search can copy and store it.

    AI: every game gets the ``random`` level; ``greedy`` and ``mcts`` need
    :meth:`sample_state` (and play better with :meth:`evaluate`). A game may
    also set optional class attributes that tune the ``mcts`` search
    (``mcts_iterations``, ``mcts_time_limit``, ``rollout_policy`` ...): they
    are listed in the docstring of :mod:`gameroom.ai.mcts`. Extra levels come
    from :meth:`ai_policies`.
    """

    #: Required: static metadata.
    info: GameInfo

    #: Options the conformance kit's random playouts use (default: the game's
    #: defaults). A game whose default matches may last for ever names options
    #: that bound them here, and tests its defaults in its own tests.
    playout_options: dict = {}

    #: Option sets that change what is hidden (a private discard pile ...): the
    #: conformance kit's leak check plays each of them too (over ``playout_options``).
    hidden_information_options: tuple = ()

    #: Names of methods a subclass must override (checked at start-up).
    REQUIRED = (
        "setup",
        "evolve",
        "active_seats",
        "legal_moves",
        "decide",
        "view",
        "redact",
        "outcome",
        "schemas",
    )

    @classmethod
    def overrides(cls, name: str) -> bool:
        """Whether this game class replaces :class:`Game`'s own ``name``.

        Args:
            name: a method or attribute that :class:`Game` defines (``"sample_state"``,
                ``"sealed_steps"`` ...).

        Returns:
            ``True`` if a class between this one and :class:`Game` defines ``name``
            with another value, ``False`` if the game inherits Game's (an
            assignment of Game's own function, ``sample_state = Game.sample_state``,
            counts as not overriding). The platform uses it to tell what a game
            implements: the required methods, the AI levels, drafts.

        Raises:
            AttributeError: :class:`Game` has no ``name`` (a misspelt name never
                reads as "not overridden").
        """
        if name not in Game.__dict__:
            raise AttributeError(f"Game has no attribute {name!r} to override")
        default = Game.__dict__[name]
        for klass in cls.__mro__:
            if name in vars(klass):
                return vars(klass)[name] is not default
        return False  # pragma: no cover (Game itself is in every game's __mro__)

    # -- rules (required) -------------------------------------------------

    def setup(self, num_seats: int, options: dict, rng: Rng) -> list[Event]:
        """Required. The opening facts: shuffled decks, dealt hands, a random sky.

        ``options`` has already been loaded (defaults filled) by the game's
        options schema. Folding these events from ``None`` gives the opening
        state.
        """
        raise NotImplementedError

    def evolve(self, state: State | None, event: Event) -> State:
        """Required. Fold one event into state; ``state`` is ``None`` before the first."""
        raise NotImplementedError

    def active_seats(self, state: State) -> list[int]:
        """Required. Seats that may act now (several in simultaneous phases); ``[]`` when over."""
        raise NotImplementedError

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Required. Every atomic move ``seat`` may submit now, each a JSON object.

        Each returned move must be accepted unchanged by :meth:`decide`.
        Return ``[]`` for a seat that is not active.
        """
        raise NotImplementedError

    def decide(self, state: State, seat: int, move: Move, rng: Rng) -> list[Event]:
        """Required. Validate ``move`` by ``seat`` and return the resulting events.

        Raise :class:`IllegalMove` with a rule code for anything
        :meth:`legal_moves` would not list. Never mutate ``state``.
        """
        raise NotImplementedError

    def view(self, state: State, seat: Seat) -> dict:
        """Required. What ``seat`` (``None`` = spectator) may see of ``state``; never more."""
        raise NotImplementedError

    def redact(self, event: Event, seat: Seat) -> Event:
        """Required. ``event`` as ``seat`` may see it in history and live streams."""
        raise NotImplementedError

    def outcome(self, state: State) -> dict | None:
        """Required. ``None`` while the match runs; then ``{"scores": [...], "winners": [...]}``.

        ``scores`` has one number per seat; ``winners`` lists winning seats
        (several on a shared win). A game may add ``"breakdown"``: one dict of
        per-category points per seat.
        """
        raise NotImplementedError

    def forfeit_outcome(self, state: State, losers: list[int], num_seats: int) -> dict | None:
        """Optional. The outcome when the seats ``losers`` resign or forfeit (their time ran out).

        ``None`` (the default): every other seat wins, with score 1 against 0.
        """
        return None

    def schemas(self) -> GameSchemas:
        """Required. The game's marshmallow schemas (see :class:`GameSchemas`)."""
        raise NotImplementedError

    # -- optional, with platform defaults ---------------------------------

    def load_options(self, options: dict | None) -> dict:
        """Validate ``options`` with the options schema and fill defaults.

        Raises ``marshmallow.ValidationError`` on bad options.
        """
        cls = self.schemas().options
        schema = _OPTIONS_SCHEMAS.get(cls)
        if schema is None:  # one instance per schema class: building one costs more than a load
            schema = _OPTIONS_SCHEMAS[cls] = cls()
        return schema.load(options or {})

    def max_steps_for(self, num_seats: int, options: dict) -> int | None:
        """An upper bound on the accepted moves of a match with these loaded options,
        or ``None`` if they put no bound on it. Default: ``info.max_steps``.

        Override when options change how long a match may last (a turn limit).
        """
        return self.info.max_steps

    def check_seats(self, num_seats: int, options: dict) -> None:
        """Raise :class:`IllegalMove` if a match of ``num_seats`` may not be played
        with these loaded options; called before ``setup``.

        Default: ``info.min_players <= num_seats <= info.max_players``. Override
        when an option changes the allowed counts (a solo variant).
        """
        info = self.info
        if not info.min_players <= num_seats <= info.max_players:
            raise IllegalMove(
                "bad-seat-count",
                f"{info.title} takes {info.min_players}–{info.max_players} seats, not {num_seats}.",
            )

    def reveals(self, event: Event) -> bool:
        """Whether ``event`` reveals hidden information (an undo barrier).

        Default: the event carries ``"reveal": true``. Randomness drawn
        through ``rng`` is detected by the platform on its own.
        """
        return bool(event.get("reveal"))

    def independent_steps(self, state: State, seat: int) -> bool:
        """Optional. Whether ``seat``'s steps in ``state`` are independent of the other seats'.

        Return ``True`` only where ``seat``'s steps read and change nothing but
        ``seat``'s own part of the state (its sheet, its pending choices) and the
        other seats' steps never read that part: a step of ``seat`` and a step of
        another seat, both made while this holds, give the same events and the same
        state in either order. Typical: the simultaneous phase of a flip-and-write,
        each player drawing on their own sheet.

        The platform then offers *selective undo*: a seat undoes its own steps at
        once, without the other seats' consent, although they acted in between.
        Only the caller's steps are cancelled; the other seats' interleaved steps
        stay in effect (the state is the one at the caller's first undone step with
        their events folded in again). Undo still never crosses a random draw or a
        reveal, nor cancels a step that :meth:`confirms`. Checked on the state a
        step was decided in. Default: ``False`` (undo across other seats' steps
        needs their consent and restores the whole earlier state).
        """
        return False

    def sealed_steps(self, state: State, seat: int) -> bool:
        """Optional. Whether ``seat``'s steps in ``state`` are sealed until it confirms.

        Return ``True`` where the rules keep a seat's unconfirmed steps private
        (Look at the Stars' H2) and where they are :meth:`independent_steps`. The
        platform then keeps such a step (one that draws no randomness, reveals
        nothing and does not :meth:`confirm <confirms>`) out of the log, in the
        seat's private draft: only that seat sees it (its view, legal moves and
        undo include it); the other seats and spectators learn nothing of it,
        not even how many steps there were, until the seat's next step that is
        not sealed (its confirm), which appends the draft and itself as one
        entry. Default: ``False`` (every step is an entry of its own).
        """
        return False

    def confirms(self, event: Event) -> bool:
        """Optional. Whether ``event`` confirms its seat's steps so far ("until you confirm").

        A step with such an event is never cancelled by an undo: its seat can no
        longer undo it nor the steps before it, and no other seat's undo removes it
        (the other seats may still undo their own unconfirmed steps selectively,
        see :meth:`independent_steps`). Default: the event carries ``"confirms": true``.
        """
        return bool(event.get("confirms"))

    def ends_turn(self, event: Event) -> bool:
        """Optional. Whether ``event`` ends the turn of the seat whose step produced it.

        Clocks count turns (a per-move limit, a time bank's increment, an AI that plays
        a timed-out seat's turn): a seat's turn ends when it stops being active, or at
        its own step with an event for which this returns ``True``, even if the seat is
        active again right after. Say so for such events: the last seat to confirm a
        simultaneous turn, a solo game, a "take another turn" rule; that seat's next
        turn then starts at that step. A step with such an event is never kept sealed
        (:meth:`sealed_steps`). Default: :meth:`confirms` (confirming ends the turn).
        """
        return self.confirms(event)

    def fork_events(self, state: State, rng: Rng) -> list[Event]:
        """Optional. Events that deal anew what *no* seat can see in ``state``: a draw
        pile's order, cards set aside face down that nobody has looked at.

        Called when a finished match is forked at ``state`` ("what if"). The fork's
        history up to there is public (the original is over, its export shows every
        event and its seed), so without these events anyone could read the fork's
        coming draws from the original's export. The platform appends them as one
        entry of kind ``deal`` right after the copied history, with ``rng`` derived
        from the fork's own secret seed; an importer re-derives them from the export.

        They are ordinary events: folded by :meth:`evolve`, redacted by :meth:`redact`
        (what they deal stays hidden from every seat and from spectators while the fork
        runs) and told by :meth:`describe`. They must leave every seat's :meth:`view`
        and legal moves as they were: what a seat holds or has seen (its hand, the
        cards it put on the bottom of the deck, a pile it looked through) is the
        position the fork asks "what if" about, and stays. The conformance kit checks
        both. Default: ``[]`` (nothing is hidden from every seat: Nim, tic-tac-toe);
        return ``[]`` also when there is nothing left to deal (fewer than two unseen
        cards).
        """
        return []

    def describe(self, event: Event, seat: Seat, names: Sequence[str]) -> str:
        """One short human sentence for ``event`` as ``seat`` sees it.

        ``event`` is already redacted for ``seat``; ``names`` are the seat
        names. The default names the event type and its actor.
        """
        actor = event.get("seat")
        who = names[actor] if isinstance(actor, int) and 0 <= actor < len(names) else "The game"
        return f"{who}: {event.get('type', 'event').replace('_', ' ')}"

    def upcast(self, event: Event, rules_version: int) -> Event:
        """Translate an event written under an older ``rules_version`` to the current one.

        Called on replay for matches started under an older version. The
        default returns the event unchanged.
        """
        return event

    def renderer(self) -> str | list | None:
        """Optional. The static files that draw this game in the web client, or ``None``.

        Either a folder (usually ``ui/`` next to the game's module, shipped as
        package data) or a list of files (a renderer that also reads the
        game's content file, say). Each file is served under its own name;
        one must be ``renderer.js``, an ES module exporting::

            export function render(root, ctx) { ... }

        ``root`` is an empty element to draw into; ``ctx`` holds ``view`` (the
        seat's view, exactly as ``GET .../state`` returns it), ``seat`` (``null``
        for a spectator), ``legalMoves`` (``[]`` when it cannot act),
        ``names`` (seat names), ``match`` (its id), ``history`` (the entries the
        seat may see, as ``GET .../events`` returns them), ``outcome``,
        ``version``, ``status``, ``activeSeats``, ``readOnly`` (spectators and
        the replay viewer) and ``submit(move)``, which POSTs one of
        ``legalMoves`` and returns a promise. A renderer never re-implements rules: what it offers comes
        from ``legalMoves``. The web client always shows the generic list of
        legal moves under the board as well, so a renderer may draw only
        part of what can be done. The module may also export
        ``moveLabel(move, {names, view, seat})``, the words that list shows for
        a move (say "mark row 1, column 1" rather than "mark · cell 0"): the
        board, the list and the history then number things the same way,
        counting from 1 as people do (the moves themselves keep their indices).

        The server lists the files once at start-up and serves exactly those
        under ``/ui/games/<slug>/<file>`` (``.js``, ``.css``, ``.svg``,
        ``.png`` and ``.json``; no subfolders), so the module reaches its
        siblings with ``new URL("./x.json", import.meta.url)`` (a stylesheet
        too: the module adds a ``<link>`` to it). Without a renderer
        the game is drawn by the generic one: its view as a tree, its legal
        moves as labelled buttons.
        """
        return None

    # -- AI hooks (optional) ----------------------------------------------

    def evaluate(self, state: State, seat: int) -> float:
        """Heuristic value of ``state`` for ``seat`` (higher is better), used by
        ``greedy`` and as the MCTS leaf value. Default: 1.0 once the match is
        over and ``seat`` is among the winners, else 0.0 (also while the match
        runs), so a game that wants a useful greedy level overrides it."""
        result = self.outcome(state)
        if result is None:
            return 0.0
        return 1.0 if seat in result["winners"] else 0.0

    def sample_state(self, view: dict, seat: int, rng: Rng) -> State:
        """A full state consistent with ``seat``'s ``view``: hidden parts
        (other hands, deck order) drawn at random from what is unseen.

        Without it a game gets only the ``random`` level: the ``greedy`` and
        ``mcts`` levels need it, so it is required for a game with hidden
        information that wants them; a perfect-information game whose view
        is its state may return a copy of ``view``.
        """
        raise NotImplementedError

    def ai_policies(self) -> dict[str, Callable]:
        """Extra AI levels: name -> ``policy(game, view, seat, legal, rng, *, num_seats, **budget) -> move``.

        ``view`` is the seat's view, ``legal`` the seat's legal moves (what the
        seat could fetch from the API itself); the policy returns one of them.
        A policy may declare a ``time_budget`` attribute (seconds one decision
        may take), which sizes its job timeout; see
        :func:`gameroom.ai.levels.time_budget`.
        """
        return {}

    def use_content(self, content: dict[str, dict[str, Any]]) -> None:
        """Receive the named data files plugins registered for this game.

        ``content`` is ``kind -> {name: file}`` merged from every plugin's
        ``gameroom_content`` hook (``file``: an ``importlib.resources``
        Traversable or a ``pathlib.Path``), given once when the registry is
        built. An option that selects content must take one of these *names*
        (or the game's own shipped files), never a path from the client, and
        read the file with a size bound. Default: ignore it.
        """


def clone(data: Any) -> Any:
    """A deep copy of JSON-compatible data (faster than ``copy.deepcopy``)."""
    if isinstance(data, dict):
        return {k: clone(v) for k, v in data.items()}
    if isinstance(data, list):
        return [clone(v) for v in data]
    return data


__all__.append("clone")
