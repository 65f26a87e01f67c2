"""Tiny Stellar Empires as a gameroom game: the :class:`~gameroom.plugin_api.Game` wiring.

Setup (TSE-T1..T5, X1..X3) and a fork's deal are here; everything else is delegated to the
modules of the common layout (see README.md in this folder).
"""

from __future__ import annotations

from pathlib import Path

from gameroom.plugin_api import Game, GameInfo, GameSchemas

from . import ai, decide, scoring, views
from . import describe as describing
from .content import load_card_set, register_card_sets
from .evolve import evolve
from .flow import Flow, draw
from .schemas import EVENT_VARIANTS, MOVE_VARIANTS, Event, Move, Options, View

RULE_OPTIONS = (
    "empire_play_mandatory",
    "max_attacks_per_turn",
    "ambassador_targets",
    "one_shot_timing",
    "trade_count",
    "discard_pile_public",
    "stuck_redraw",
    "tie_breaker",
    "card_set",
)


class TinyStellarEmpires(Game):
    info = GameInfo(
        slug="tiny-stellar-empires",
        title="Tiny Stellar Empires",
        min_players=2,
        max_players=4,
        rules_version=1,
        hidden_information=True,
        # 24 turns at most (4 x 6), each well under 100 steps: exchange, look,
        # play, <= 7 payments, ability + reply, 3 attacks + 3 payments,
        # 3 ambassadors + 3 payments, deferred one-shots (<= 6 x 3), refill look.
        max_steps=2400,
        description="Build a row of empire cards whose trade routes match; raid, invade "
        "and send ambassadors; score cards, abilities, symbol majorities and "
        "a secret homeworld mission. (Card list reconstructed.)",
        simultaneous=False,
    )

    #: TSE-H5: a private discard pile hides what Info takes; the kit's leak check plays it too.
    hidden_information_options = ({"discard_pile_public": False},)

    def renderer(self):
        """The web board: empire rows, hand, homeworld, discard pile and scores (``ui/``)."""
        return str(Path(__file__).with_name("ui"))

    def schemas(self):
        return GameSchemas(
            options=Options, move=Move, view=View, event=Event, moves=MOVE_VARIANTS, events=EVENT_VARIANTS
        )

    def use_content(self, content):
        """Card sets other plugins register (kind ``card_set``) become nameable by ``card_set``."""
        register_card_sets(content.get("card_set", {}))

    # -- rules ---------------------------------------------------------------------------

    def setup(self, num_seats, options, rng):
        """TSE-T1..T5, X1..X3: homeworlds, the 50-card deck, 5 cards each, a start player."""
        cards = load_card_set(options["card_set"])
        opts = {k: options[k] for k in RULE_OPTIONS}
        start = rng.randrange(num_seats)
        homes = rng.shuffled(list(cards["homeworld"]))
        deck = rng.shuffled([*cards["empire"], *cards["attack"], *cards["ambassador"]])
        flow = Flow(None, rng)
        flow.emit(
            {
                "type": "started",
                "set": cards,
                "options": opts,
                "num_seats": num_seats,
                "start": start,
            }
        )
        flow.emit(
            {
                "type": "homeworlds_dealt",
                "homeworlds": homes[:num_seats],
                "removed": homes[num_seats:],
            }
        )
        flow.emit({"type": "deck_formed", "source": "setup", "deck": deck})
        for seat in range(num_seats):
            draw(flow, seat, cards["rules"]["hand_size"], "deal")
        flow.emit({"type": "turn_started", "seat": start})
        return flow.events

    def fork_events(self, state, rng):
        """A fork of a finished match deals the deck anew: its order is hidden from everyone
        (TSE-H4), and the original's export shows it. The cards a seat put under it with
        Look (H2) stay where they are, and so do hands and homeworlds (the position the
        fork asks "what if" about); the removed homeworlds are out of the game (T2) and
        never drawn, so there is nothing of theirs to deal."""
        if state["over"]:
            return []
        seen = {card for card, _ in state["bottom"]}
        unseen = [card for card in state["deck"] if card not in seen]
        if len(unseen) < 2:
            return []
        dealt = iter(rng.shuffled(unseen))
        return [{"type": "fork_shuffled", "deck": [c if c in seen else next(dealt) for c in state["deck"]]}]

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

    # -- information ---------------------------------------------------------------------

    def view(self, state, seat):
        return views.view(state, seat)

    def redact(self, event, seat):
        return views.redact(event, seat)

    def sample_state(self, view, seat, rng):
        return views.sample_state(view, seat, rng)

    def describe(self, event, seat, names):
        return describing.describe(event, seat, names)

    # -- AI --------------------------------------------------------------------------------

    def evaluate(self, state, seat):
        return ai.evaluate(state, seat)
