"""The kit's leak tracer: a value one event's redaction hides from a viewer must reach it
through no other event of the step and no event's text (:func:`check_secrets_stay_hidden`).
"""

from __future__ import annotations

from ..plugin_api import Game


def _leaves(data, key="", in_list=False):
    """``(key, value, in_list)`` for every scalar in ``data``; list items take their list's key."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, k)
    elif isinstance(data, list):
        for v in data:
            yield from _leaves(v, key, True)
    elif data is not None and not isinstance(data, bool):
        yield key, data, in_list


def _kind(key: str) -> str:
    """``cards`` and ``card`` name the same kind of thing."""
    return key[:-1] if key.endswith("s") else key


def secrets_of(raw: dict, redacted: dict) -> dict:
    """What redaction hid from a viewer: ``(kind, value)`` of ``raw`` that ``redacted`` lacks,
    each mapped to whether it was hidden inside a list (an order, a set of cards)."""
    shown = {(_kind(k), v) for k, v, _ in _leaves(redacted)}
    return {
        (_kind(k), v): in_list for k, v, in_list in _leaves(raw) if (_kind(k), v) not in shown and k != "type"
    }


def check_secrets_stay_hidden(game: Game, events: list[dict], viewer, names: list[str]) -> int:
    """A secret that one event's redaction hides from ``viewer`` must not reach it through
    another event of the same step, nor through any event's text.

    Example: ``info_taken`` hides the card a seat took from a hidden pile while
    ``ability_used`` in the same step still names it. Values are matched by field
    name (``card`` / ``cards``). A value hidden in one list and shown in another
    (a shuffled deck's order and the cards a seat drew from it) is not a leak;
    a single hidden value shown anywhere else, or any value shown alone, is; but a
    later event of the step that ``reveals`` (all seats have played: show the
    sealed cards) may show what an earlier one hid. Text is
    searched for single hidden strings of two characters or more. Returns the number of
    secrets checked.
    """
    redacted = [game.redact(e, viewer) for e in events]
    checked = 0
    texts = None
    for i, (raw, red) in enumerate(zip(events, redacted)):
        hidden = secrets_of(raw, red)
        if not hidden:
            continue
        checked += len(hidden)
        for j, other in enumerate(redacted):
            if j == i or (j > i and game.reveals(events[j])):
                continue  # a later reveal may make public what this event kept secret
            carried = sorted(
                (kind, value)
                for key, value, in_list in _leaves(other)
                if (kind := _kind(key), value) in hidden and not (in_list and hidden[(kind, value)])
            )
            assert not carried, (
                f"{other['type']} shows viewer {viewer} {carried}, which {raw['type']} hides from it:\n"
                f"{other}"
            )
        if texts is None:
            texts = [game.describe(e, viewer, names) for e in redacted]
        for (kind, value), in_list in hidden.items():
            if isinstance(value, str) and len(value) >= 2 and not in_list:
                for j, text in enumerate(texts):
                    if j > i and game.reveals(events[j]):
                        continue
                    assert value not in text, (
                        f"the text {text!r} shows viewer {viewer} the {kind} {value!r} that "
                        f"{raw['type']} hides from it"
                    )
    return checked
