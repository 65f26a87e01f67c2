"""Look at the Stars as a gameroom game: setup, turn flow and outcome.

All seats act at once on their own sheets (R2.2). A seat is active until it
confirms the turn; when the last seat confirms, one ``turn_revealed`` event
publishes every seat's drawings of the turn (H2) and the next card is
revealed (``card_revealed``, ``"reveal": true``; its identity follows from
the setup shuffle) -- or, after the 18th card, the game is scored.
"""

from __future__ import annotations

from pathlib import Path

from gameroom.plugin_api import Game, GameInfo, GameSchemas, IllegalMove

from . import schemas, views
from .content import CONTENT, TURNS
from .fold import evolve as fold_event
from .scoring import CATEGORIES, outlook, score_sheet
from .steps import TURNS_PER_PILE, decide_step, legal_steps, pile_of

MAX_SEATS = len(CONTENT.sheets)
# Per seat and turn: draw/skip + confirm. Each occurrence takes at most 3 steps
# (select, use, second new star) and consumes 3 lines; at most one new line per
# occurrence (Line power), so over a game 3 * uses <= 2 pre-drawn + 36 card lines
# + uses, i.e. uses <= 19.
MAX_STEPS = MAX_SEATS * (TURNS * 2 + 19 * 3)
#: The steps that end a seat's turn soonest, in order of preference (see ``rollout_policy``).
_QUICKEST = (
    {"type": "confirm_turn"},
    {"type": "skip_card"},
    {"type": "decline_power"},
    {"type": "use_power", "stop": True},
)


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

    def evolve(self, state, event):
        return fold_event(state, event)

    # -- turn flow ------------------------------------------------------------

    def active_seats(self, state):
        if state["result"] is not None:
            return []
        return [s for s, p in enumerate(state["players"]) if not p["confirmed"]]

    def legal_moves(self, state, seat):
        if state["result"] is not None or not isinstance(seat, int) or not 0 <= seat < state["n"]:
            return []
        if state["players"][seat]["confirmed"]:
            return []
        return legal_steps(state, seat)

    def decide(self, state, seat, move, rng):
        if state["result"] is not None:
            raise IllegalMove("match-over", "The night is over.")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state["n"]:
            raise IllegalMove("no-such-seat", "There is no such seat.")
        if not isinstance(move, dict):
            raise IllegalMove("malformed-move", "A move is a JSON object.")
        events = decide_step(state, seat, move)
        if move["type"] == "confirm_turn" and all(
            p["confirmed"] for s, p in enumerate(state["players"]) if s != seat
        ):
            events += self._end_turn(state)
        return events

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

    def _end_turn(self, state) -> list[dict]:
        """R2.3: every seat has confirmed -- publish the turn, then reveal or score."""
        turn = state["turn"]
        events = [
            {"type": "turn_revealed", "turn": turn, "drawings": [list(p["log"]) for p in state["players"]]}
        ]
        if turn < TURNS:
            events.append(
                {
                    "type": "card_revealed",
                    "turn": turn + 1,
                    "pile": pile_of(turn + 1),
                    "card": state["deck"][turn],
                    "reveal": True,
                }
            )
        else:
            events.append({"type": "game_ended", **self._final(state)})
        return events

    def _final(self, state) -> dict:
        """R2.5 / R7.6: totals, breakdowns and the shared-rank winners."""
        breakdowns = [score_sheet(p, state["rules"]) for p in state["players"]]
        scores = [b.pop("total") for b in breakdowns]
        best = max(scores)
        winners = [] if state["rules"]["solo"] else [s for s, v in enumerate(scores) if v == best]
        return {"scores": scores, "winners": winners, "breakdown": breakdowns}

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
        return views.describe(event, seat, names)

    def sample_state(self, view, seat, rng):
        return views.sample_state(view, seat, rng)

    # -- AI -------------------------------------------------------------------

    def rollout_policy(self, state, seat, legal, rng):
        """How a search moves the *other* seats: straight through their turn.

        No step of theirs can change the searching seat's sheet or score (the
        game has no interaction) and :meth:`evaluate` looks at the seat's own
        sheet only, so simulating their drawings would cost time and change
        nothing: they confirm, skip or decline whenever they may.
        """
        for wanted in _QUICKEST:
            for move in legal:
                if move == wanted:
                    return move
        return legal[rng.randrange(len(legal))]

    def evaluate(self, state, seat):
        """The seat's own score, plus a little for lines that may still grow.

        Only the seat's own sheet counts: no step of another seat can change
        it (the game has no interaction), so the rivals' scores would only add
        noise to a search that simulates their moves.
        """
        player = state["players"][seat]
        if state["result"] is not None:
            return float(state["result"]["scores"][seat])
        score = score_sheet(player, state["rules"])["total"]
        growing, room = outlook(player, pile_of(state["turn"]))
        progress = 0.3 * growing + 0.02 * room * (TURNS - state["turn"]) / TURNS
        return float(score) + progress


__all__ = ["CATEGORIES", "TURNS_PER_PILE", "LookAtTheStars"]
