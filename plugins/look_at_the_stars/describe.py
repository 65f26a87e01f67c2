"""One short sentence per (already redacted) event, as a seat sees it (history, replay).

Events reach here through :func:`.views.redact`, so a sentence can only tell
what the seat may know: another seat's sealed steps arrive as ``step_taken``
and read "X is drawing" (H2).
"""

from __future__ import annotations

from .content import CONTENT, TURNS


def describe(event: dict, seat, names) -> str:
    """The sentence for ``event`` (already redacted for ``seat``); ``names`` are the seats' names."""
    kind = event["type"]
    actor = event.get("seat")
    who = names[actor] if isinstance(actor, int) and 0 <= actor < len(names) else "Someone"
    if kind == "game_set_up":
        return f"The night begins with {event['num_seats']} stargazer(s)."
    if kind == "fork_shuffled":
        count = event["count"] if "unrevealed" not in event else len(event["unrevealed"])
        return f"This night is a fork: its {count} unrevealed night cards are shuffled anew."
    if kind == "card_revealed":
        card = CONTENT.night_cards[event["card"]]
        what = "a shooting star" if card.kind == "shooting_star" else f"night card {card.id}"
        return f"Card {event['turn']} of {TURNS} is {what} (pile {event['pile']})."
    if kind == "step_taken":
        return f"{who} is drawing."
    if kind == "card_placed":
        return (
            f"{who} drew card {event['card']}: "
            + ", ".join(_line_text(line) for line in event["lines"])
            + "."
        )
    if kind == "shooting_star_placed":
        return f"{who} drew a shooting star of {event['length']} segment(s)."
    if kind == "card_skipped":
        return f"{who} skipped the card."
    if kind == "occurrence_selected":
        return f"{who} chose a Power Bonus shape to resolve."
    if kind == "power_used":
        if event.get("stop"):
            return f"{who} placed no second new star."
        target = _line_text(event["line"]) if "line" in event else _pt_text(event["point"])
        return f"{who} used the {event['power'].replace('_', ' ')} power at {target}."
    if kind == "power_declined":
        return f"{who} declined a Power Bonus."
    if kind == "turn_confirmed":
        return f"{who} confirmed the turn."
    if kind == "turn_revealed":
        return f"Everyone's drawings of turn {event['turn']} are revealed."
    if kind == "game_ended":
        return (
            "The night is over; scores: "
            + ", ".join(f"{names[s] if s < len(names) else s} {v}" for s, v in enumerate(event["scores"]))
            + "."
        )
    return f"{who}: {kind.replace('_', ' ')}"


def _pt_text(p) -> str:
    return f"{p[0]},{p[1]}"


def _line_text(line) -> str:
    return f"{_pt_text(line[0])}-{_pt_text(line[1])}"
