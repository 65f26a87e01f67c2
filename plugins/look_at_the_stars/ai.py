"""How the AI levels play Look at the Stars: the search's rollout policy and evaluation.

The AI levels themselves (random, greedy, search) are the platform's; a game
gives them two hints. Both read only what the seat may know: the game has no
interaction, so a seat's own sheet (public to it) is all that counts.
"""

from __future__ import annotations

from .content import TURNS
from .scoring import outlook, score_sheet
from .state import pile_of

#: The steps that end a seat's turn soonest, in order of preference (see ``rollout_policy``).
QUICKEST = (
    {"type": "confirm_turn"},
    {"type": "skip_card"},
    {"type": "decline_power"},
    {"type": "use_power", "stop": True},
)


def rollout_policy(state: dict, seat: int, legal: list[dict], rng) -> dict:
    """How a search moves the *other* seats: straight through their turn.

    No step of theirs can change the searching seat's sheet or score (the
    game has no interaction) and :func:`evaluate` looks at the seat's own
    sheet only, so simulating their drawings would cost time and change
    nothing: they confirm, skip or decline whenever they may.
    """
    for wanted in QUICKEST:
        for move in legal:
            if move == wanted:
                return move
    return legal[rng.randrange(len(legal))]


def evaluate(state: dict, seat: int) -> float:
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
