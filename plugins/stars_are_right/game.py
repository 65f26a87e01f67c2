"""The Stars Are Right as a gameroom game: the :class:`~gameroom.plugin_api.Game` wiring.

Setup (SAR-B2, X1-X5), a fork's deal and the rules-version upcast are here; everything else
is delegated to the modules of the common layout (see README.md in this folder).
"""

from __future__ import annotations

from pathlib import Path

from gameroom.plugin_api import Game, GameInfo, GameSchemas

from . import ai, decide, schemas, scoring, views
from . import describe as describing
from .content import ALL_CARD_IDS, DATA_FILE
from .evolve import evolve

#: The round cap rules version 1 put on matches without a ``turn_limit``.
V1_SAFEGUARD_ROUNDS = 100


class StarsAreRight(Game):
    """Cultists rearrange the 5x5 sky to match constellations and summon creatures."""

    info = GameInfo(
        slug="stars-are-right",
        title="The Stars Are Right",
        min_players=2,
        max_players=4,
        # 2: turn_limit null means no limit (SAR-B12.4); version 1 ended such matches
        # after 100 rounds ("safeguard"), which its matches keep (see upcast).
        rules_version=2,
        hidden_information=True,
        max_steps=None,  # under the default options a match ends only by victory (B12.2)
        description="Push, swap and flip sky tiles until the stars are right, then summon "
        "creatures; first to 10 VP wins.",
        simultaneous=False,
    )

    #: Search setting read by the platform's ISMCTS: back up the best child's value
    #: fully (measured: at the default blend of 0.5 mcts lost to greedy here; at 1.0
    #: it won 76.8% of 200 matches, bench/README.md).
    mcts_minimax = 1.0

    #: The conformance kit's playouts: random play reaches 10 VP only after hundreds to
    #: thousands of rounds, so they stop after 100 (B12.4); the defaults (no limit)
    #: are played to victory in tests/plugins/stars_are_right/test_sar_turn_limit.py.
    playout_options = {"turn_limit": 100}

    def renderer(self):
        """The web board (``ui/``) and the card data it draws constellations from."""
        ui = Path(__file__).with_name("ui")
        return [ui / "renderer.js", ui / "renderer.css", DATA_FILE]

    def schemas(self):
        return GameSchemas(
            options=schemas.OptionsSchema,
            move=schemas.MoveSchema,
            view=schemas.ViewSchema,
            event=schemas.EventSchema,
            moves=schemas.MOVE_VARIANTS,
            events=schemas.EVENT_VARIANTS,
        )

    # -- setup (SAR-B2, randomness X1-X5) -----------------------------------

    def setup(self, num_seats, options, rng):
        sky = rng.shuffled(range(25))
        faces = [rng.randrange(2) for _ in range(25)]
        order = rng.shuffled(ALL_CARD_IDS)
        hands = [[order[k] for k in range(5 * num_seats) if k % num_seats == s] for s in range(num_seats)]
        first = rng.randrange(num_seats) if options["first_player"] == "random" else 0
        return [
            {"type": "match_started", "num_seats": num_seats, "options": dict(options)},
            {"type": "sky_laid", "sky": sky, "faces": faces},
            {"type": "deck_shuffled", "order": order},
            {"type": "dealt", "hands": hands, "counts": [len(h) for h in hands], "reveal": True},
            {"type": "first_player", "first": first},
        ]

    def fork_events(self, state, rng):
        """A fork of a finished match deals the draw pile anew: its order is hidden from
        everyone (H4), and the original's export shows it. Hands, the discard pile and a
        Dhole look in progress (H3: the pile's cards in card-id order, which a shuffle
        leaves as they were) stay the position the fork asks "what if" about."""
        deck = state["deck"]
        if len(deck) < 2 or state["winners"] is not None:
            return []
        return [{"type": "fork_shuffled", "count": len(deck), "order": rng.shuffled(deck)}]

    def max_steps_for(self, num_seats, options):
        return decide.max_steps(num_seats, options)

    def upcast(self, event, rules_version):
        """Rules version 1 ended a match without ``turn_limit`` after 100 full rounds:
        such a match keeps that cap (``round_cap``) when it is replayed or played on."""
        if (
            rules_version == 1
            and event.get("type") == "match_started"
            and event["options"].get("turn_limit") is None
        ):
            return {**event, "round_cap": V1_SAFEGUARD_ROUNDS}
        return event

    # -- rules --------------------------------------------------------------

    def evolve(self, state, event):
        return evolve(state, event)

    def active_seats(self, state):
        return decide.active_seats(state)

    def legal_moves(self, state, seat):
        return decide.legal_moves(state, seat)

    def decide(self, state, seat, move, rng):
        return decide.decide(state, seat, move, rng)

    def outcome(self, state):
        return scoring.outcome(state)

    # -- hidden information -------------------------------------------------

    def view(self, state, seat):
        return views.view(state, seat)

    def redact(self, event, seat):
        return views.redact(event, seat)

    def describe(self, event, seat, names):
        return describing.describe(event, seat, names)

    # -- AI hooks -----------------------------------------------------------

    def evaluate(self, state, seat):
        return ai.evaluate(state, seat)

    def sample_state(self, view, seat, rng):
        return views.sample_state(view, seat, rng)
