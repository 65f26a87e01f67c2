"""One short sentence per (already redacted) event, for history views."""

from __future__ import annotations


def _cards(cards, count=None):
    if cards is None:
        return f"{count} card{'s' if count != 1 else ''}"
    return ", ".join(cards) if cards else "nothing"


#: The events of using (or declining) a card's ability.
_ABILITY_EVENTS = (
    "ability_used",
    "ability_declined",
    "took",
    "discarded",
    "thrived",
    "info_taken",
    "bullied",
    "loss_handed",
    "loss_returned",
)


def describe(event, seat, names):
    kind = event["type"]

    def who(key="seat"):
        s = event.get(key)
        return names[s] if isinstance(s, int) and 0 <= s < len(names) else "The game"

    if kind == "started":
        return f"{event['num_seats']} players; {who('start')} starts."
    if kind == "homeworlds_dealt":
        return "Homeworlds are dealt face down."
    if kind == "deck_formed":
        source = {
            "setup": "The deck is shuffled.",
            "discard": "The discard pile is shuffled into a new deck.",
            "rebirth": f"{who()} shuffles discard pile and deck together (Rebirth).",
        }
        return source.get(event["source"], "A new deck is formed.")
    if kind == "fork_shuffled":
        size = event["size"] if event.get("deck") is None else len(event["deck"])
        return (
            f"This match is a fork: its deck ({size} cards) is shuffled anew; "
            "cards put under it with Look stay where they are."
        )
    if kind == "drew":
        return f"{who()} draws {_cards(event['cards'], event.get('count'))}."
    if kind == "turn_started":
        return f"{who()} begins a turn."
    if kind == "phase":
        return f"{who()}: {event['phase']} step."
    if kind == "exchanged":
        return f"{who()} exchanges {_cards(event['cards'])}."
    if kind == "looked":
        return f"{who()} puts {_cards(event['cards'], event.get('count'))} on the bottom of the deck."
    if kind == "stuck":
        return f"{who()} cannot play and discards the hand: {_cards(event['cards'])}."
    if kind == "played":
        return f"{who()} plays {event['card']} ({event['orientation']}) for {event['cost']} cards."
    if kind == "paid":
        return f"{who()} pays with {event['card']}."
    if kind in _ABILITY_EVENTS:
        return _ability_sentence(kind, event, who, names)
    if kind == "attacked":
        return f"{who()} plays a {event['mode']} on {who('player')}'s {event['target']}."
    if kind == "ambassador_placed":
        return f"{who()} places ambassador {event['card']} on {event['target']}."
    if kind == "turn_ended":
        return f"{who()} ends the turn."
    if kind == "game_over":
        return "The game ends; homeworlds are revealed."
    return f"{who()}: {kind.replace('_', ' ')}"


def _ability_sentence(kind, event, who, names):
    """The sentences of an ability's use (``who(key)``: the name of the seat at ``event[key]``)."""
    if kind == "ability_used":
        target = event.get("player")
        extra = (
            f" on {names[target]}"
            if isinstance(target, int)
            else (f" ({event['card']})" if event.get("card") else "")
        )
        return f"{who()} uses {event['ability']} of {event['source']}{extra}."
    if kind == "ability_declined":
        return f"{who()} declines the ability of {event['source']}."
    if kind == "took":
        return f"{who()} takes {event['card'] or 'a card'} from {who('from')}."
    if kind == "discarded":
        return f"{who()} discards {_cards(event['cards'])} ({event['reason']})."
    if kind == "thrived":
        return f"{who()} tucks {event['card']} from {event['target']} under the homeworld."
    if kind == "info_taken":
        return f"{who()} takes {event['card'] or 'a card'} from the discard pile."
    if kind == "bullied":
        return f"{who()} bullies {who('player')}: +1 card on the next empire card."
    if kind == "loss_handed":
        return f"{who('from')} hands {_cards(event['cards'], event.get('count'))} to {who()}."
    # loss_returned
    return f"{who()} gives back {_cards(event['cards'], event.get('count'))} to {who('to')}."
