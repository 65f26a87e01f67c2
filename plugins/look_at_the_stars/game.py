"""Look at the Stars as a gameroom game: the :class:`~gameroom.plugin_api.Game` wiring.

Setup (LATS section 1, X1-X4) and a fork's deal are here; everything else is delegated to the
modules of the common layout (see README.md in this folder).
"""

from __future__ import annotations

from pathlib import Path

from gameroom.plugin_api import Game, GameInfo, GameSchemas, IllegalMove

from . import ai, decide, schemas, views
from . import describe as describing
from .content import CONTENT, TURNS
from .evolve import evolve
from .scoring import CATEGORIES
from .state import TURNS_PER_PILE

MAX_SEATS = len(CONTENT.sheets)
# Per seat and turn: draw/skip + confirm. Each occurrence takes at most 3 steps
# (select, use, second new star) and consumes 3 lines; at most one new line per
# occurrence (Line power), so over a game 3 * uses <= 2 pre-drawn + 36 card lines
# + uses, i.e. uses <= 19.
MAX_STEPS = MAX_SEATS * (TURNS * 2 + 19 * 3)


class LookAtTheStars(Game):
    info = GameInfo(
        slug="look-at-the-stars",
        title="Look at the Stars",
        min_players=1,
        max_players=MAX_SEATS,
        rules_version=1,
        hidden_information=True,
        max_steps=MAX_STEPS,
        description="Flip-and-write: everyone draws the same night card on their own sky sheet, "
        "forming constellations of 3 to 8 lines around planets. 1 (solo variant) to 8 players.",
        simultaneous=True,
    )

    #: The conformance kit's playouts include one seat, which needs the solo variant.
    playout_options = {"solo_variant": True}

    # -- setup ----------------------------------------------------------------

    def check_seats(self, num_seats, options):
        """LATS section 1: 2 to 8 players; 1 only with the option ``solo_variant``."""
        super().check_seats(num_seats, options)
        if num_seats == 1 and not options["solo_variant"]:
            raise IllegalMove(
                "solo-variant-required",
                "Look at the Stars takes 2 to 8 players; one player needs the option solo_variant.",
            )

    def setup(self, num_seats, options, rng):
        self.check_seats(num_seats, options)
        sheets = rng.sample(range(MAX_SEATS), num_seats)  # X1 / R1.1
        deck = rng.shuffled(range(len(CONTENT.night_cards)))  # X2 / R1.3
        choice = options["point_bonus_card"]  # X3 / R1.4
        if choice == "default":
            point = CONTENT.default_point_bonus
        elif choice == "random":
            point = rng.randrange(len(CONTENT.point_bonus))
        else:
            point = [c.option_number for c in CONTENT.point_bonus].index(choice)
        choice = options["power_bonus_card"]  # X4 / R1.4
        if choice == "default":
            power = CONTENT.default_power_bonus
        elif choice == "random_basic":
            power = rng.choice(CONTENT.basic_powers)
        elif choice == "random_all":
            power = rng.randrange(len(CONTENT.power_bonus))
        else:
            power = [c.power for c in CONTENT.power_bonus].index(choice)
        rules = {
            "point_bonus": point,
            "power_bonus": power,
            "allow_mirror": options["allow_mirror"],
            "counting": options["point_bonus_counting"],
            "decline_all": options["decline_consumes_all_pending"],
            "sun_blocks": options["sun_blocks_nova_and_aura"],
            "live_score": options["live_score"],
            "solo": num_seats == 1,
        }
        return [
            {"type": "game_set_up", "num_seats": num_seats, "sheets": sheets, "deck": deck, "rules": rules},
            {"type": "card_revealed", "turn": 1, "pile": 1, "card": deck[0], "reveal": True},
        ]

    def fork_events(self, state, rng):
        """A fork of a finished match deals the unrevealed night cards anew: their order and
        which 12 are out of the game are hidden from everyone (H3), R1.3 deals them from one
        shuffle, and the original's export shows it. The revealed cards and the sheets stay
        the position the fork asks "what if" about."""
        unrevealed = state["deck"][state["turn"] :]
        if state["result"] is not None or len(unrevealed) < 2:
            return []
        return [{"type": "fork_shuffled", "unrevealed": rng.shuffled(unrevealed)}]

    def evolve(self, state, event):
        return evolve(state, event)

    # -- turn flow ------------------------------------------------------------

    def active_seats(self, state):
        return decide.active_seats(state)

    def legal_moves(self, state, seat):
        return decide.legal_moves(state, seat)

    def decide(self, state, seat, move, rng):
        return decide.decide(state, seat, move)

    # -- undo (R2.3) ----------------------------------------------------------

    def independent_steps(self, state, seat):
        """R2.2 / R2.3: every step of a turn is made on the seat's own sheet, against the
        revealed card everyone shares; no seat's step reads another's sheet (a confirm
        that is not the last reads only whether the others confirmed, and confirms are
        never undone; the last one reveals). So a seat undoes its own steps until it
        confirms, whatever the others did in between."""
        return state["result"] is None

    def sealed_steps(self, state, seat):
        """H2: a seat's unconfirmed steps are visible only to that seat -- and so is how
        many it took: the platform keeps them out of the log until the seat confirms."""
        return state["result"] is None

    def confirms(self, event):
        """R2.3: "until a player confirms, they may undo any of their own steps"."""
        return event["type"] == "turn_confirmed"

    def outcome(self, state):
        return state["result"]

    # -- views ----------------------------------------------------------------

    def renderer(self):
        """The web board (``ui/``) and the sheets and cards it draws from the content file."""
        here = Path(__file__).parent
        return [
            here / "ui" / "renderer.js",
            here / "ui" / "renderer.css",
            here / "data" / "look-at-the-stars.json",
        ]

    def schemas(self):
        return GameSchemas(
            options=schemas.Options,
            move=schemas.Move,
            view=schemas.View,
            event=schemas.Event,
            moves=schemas.MOVE_VARIANTS,
            events=schemas.EVENT_VARIANTS,
        )

    def view(self, state, seat):
        return views.view(state, seat)

    def redact(self, event, seat):
        return views.redact(event, seat)

    def describe(self, event, seat, names):
        return describing.describe(event, seat, names)

    def sample_state(self, view, seat, rng):
        return views.sample_state(view, seat, rng)

    # -- AI -------------------------------------------------------------------

    def rollout_policy(self, state, seat, legal, rng):
        return ai.rollout_policy(state, seat, legal, rng)

    def evaluate(self, state, seat):
        return ai.evaluate(state, seat)


__all__ = ["CATEGORIES", "TURNS_PER_PILE", "LookAtTheStars"]
