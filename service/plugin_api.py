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

Over 400 lines because it is the whole contract a game author reads, in one place: most of
its length is the documentation of each :class:`Game` method (parameters, returns, what may be
mutated, what must be deterministic).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

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
    """Base class of a game: the whole contract between a game and the platform.

    Subclass it, set :attr:`info`, and override every method marked *Required*;
    the others have defaults that suit most games. The platform calls nothing
    of a game but these methods and reads nothing but these attributes, so the
    docstrings below are the complete specification, written as pluggy's
    hookspecs are: each method's parameters (``:param:``), its return value
    (``:return:``), what it may raise (``:raises:``), and where a method departs
    from the rules below, what it may mutate and what must be deterministic.

    Rules every method follows unless its docstring says otherwise:

    - *Pure*: a method reads its arguments and never mutates them (``state``,
      ``event``, ``move``, ``options``, ``view``, ``legal``, ``names``); it
      returns new data, sharing unchanged parts with its arguments if it likes.
      Replay, undo, snapshots and AI search rely on an old state staying as it
      was.
    - *Deterministic*: the same arguments give the same result; a method uses no
      clock, no I/O and no global randomness, only the ``rng`` it is given
      (``setup``, ``decide``, ``fork_events``, ``sample_state`` and
      ``rollout_policy`` have one). Every drawn outcome goes into the events:
      replay only folds events with :meth:`evolve`, so it never re-validates and
      never draws.
    - *JSON data*: states, events, moves, views and options are JSON-compatible
      (dicts with string keys, lists, strings, numbers, booleans, ``None``), so
      the platform can store, copy (:func:`clone`) and compare them.
    - *Hostile input*: a ``move`` is what a client sent, checked by no schema
      but its ``type``'s fields being declared: :meth:`decide` checks every
      value's type and range itself.

    Seats are numbered ``0 .. num_seats - 1``; ``None`` as a seat is a
    spectator. Every event is a dict with a ``"type"`` key.

    AI: every game gets the ``random`` level; ``greedy`` and ``mcts`` need
    :meth:`sample_state` (and play better with :meth:`evaluate`). The ``mcts_*``
    attributes and :meth:`rollout_policy` tune the ``mcts`` search; extra levels
    come from :meth:`ai_policies`.
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

    # -- settings of the mcts AI level (optional class attributes) ----------
    # Read by gameroom.ai.mcts; the arguments of one search (the CLI's
    # ``--mcts``, a tournament's settings) take precedence over them.

    #: mcts: the iteration cap of one decision.
    mcts_iterations: int = 5000
    #: mcts: the time limit of one decision in seconds (``0`` = none, then the
    #: iteration cap alone stops it). The default keeps one decision, with
    #: sampling and set-up, under one second.
    mcts_time_limit: float = 0.75
    #: mcts: rollout steps (by :meth:`rollout_policy`) before a leaf is valued
    #: with :meth:`evaluate`. ``None``: 0 when the game overrides ``evaluate``
    #: (its heuristic values the leaf directly), else 200 (play on to the end,
    #: as plain MCTS does; :data:`gameroom.ai.mcts.FULL_ROLLOUT`).
    mcts_rollout: int | None = None
    #: mcts: the exploration constant of the UCB selection (over values
    #: normalised to [0, 1], so any evaluation scale works with one constant).
    mcts_exploration: float = 0.7
    #: mcts: weight in [0, 1] of the implicit minimax value in selection.
    #: ``None``: 0.5 when the game overrides ``evaluate``
    #: (:data:`gameroom.ai.mcts.MINIMAX`), else 0.
    mcts_minimax: float | None = None
    #: mcts: ``"tree"`` searches the other seats' moves as tree nodes;
    #: ``"policy"`` lets them play by :meth:`rollout_policy`, so the searching
    #: seat's tree holds its own decisions only (right for simultaneous and
    #: non-interactive play, where an opponent node would "see" the searcher's
    #: pending move). ``None``: ``"policy"`` for ``info.simultaneous`` games,
    #: else ``"tree"``.
    mcts_opponents: Literal["tree", "policy"] | None = None
    #: mcts: the move played: the root's most visited child (``"visits"``) or
    #: its best valued one (``"value"``).
    mcts_final: Literal["visits", "value"] = "visits"

    @classmethod
    def overrides(cls, name: str) -> bool:
        """Whether this game class replaces :class:`Game`'s own ``name``.

        The platform uses it to tell what a game implements: the required
        methods, the AI levels (:meth:`sample_state`), drafts (:meth:`sealed_steps`).

        :param name: a method or attribute that :class:`Game` defines
            (``"sample_state"``, ``"mcts_iterations"`` ...).
        :return: ``True`` if a class between this one and :class:`Game` defines
            ``name`` with another value; ``False`` if the game inherits Game's
            (assigning Game's own function back, ``sample_state =
            Game.sample_state``, is not an override).
        :raises AttributeError: :class:`Game` has no ``name`` (a misspelt name
            never reads as "not overridden").
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

        Folding the returned events with :meth:`evolve` from ``None`` gives the
        opening state. Deterministic given ``rng``'s draws.

        :param num_seats: the number of seats, already accepted by :meth:`check_seats`.
        :param options: the match options, loaded (defaults filled) by :meth:`load_options`.
        :param rng: the only source of randomness; write every drawn outcome into the events.
        :return: the opening events, in order.
        """
        raise NotImplementedError

    def evolve(self, state: State | None, event: Event) -> State:
        """Required. Fold one event into state.

        Called on replay for every event ever accepted, so it never validates
        and never draws: what ``decide`` decided is a fact. It must not mutate
        ``state`` (return a new one; earlier states are kept by undo and search).

        :param state: the state before ``event``; ``None`` before the first event of :meth:`setup`.
        :param event: the event to apply (upcast to the current rules version).
        :return: the state after ``event``.
        """
        raise NotImplementedError

    def active_seats(self, state: State) -> list[int]:
        """Required. The seats that may act now.

        :param state: the current state.
        :return: the seats that may submit a move (several in a simultaneous
            phase); ``[]`` once the match is over.
        """
        raise NotImplementedError

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Required. Every atomic move ``seat`` may submit now.

        :param state: the current state.
        :param seat: the seat asking.
        :return: the moves, each a JSON object with a ``"type"``, each accepted
            unchanged by :meth:`decide`, in a deterministic order (the AI levels
            draw by index); ``[]`` for a seat that is not active.
        """
        raise NotImplementedError

    def decide(self, state: State, seat: int, move: Move, rng: Rng) -> list[Event]:
        """Required. Validate ``move`` by ``seat`` and return the resulting events.

        Deterministic given ``rng``'s draws (a retried command draws the same);
        ``state`` and ``move`` are not mutated.

        :param state: the current state.
        :param seat: an active seat (the platform checks that before).
        :param move: the move as the client sent it (hostile: check every value's
            type and range, and remember that ``True`` is an ``int``).
        :param rng: the only source of randomness; write every drawn outcome into the events.
        :return: the events of this step, in order.
        :raises IllegalMove: with a rule code, for anything :meth:`legal_moves` would not list.
        """
        raise NotImplementedError

    def view(self, state: State, seat: Seat) -> dict:
        """Required. What ``seat`` may see of ``state``; never more.

        :param state: the current state.
        :param seat: the seat looking, or ``None`` for a spectator.
        :return: the seat's view, valid against the ``view`` schema; it must not
            depend on anything ``seat`` cannot see (the conformance kit checks).
        """
        raise NotImplementedError

    def redact(self, event: Event, seat: Seat) -> Event:
        """Required. ``event`` as ``seat`` may see it in history and live streams.

        :param event: an event of the log, whole.
        :param seat: the seat looking, or ``None`` for a spectator.
        :return: the event without what ``seat`` may not see (``event`` itself
            when it hides nothing); it keeps its ``"type"``.
        """
        raise NotImplementedError

    def outcome(self, state: State) -> dict | None:
        """Required. The result of the match, once it is over.

        :param state: the current state.
        :return: ``None`` while the match runs; then ``{"scores": [...],
            "winners": [...]}``: ``scores`` has one number per seat, ``winners``
            lists the winning seats (several on a shared win, none on a shared
            loss). A game may add ``"breakdown"``: one dict of per-category points per seat.
        """
        raise NotImplementedError

    def schemas(self) -> GameSchemas:
        """Required. The game's marshmallow schemas.

        Called at start-up and whenever options are loaded: return the same
        classes every time.

        :return: the schemas (see :class:`GameSchemas`).
        """
        raise NotImplementedError

    # -- optional, with platform defaults ---------------------------------

    def forfeit_outcome(self, state: State, losers: list[int], num_seats: int) -> dict | None:
        """Optional. The outcome when seats resign or forfeit (their time ran out).

        :param state: the state when they left.
        :param losers: the seats that resigned or forfeited.
        :param num_seats: the number of seats of the match.
        :return: an outcome as :meth:`outcome` returns it, or ``None`` (the
            default) for the platform's: every other seat wins, with score 1 against 0.
        """
        return None

    def load_options(self, options: dict | None) -> dict:
        """Validate ``options`` with the options schema and fill defaults.

        Rarely overridden: the options schema says it all.

        :param options: the options a client sent (hostile), or ``None`` for the defaults.
        :return: the loaded options, a new dict.
        :raises marshmallow.ValidationError: on bad options.
        """
        cls = self.schemas().options
        schema = _OPTIONS_SCHEMAS.get(cls)
        if schema is None:  # one instance per schema class: building one costs more than a load
            schema = _OPTIONS_SCHEMAS[cls] = cls()
        return schema.load(options or {})

    def max_steps_for(self, num_seats: int, options: dict) -> int | None:
        """Optional. An upper bound on the accepted moves of a match.

        Override when options change how long a match may last (a turn limit).

        :param num_seats: the number of seats.
        :param options: the loaded options.
        :return: the bound, or ``None`` if these options put none on a match.
            Default: ``info.max_steps``.
        """
        return self.info.max_steps

    def check_seats(self, num_seats: int, options: dict) -> None:
        """Optional. Refuse a seat count these options cannot be played with; called before :meth:`setup`.

        Override when an option changes the allowed counts (a solo variant).

        :param num_seats: the number of seats asked for (any integer).
        :param options: the loaded options.
        :return: ``None`` when the count is fine.
        :raises IllegalMove: when it is not. Default: unless
            ``info.min_players <= num_seats <= info.max_players``.
        """
        info = self.info
        if not info.min_players <= num_seats <= info.max_players:
            raise IllegalMove(
                "bad-seat-count",
                f"{info.title} takes {info.min_players}–{info.max_players} seats, not {num_seats}.",
            )

    def reveals(self, event: Event) -> bool:
        """Optional. Whether ``event`` reveals hidden information (an undo barrier).

        Randomness drawn through ``rng`` is detected by the platform on its own.

        :param event: an event of the log, whole.
        :return: ``True`` if no step before it may be undone. Default: the event
            carries ``"reveal": true``.
        """
        return bool(event.get("reveal"))

    def independent_steps(self, state: State, seat: int) -> bool:
        """Optional. Whether ``seat``'s steps in ``state`` are independent of the other seats'.

        Return ``True`` only where ``seat``'s steps read and change nothing but
        ``seat``'s own part of the state (its sheet, its pending choices) and the
        other seats' steps never read that part: a step of ``seat`` and a step of
        another seat, both made while this holds, give the same events and the same
        state in either order. Typical: the simultaneous phase of a flip-and-write,
        each player drawing on their own sheet. The conformance kit checks the claim.

        The platform then offers *selective undo*: a seat undoes its own steps at
        once, without the other seats' consent, although they acted in between.
        Only the caller's steps are cancelled; the other seats' interleaved steps
        stay in effect (the state is the one at the caller's first undone step with
        their events folded in again). Undo still never crosses a random draw or a
        reveal, nor cancels a step that :meth:`confirms`.

        :param state: the state a step was decided in.
        :param seat: the seat that made the step.
        :return: ``True`` if the step is independent. Default: ``False`` (undo
            across other seats' steps needs their consent and restores the whole
            earlier state).
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
        entry. A game that overrides this method gets drafts
        (:meth:`overrides` tells the platform).

        :param state: the state the step is decided in.
        :param seat: the seat making the step.
        :return: ``True`` if the step is sealed. Default: ``False`` (every step
            is an entry of its own).
        """
        return False

    def confirms(self, event: Event) -> bool:
        """Optional. Whether ``event`` confirms its seat's steps so far ("until you confirm").

        A step with such an event is never cancelled by an undo: its seat can no
        longer undo it nor the steps before it, and no other seat's undo removes it
        (the other seats may still undo their own unconfirmed steps selectively,
        see :meth:`independent_steps`).

        :param event: an event of the log, whole.
        :return: ``True`` if it confirms. Default: the event carries ``"confirms": true``.
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
        (:meth:`sealed_steps`).

        :param event: an event of the log, whole.
        :return: ``True`` if it ends the turn. Default: :meth:`confirms`
            (confirming ends the turn).
        """
        return self.confirms(event)

    def fork_events(self, state: State, rng: Rng) -> list[Event]:
        """Optional. Events that deal anew what *no* seat can see in ``state``.

        A draw pile's order, cards set aside face down that nobody has looked
        at. Called when a finished match is forked at ``state`` ("what if"). The
        fork's history up to there is public (the original is over, its export
        shows every event and its seed), so without these events anyone could
        read the fork's coming draws from the original's export. The platform
        appends them as one entry of kind ``deal`` right after the copied
        history; an importer re-derives them from the export, so they must be
        deterministic given ``rng``'s draws.

        They are ordinary events: folded by :meth:`evolve`, redacted by :meth:`redact`
        (what they deal stays hidden from every seat and from spectators while the fork
        runs) and told by :meth:`describe`. They must leave every seat's :meth:`view`
        and legal moves as they were: what a seat holds or has seen (its hand, the
        cards it put on the bottom of the deck, a pile it looked through) is the
        position the fork asks "what if" about, and stays. The conformance kit checks
        both.

        :param state: the state at the fork.
        :param rng: randomness derived from the fork's own secret seed.
        :return: the events. Default: ``[]`` (nothing is hidden from every seat:
            Nim, tic-tac-toe); return ``[]`` also when there is nothing left to
            deal (fewer than two unseen cards).
        """
        return []

    def describe(self, event: Event, seat: Seat, names: Sequence[str]) -> str:
        """Optional. One short human sentence for ``event`` as ``seat`` sees it.

        :param event: the event, already redacted for ``seat``.
        :param seat: the seat reading, or ``None`` for a spectator.
        :param names: the seat names, by seat (client-chosen text: use them as
            text, never as markup).
        :return: the sentence. The default names the event type and its actor.
        """
        actor = event.get("seat")
        who = names[actor] if isinstance(actor, int) and 0 <= actor < len(names) else "The game"
        return f"{who}: {event.get('type', 'event').replace('_', ' ')}"

    def upcast(self, event: Event, rules_version: int) -> Event:
        """Optional. Translate an event written under an older rules version to the current one.

        Called on replay for matches started under an older ``info.rules_version``.

        :param event: the event as it was written (not mutated).
        :param rules_version: the rules version the match started under.
        :return: the event as the current rules write it. The default returns
            ``event`` unchanged.
        """
        return event

    def renderer(self) -> str | list | None:
        """Optional. The static files that draw this game in the web client.

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
        too: the module adds a ``<link>`` to it).

        :return: a folder path, a list of file paths (``str``, ``pathlib.Path``
            or ``importlib.resources`` Traversable), or ``None`` (the default):
            the generic renderer draws the game, its view as a tree, its legal
            moves as labelled buttons.
        """
        return None

    # -- AI hooks (optional) ----------------------------------------------

    def evaluate(self, state: State, seat: int) -> float:
        """Optional. Heuristic value of ``state`` for ``seat``: the ``greedy`` level's
        score and the ``mcts`` leaf value.

        Called on states :meth:`sample_state` made up, so it reads the whole state.

        :param state: a state (running or over).
        :param seat: the seat to value it for.
        :return: a number, higher is better (any scale: mcts normalises).
            Default: 1.0 once the match is over and ``seat`` is among the
            winners, else 0.0 (also while the match runs), so a game that wants
            a useful greedy level overrides it.
        """
        result = self.outcome(state)
        if result is None:
            return 0.0
        return 1.0 if seat in result["winners"] else 0.0

    def sample_state(self, view: dict, seat: int, rng: Rng) -> State:
        """Optional. A full state consistent with ``seat``'s ``view``.

        Without it a game gets only the ``random`` level: the ``greedy`` and
        ``mcts`` levels need it, so it is required for a game with hidden
        information that wants them. The search never sees the real hidden
        state, only states this method makes up.

        :param view: what :meth:`view` returned for ``seat`` (not mutated).
        :param seat: the seat the AI plays.
        :param rng: the only source of randomness for the hidden parts.
        :return: a state whose hidden parts (other hands, deck order) are drawn
            at random from what ``seat`` has not seen, and whose ``view`` for
            ``seat`` is ``view``. A perfect-information game whose view is its
            state may return a copy of ``view``.
        """
        raise NotImplementedError

    def rollout_policy(self, state: State, seat: int, legal: list[Move], rng: Rng) -> Move:
        """Optional. How the ``mcts`` rollouts move (and the other seats, with
        ``mcts_opponents = "policy"``).

        Called many times per decision: keep it fast. A rollout policy that
        plays well (ends a turn soon, takes an obvious point) makes the search's
        values sharper than uniform play.

        :param state: a state the search reached (from :meth:`sample_state`).
        :param seat: the seat to move.
        :param legal: ``seat``'s legal moves in ``state``, at least one.
        :param rng: the search's randomness; the only one to draw from.
        :return: one of ``legal``. Default: one drawn uniformly.
        """
        return legal[rng.randrange(len(legal))]

    def ai_policies(self) -> dict[str, Callable]:
        """Optional. The game's own AI levels.

        ``view`` is the seat's view, ``legal`` the seat's legal moves (what the
        seat could fetch from the API itself); the policy returns one of them.
        A policy may declare a ``time_budget`` attribute (seconds one decision
        may take), which sizes its job timeout; see
        :func:`gameroom.ai.levels.time_budget`.

        :return: level name -> ``policy(game, view, seat, legal, rng, *,
            num_seats, **budget) -> move``. Default: ``{}``.
        """
        return {}

    def use_content(self, content: dict[str, dict[str, Any]]) -> None:
        """Optional. Receive the named data files plugins registered for this game.

        Called once when the registry is built, before any match is played, and
        only if some plugin registered content for the game; the one method that
        may change the game (keep what it needs to look up later). An option
        that selects content must take one of these *names* (or the game's own
        shipped files), never a path from the client, and read the file with a
        size bound.

        :param content: ``kind -> {name: file}`` merged from every plugin's
            ``gameroom_content`` hook (``file``: an ``importlib.resources``
            Traversable or a ``pathlib.Path``).
        :return: ``None``. Default: ignore it.
        :raises ValueError: to refuse the content; start-up stops with a
            message naming the game.
        """


def clone(data: Any) -> Any:
    """A deep copy of JSON-compatible data (faster than ``copy.deepcopy``)."""
    if isinstance(data, dict):
        return {k: clone(v) for k, v in data.items()}
    if isinstance(data, list):
        return [clone(v) for v in data]
    return data


__all__.append("clone")
