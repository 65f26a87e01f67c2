"""One human sentence per event, as a seat sees it (already redacted)."""

from __future__ import annotations

from .content import CARDS


def _card(card_id) -> str:
    card = CARDS.get(card_id)
    return f"{card.name} #{card_id}" if card else "a card"


def _cell(idx: int) -> str:
    """A sky cell as the web board labels it: rows and columns count from 1, as people count."""
    return f"row {idx // 5 + 1} column {idx % 5 + 1}"


#: The sentences of the events that carry nothing to say.
_FIXED = {
    "sky_laid": "The 25 sky tiles are laid out.",
    "deck_shuffled": "The 75 creature cards are shuffled.",
    "dealt": "Each player is dealt 5 cards.",
}

_SERVICES = ("service_used", "servitors_exchanged", "dhole_used", "dhole_took", "services_ended")


def describe(event: dict, seat, names) -> str:
    kind = event["type"]
    actor = event.get("seat")
    who = names[actor] if isinstance(actor, int) and 0 <= actor < len(names) else "The game"
    you = seat is not None and seat == actor
    if kind == "match_started":
        return f"A game of The Stars Are Right for {event['num_seats']} players begins."
    if kind in _FIXED:
        return _FIXED[kind]
    if kind == "first_player":
        return f"{names[event['first']]} plays first."
    if kind == "invoked":
        pool = "".join(s * n for s, n in event["pool"].items())
        return f"{who} invoked {_card(event['card'])} for {pool}."
    if kind == "invoke_skipped":
        return f"{who} invoked nothing."
    if kind in _SERVICES:
        return _service_sentence(kind, event, who, names)
    if kind == "pushed":
        line = "row" if event["line"] == "row" else "column"
        return f"{who} pushed {line} {event['index'] + 1} {event['direction']}."
    if kind == "swapped":
        a, b = event["cells"]
        return f"{who} swapped the tiles at {_cell(a)} and {_cell(b)}."
    if kind == "flipped":
        return f"{who} flipped the tile at {_cell(event['cell'])}."
    if kind == "symbol_forfeited":
        return f"{who} forfeited a {event['symbol']} with no legal action."
    if kind == "summoned":
        extra = f" with {', '.join(map(_card, event['supporters']))}" if event["supporters"] else ""
        return f"{who} summoned {_card(event['card'])}{extra}."
    if kind == "summon_skipped":
        return f"{who} summoned nothing."
    if kind == "creature_discarded":
        return f"{who} put {_card(event['card'])} from play onto the discard pile."
    if kind == "card_discarded":
        return f"{who} discarded {_card(event['card'])}."
    if kind == "reshuffled":
        return f"The discard pile ({event['count']} cards) is shuffled into a new draw pile."
    if kind == "fork_shuffled":
        return f"This match is a fork: its draw pile ({event['count']} cards) is shuffled anew."
    if kind == "drew":
        if you and "cards" in event:
            return f"You drew {', '.join(map(_card, event['cards']))}."
        return f"{who} drew {event['count']} card(s)."
    if kind == "turn_ended":
        return f"{who} ended the turn; {names[event['next']]} is next."
    if kind == "game_over":
        winners = " and ".join(names[w] for w in event["winners"])
        return f"The game is over ({event['reason'].replace('_', ' ')}): {winners} won."
    return f"{who}: {kind.replace('_', ' ')}"


def _service_sentence(kind: str, event: dict, who: str, names) -> str:
    """The sentences of the services step (creatures' services, servitors, the Dhole)."""
    if kind == "service_used":
        return f"{who} used {_card(event['creature'])}: {event['from']} became {event['to']}."
    if kind == "servitors_exchanged":
        return (
            f"{who} used {_card(event['minion'])} to exchange {_card(event['own'])} "
            f"for {names[event['opponent']]}'s {_card(event['theirs'])}."
        )
    if kind == "dhole_used":
        return f"{who} used {_card(event['minion'])} and looked through the {event['pile']} pile."
    if kind == "dhole_took":
        card = _card(event["card"]) if "card" in event else "1 card"
        return f"{who} took {card} from the {event['pile']} pile."
    return f"{who} finished using services."  # services_ended
