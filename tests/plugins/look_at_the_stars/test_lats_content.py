"""The data file is validated at load; a malformed card is named with its field."""

import copy

import pytest

from gameroom.plugins.look_at_the_stars.content import (
    CONTENT,
    ContentError,
    build_content,
    load_raw,
)


def test_packaged_content_loads():
    assert len(CONTENT.sheets) == 8 and len(CONTENT.night_cards) == 30
    assert len(CONTENT.point_bonus) == 10 and len(CONTENT.power_bonus) == 9


@pytest.mark.parametrize(
    "mutate,needles",
    [
        (
            lambda raw: raw["night_cards"]["cards"][5]["lines"].__setitem__(0, [[1, 1], [3, 3]]),
            ["night_cards.cards[5] (id 5)", "lines"],
        ),
        (lambda raw: raw["night_cards"]["cards"][12].__setitem__("kind", "comet"), ["(id 12)", "kind"]),
        (
            lambda raw: raw["power_bonus_cards"][4].__setitem__("power", "wormhole"),
            ["power_bonus_cards[4] (index 4)", "power"],
        ),
        (lambda raw: raw["point_bonus_cards"][7].pop("points"), ["point_bonus_cards[7] (index 7)", "points"]),
        (lambda raw: raw["sheets"][3].pop("planets"), ["sheets[3] (index 3)", "planets"]),
    ],
)
def test_malformed_data_names_card_and_field(mutate, needles):
    raw = copy.deepcopy(load_raw())
    mutate(raw)
    with pytest.raises(ContentError) as info:
        build_content(raw)
    for needle in needles:
        assert needle in str(info.value)
