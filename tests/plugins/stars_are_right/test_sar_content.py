"""The content file (SAR-B1): loaded and validated at import."""

import copy
import json
from collections import Counter

import pytest

from gameroom.plugins.stars_are_right.content import (
    CARDS,
    DATA_FILE,
    GOO,
    GREATER,
    LESSER,
    MINION,
    TILE_FACES,
    ContentError,
    load_content,
)

RAW = json.loads(DATA_FILE.read_text(encoding="utf-8"))


def test_B1_1_tiles_and_face_pairs():
    pairs = Counter(TILE_FACES)
    assert pairs == {
        ("2", "3"): 7,
        ("1", "4"): 5,
        ("V", "5"): 3,
        ("Wn", "Wx"): 3,
        ("Sh", "Me"): 3,
        ("Su", "Se"): 2,
        ("Mo", "Le"): 2,
    }
    assert TILE_FACES[21] == ("Su", "Se") and TILE_FACES[24] == ("Mo", "Le")


def test_B1_3_B1_4_deck_composition():
    assert sorted(CARDS) == list(range(1, 76))
    kinds = Counter(c.type for c in CARDS.values())
    assert kinds == {GOO: 12, GREATER: 12, LESSER: 36, MINION: 15}
    for family in ("cthulhu", "hastur", "tsatso", "chaugnar"):
        mine = Counter(c.type for c in CARDS.values() if c.family == family)
        assert mine == {GOO: 3, GREATER: 3, LESSER: 9}
    assert all(len(CARDS[c].codes) == 5 for c in range(1, 13))  # B9.1: 5 distinct codes


def test_B1_6_card_34_reads_lunar_eclipse():
    assert CARDS[34].groups == ((("Su", "3"),), (("Le", "2"),))


def broken(card_id, field, value):
    raw = copy.deepcopy(RAW)
    card = next(c for c in raw["cards"] if c["id"] == card_id)
    card[field] = value
    return raw


@pytest.mark.parametrize(
    "card_id,field,value",
    [
        (17, "bonus", "Xx"),
        (40, "points", 3),
        (5, "constellation", [[["Mo", None], ["5"]]]),
        (61, "power", "Z"),
        (13, "invocation", "PQ"),
        (13, "invocation", "PS\n"),  # Python's "$" matches before a final newline
        (70, "family", "hastur"),
    ],
)
def test_malformed_card_names_the_card_and_the_field(card_id, field, value):
    with pytest.raises(ContentError) as err:
        load_content(broken(card_id, field, value))
    assert f"card {card_id}" in str(err.value) and f"'{field}'" in str(err.value)


def test_missing_card_is_refused():
    raw = copy.deepcopy(RAW)
    raw["cards"] = raw["cards"][:-1]
    with pytest.raises(ContentError, match="cards"):
        load_content(raw)
