"""Constellation matching (SAR-B8) and supporting servitors (SAR-B9)."""

import random

import pytest

from gameroom.plugin_api import IllegalMove
from gameroom.plugins.stars_are_right.content import CARDS
from gameroom.plugins.stars_are_right.matcher import pack_sky, raw_placements, rotate, visible, visible_cards
from gameroom.plugins.stars_are_right.naive import naive_visible
from gameroom.plugins.stars_are_right.scenario import S0, build_sky, parse_sky, position, step
from gameroom.plugins.stars_are_right.summon import summon_options

NO_MIRROR = {"allow_mirror": False, "dark_cells_may_overhang": False}
MIRROR = {"allow_mirror": True, "dark_cells_may_overhang": False}
S0_VISIBLE = [34, 35, 43, 44, 49, 51, 56, 70, 71, 72, 74, 75]


def packed(text=S0):
    sky, faces = parse_sky(text)
    return pack_sky(sky, faces)


def swap_cells(text, a, b):
    tokens = text.split()
    tokens[a], tokens[b] = tokens[b], tokens[a]
    return " ".join(tokens)


def set_cell(text, idx, token):
    tokens = text.split()
    tokens[idx] = token
    return " ".join(tokens)


def test_section9_S0_exact_visible_set():
    assert visible_cards(range(1, 76), packed(), NO_MIRROR) == S0_VISIBLE


def test_section9_S0_visible_set_is_the_same_with_mirror():
    assert visible_cards(range(1, 76), packed(), MIRROR) == S0_VISIBLE


def test_B8_2_quarter_turn_formula():
    g = (("a", "b", "c"), ("d", "e", "f"))
    # g'[r][c] = g[h-1-c][r]: the bottom-left cell comes to the top-left.
    assert rotate(g) == (("d", "a"), ("e", "b"), ("f", "c"))
    assert rotate(rotate(rotate(rotate(g)))) == g


@pytest.mark.parametrize(
    "shape,count",
    [((2, 4), 32), ((2, 3), 48), ((2, 2), 64), ((1, 4), 40), ((1, 3), 60), ((1, 2), 80), ((1, 1), 100)],
)
def test_B8_6_placement_counts(shape, count):
    h, w = shape
    grid = tuple(tuple("1" for _ in range(w)) for _ in range(h))
    assert len(raw_placements(grid, False, False)) == count
    assert len(raw_placements(grid, True, False)) == 2 * count


def test_example_14_placement_counts_for_a_2x4_group():
    grid = CARDS[1].groups[0]
    assert (len(grid), len(grid[0])) == (2, 4)
    assert len(raw_placements(grid, False, False)) == 32
    assert len(raw_placements(grid, True, False)) == 64


def test_B8_6_one_by_two_group_covers_40_distinct_cell_pairs():
    pairs = {
        frozenset(((r0, c0), (r0 + len(g) - 1, c0 + len(g[0]) - 1)))
        for g, r0, c0 in raw_placements((("1", "2"),), False, False)
    }
    assert len(pairs) == 40


def test_example_6_B8_2_B8_5_rotation_and_disjoint_groups():
    sky = packed()
    assert visible(34, sky, NO_MIRROR)  # Su/3 turned a quarter turn, Le 2 as printed
    assert not visible(25, sky, NO_MIRROR)  # both groups would need the 3 at (2,0)
    # Each group of #25 alone is visible: only disjointness fails.
    from gameroom.plugins.stars_are_right.matcher import group_placements

    for group in CARDS[25].groups:
        assert any(sky & m == v for m, v, _ in group_placements(group, False, False))


def test_example_7_B8_2_mirror_option():
    text = swap_cells(S0, 0, 1)  # row 0 = 3 2 1 V Wn
    sky = packed(text)
    assert not visible(17, sky, NO_MIRROR)
    assert visible(17, sky, MIRROR)


def test_example_8_B8_5_minion_groups_use_distinct_tiles():
    assert not visible(61, packed(), NO_MIRROR)  # only two V tiles
    flipped = set_cell(S0, 9, "V:13")  # (1,4): tile 13 shows V
    assert visible(61, packed(flipped), NO_MIRROR)


def test_B8_4_dark_cells_are_wildcards():
    # After example 1's push, Dagoon #14 (1 . Wn 2) sits on row 0 columns 1-4 with
    # the dark cell over V. Replacing that V by any other tile keeps it visible.
    pushed = "3:1 1:7 V:12 Wn:15 2:0 " + " ".join(S0.split()[5:])
    assert visible(14, packed(pushed), NO_MIRROR)
    for token in ("Mo:23", "4:8", "Se:22"):
        other = pushed.split()
        j = other.index(token)
        other[2], other[j] = other[j], other[2]
        assert visible(14, packed(" ".join(other)), NO_MIRROR)
    broken = pushed.split()
    broken[1] = "4:7"  # the 1 star under Dagoon's first cell turns to 4
    assert not visible(14, packed(" ".join(broken)), NO_MIRROR)


def test_B8_3_dark_cells_may_overhang_option():
    # Hastur #5 (Mo . V Le / 5 . . 4) with the Mo and 5 cells darkened by supporters
    # leaves ". . V Le / . . . 4": its dark left columns may hang off the sky only
    # with dark_cells_may_overhang.
    text = build_sky({0: "V:12", 1: "Le:24", 6: "4:8"})
    dark = frozenset({"Mo", "5"})
    strict = {"allow_mirror": False, "dark_cells_may_overhang": False}
    loose = {"allow_mirror": False, "dark_cells_may_overhang": True}
    assert not visible(5, packed(text), strict, dark)
    assert visible(5, packed(text), loose, dark)
    # End to end: Hastur #6 (. 4 . Mo / 5 V . Le) with #17 (4) and #16 (Mo) named has a
    # fully dark top row, so "5 V . Le" on sky row 0 needs the overhang.
    text = build_sky({0: "5:13", 1: "V:12", 3: "Le:24"})
    for overhang, expected in ((False, []), (True, [[16, 17]])):
        state = position(
            2,
            hands=[[6], []],
            tables=[[16, 17], []],
            phase="summon",
            sky=text,
            options={"dark_cells_may_overhang": overhang},
        )
        assert [m["supporters"] for m in summon_options(state, 0)] == expected


def test_fast_matcher_agrees_with_naive_reference_on_random_skies():
    rnd = random.Random(7)
    for trial in range(60):
        sky = list(range(25))
        rnd.shuffle(sky)
        faces = [rnd.randrange(2) for _ in range(25)]
        packed_sky = pack_sky(sky, faces)
        opts = {"allow_mirror": trial % 2 == 1, "dark_cells_may_overhang": trial % 3 == 0}
        for card in range(1, 76):
            assert visible(card, packed_sky, opts) == naive_visible(
                card, sky, faces, opts["allow_mirror"], opts["dark_cells_may_overhang"]
            ), (trial, card)
        for card in range(1, 13):
            dark = frozenset(rnd.sample(sorted(CARDS[card].codes), rnd.randrange(1, 4)))
            assert visible(card, packed_sky, opts, dark) == naive_visible(
                card, sky, faces, opts["allow_mirror"], opts["dark_cells_may_overhang"], dark
            )


# -- SAR-B9: supporting servitors -------------------------------------------


def example_9_position(opponent_goo=()):
    return position(2, hands=[[5], []], tables=[[16, 39, 41], list(opponent_goo)], phase="summon")


def test_example_9_supporting_servitors_and_cap():
    state = example_9_position()
    assert not visible(5, packed(), NO_MIRROR)
    options = summon_options(state, 0)
    assert {"type": "summon", "card": 5, "supporters": [16, 39, 41]} in options
    # No smaller set suffices in S0.
    assert [m for m in options if m["card"] == 5] == [
        {"type": "summon", "card": 5, "supporters": [16, 39, 41]}
    ]
    new, events = step(state, 0, {"type": "summon", "card": 5, "supporters": [41, 16, 39]})
    assert events[0]["discarded"] == [39, 41]
    assert sorted(new["tables"][0]) == [5, 16]
    assert new["discard"][-2:] == [39, 41]
    assert sum(CARDS[c].points for c in state["tables"][0]) == 4
    assert sum(CARDS[c].points for c in new["tables"][0]) == 6


def test_example_9_B9_3_cap_drops_to_two_when_an_opponent_controls_that_family():
    state = example_9_position(opponent_goo=[4])
    assert [m for m in summon_options(state, 0) if m["card"] == 5] == []
    with pytest.raises(IllegalMove) as err:
        step(state, 0, {"type": "summon", "card": 5, "supporters": [16, 39, 41]})
    assert err.value.code == "supporter-cap"
    for pair in ([16, 39], [16, 41], [39, 41]):
        with pytest.raises(IllegalMove) as err:
            step(state, 0, {"type": "summon", "card": 5, "supporters": pair})
        assert err.value.code == "pattern-not-matched"


def test_B9_1_supporter_rules():
    # Same bonus star twice: #39 (V) and #42 (V) cannot both be named.
    state = position(2, hands=[[5], []], tables=[[39, 42, 41], []], phase="summon")
    with pytest.raises(IllegalMove) as err:
        step(state, 0, {"type": "summon", "card": 5, "supporters": [39, 42]})
    assert err.value.code == "supporter-same-cell"
    # A servitor of another family cannot support.
    state = position(2, hands=[[5], []], tables=[[13], []], phase="summon")
    with pytest.raises(IllegalMove) as err:
        step(state, 0, {"type": "summon", "card": 5, "supporters": [13]})
    assert err.value.code == "bad-supporter"
    # Formless #43 (Tsatso, bonus Mo) covers no cell of Tsatso #7 (spec section 11).
    state = position(2, hands=[[7], []], tables=[[43], []], phase="summon")
    with pytest.raises(IllegalMove) as err:
        step(state, 0, {"type": "summon", "card": 7, "supporters": [43]})
    assert err.value.code == "supporter-no-cell"
    # Supporters only for a GOO.
    state = position(2, hands=[[34], []], tables=[[16], []], phase="summon")
    with pytest.raises(IllegalMove) as err:
        step(state, 0, {"type": "summon", "card": 34, "supporters": [16]})
    assert err.value.code == "bad-supporter"


def test_B9_5_unnecessary_supporters_and_tapped_supporters_are_allowed():
    # Hastur #4 (5 . 4 / Mo V Le) printed at rows 0-1, columns 0-2.
    text = build_sky({0: "5:13", 2: "4:8", 5: "Mo:23", 6: "V:12", 7: "Le:24"})
    assert visible(4, packed(text), NO_MIRROR)
    state = position(2, hands=[[4], []], tables=[[16, 39], []], phase="summon", sky=text, tapped=[16])
    options = [m["supporters"] for m in summon_options(state, 0) if m["card"] == 4]
    assert sorted(options) == [[], [16], [16, 39], [39]]
    new, _ = step(state, 0, {"type": "summon", "card": 4, "supporters": [16]})
    assert 16 in new["tables"][0] and 4 in new["tables"][0]


def test_B7_4_goo_family_limit():
    state = position(2, hands=[[5], []], tables=[[16, 39, 41, 4], []], phase="summon")
    assert [m for m in summon_options(state, 0) if m["card"] == 5] == []
    with pytest.raises(IllegalMove) as err:
        step(state, 0, {"type": "summon", "card": 5, "supporters": [16, 39, 41]})
    assert err.value.code == "goo-family-limit"


def test_B7_1_a_card_whose_pattern_is_not_visible_cannot_be_summoned():
    state = position(2, hands=[[25, 34], []], phase="summon")
    assert summon_options(state, 0) == [{"type": "summon", "card": 34, "supporters": []}]
    with pytest.raises(IllegalMove) as err:
        step(state, 0, {"type": "summon", "card": 25, "supporters": []})
    assert err.value.code == "pattern-not-matched"
