"""LATS-R3 (sun), R4 (line cards), R5 (shooting stars); worked examples 1, 2, 11, 12."""

import pytest

from gameroom.plugin_api import IllegalMove
from gameroom.plugins.look_at_the_stars.geometry import placements, rotate
from gameroom.plugins.look_at_the_stars.scenario import (
    GAME,
    canon,
    new_state,
    score,
    step,
    with_lines,
    with_player,
    with_points,
)

SHOOTING = 27


def placed(state, seat=0):
    return [m for m in GAME.legal_moves(state, seat) if m["type"] in ("place_card", "place_shooting_star")]


def refused(state, move, code, seat=0):
    with pytest.raises(IllegalMove) as info:
        GAME.decide(state, seat, move, None)
    assert info.value.code == code
    return info.value


def card_move(r, dx, dy):
    return {"type": "place_card", "rotation": r, "dx": dx, "dy": dy}


def test_example_1_rotation():
    assert [rotate(1, 2, 1), rotate(2, 1, 1), rotate(3, 1, 1)] == [(2, 2), (1, 1), (1, 0)]
    _state, events = step(new_state(sheets=[0], card=4), 0, card_move(1, 3, 4))
    assert sorted(events[0]["lines"]) == sorted([canon("5,6-4,5"), canon("4,5-4,4")])


@pytest.mark.parametrize("card,turn,count", [(0, 1, 183), (2, 1, 86), (3, 1, 66), (2, 7, 68), (2, 13, 41)])
def test_example_2_placement_counts(card, turn, count):
    assert len(placed(new_state(sheets=[0], card=card, turn=turn))) == count


def test_example_2_shooting_star_counts():
    moves = placed(new_state(sheets=[0], card=SHOOTING))
    by_length = {n: sum(1 for m in moves if m["length"] == n) for n in (1, 2, 3)}
    assert by_length == {1: 93, 2: 59, 3: 36}


def test_R4_2_each_line_set_listed_once_in_canonical_order():
    moves = placed(new_state(sheets=[0], card=0))
    keys = [(m["dx"], m["dy"], m["rotation"]) for m in moves]
    assert keys == sorted(keys)
    sets = [frozenset(p[4]) for p in placements(GAME_CARD_SHAPE(0), False)]
    assert len(sets) == len(set(sets))


def GAME_CARD_SHAPE(card):
    from gameroom.plugins.look_at_the_stars.content import CONTENT

    return CONTENT.night_cards[card].shape


def test_R4_2_duplicate_placement_is_refused_and_mirror_needs_option():
    state = new_state(sheets=[0], card=2)
    # Card 2 turned twice covers the same lines as an earlier (dx, dy, r): one move only.
    ok = {(m["dx"], m["dy"], m["rotation"]) for m in placed(state)}
    assert (2, 2, 0) in ok and (2, 1, 2) not in ok
    refused(state, card_move(2, 2, 1), "duplicate-placement")
    refused(state, {**card_move(0, 2, 2), "mirror": True}, "mirror-not-allowed")
    mirrored = new_state(sheets=[0], card=4, allow_mirror=True)
    assert any(m.get("mirror") for m in placed(mirrored))
    assert len(placed(mirrored)) > len(placed(new_state(sheets=[0], card=4)))


def test_R4_1_both_lines_or_nothing():
    # Card 2 at (-1, 1): 0,2-1,2 and 1,2-2,2; 2,2 is a planet -> the whole placement is illegal.
    state = new_state(sheets=[0], card=2)
    refused(state, card_move(0, -1, 1), "not-a-usable-star")
    after, _ = step(state, 0, card_move(0, 2, 2))
    assert len(after["players"][0]["lines"]) == 4


def test_R4_3_unusable_points():
    state = new_state(sheets=[0], card=2)
    refused(state, card_move(0, 2, -1), "not-a-usable-star")  # 3,0-4,0: fixed no-star points
    refused(state, card_move(0, -1, 4), "not-a-usable-star")  # 0,5: illustration point
    refused(state, card_move(0, -1, 9), "not-a-usable-star")  # 0,10: outside the dome
    refused(state, card_move(0, 5, 4), "not-a-usable-star")  # 7,5: planet
    covered = with_points(state, 0, "twinkles", "5,3")
    refused(covered, card_move(0, 3, 2), "not-a-usable-star")  # 4,3-5,3-6,3 over a twinkling star
    nova = with_points(with_lines(state, 0, "4,3-4,4"), 0, "novas", "4,3")
    step(nova, 0, card_move(0, 2, 2))  # a star carrying a nova stays usable


def test_R4_4_no_doubled_lines():
    state = with_lines(new_state(sheets=[0], card=2), 0, "4,3-5,3")
    refused(state, card_move(0, 3, 2), "line-exists")
    # Pre-drawn line 4,9-5,9 counts too.
    refused(new_state(sheets=[0], card=2), card_move(0, 2, 8), "line-exists")


def test_R4_5_lines_may_cross_and_touch():
    state = with_lines(new_state(sheets=[0], card=3), 0, "4,4-3,5")
    # Card 3 at (2, 2): 3,3-4,4 and 4,4-5,5 share 4,4; another placement crosses 3,4-4,5 / 4,4-3,5.
    after, _ = step(state, 0, card_move(0, 2, 2))
    assert score(after)["constellations"] == 3
    step(state, 0, card_move(0, 2, 3))  # 3,4-4,5 crosses 4,4-3,5: allowed


def test_R4_6_lines_may_not_touch_a_shooting_star():
    from gameroom.plugins.look_at_the_stars.scenario import key

    state = with_player(new_state(sheets=[0], card=2), 0, shooting=[[key("4,4-5,5")]], heads=[44])
    refused(state, card_move(0, 3, 3), "touches-shooting-star")  # 4,4-5,4-6,4 shares 4,4
    state3 = with_player(new_state(sheets=[0], card=3), 0, shooting=[[key("4,4-5,5")]], heads=[44])
    refused(state3, card_move(1, 3, 3), "touches-shooting-star")  # r=1: 4,5-5,4 crosses it


def test_R4_7_lines_may_not_touch_an_aura_group():
    state = with_lines(new_state(sheets=[0], card=2), 0, "4,3-5,3", "5,3-6,3", "6,3-6,4")
    state = with_points(state, 0, "auras", "4,3")
    refused(state, card_move(0, 5, 2), "touches-aura")  # 6,3-7,3-8,3 touches at 6,3
    step(state, 0, card_move(0, 5, 6))  # elsewhere is fine


def test_R4_8_card_lines_may_join_groups():
    state = with_lines(new_state(sheets=[0], card=11), 0, "1,3-1,4", "3,3-3,4")
    # Card 11 (two verticals, one column apart) at (0, 1): 1,2-1,3 and 3,2-3,3 extend both groups.
    after, _ = step(state, 0, card_move(0, 0, 1))
    from gameroom.plugins.look_at_the_stars.state import groups_of

    sizes = sorted(len(g) for g in groups_of(after["players"][0]["lines"]))
    assert sizes.count(2) == 2


def test_example_11_shooting_star_touching():
    state = with_lines(new_state(sheets=[0], card=SHOOTING), 0, "4,4-5,5")
    move = {"type": "place_shooting_star", "length": 1, "rotation": 1, "dx": 3, "dy": 3}  # 5,4-4,5
    refused(state, move, "shooting-star-touches")
    state = with_lines(new_state(sheets=[0], card=SHOOTING), 0, "4,3-5,3")
    # 3,1-4,2-5,3; the canonical placement of that line set is r=2 at (2, 0) (R4.2: same lines, same move).
    three = {"type": "place_shooting_star", "length": 2, "rotation": 2, "dx": 2, "dy": 0}
    refused(state, three, "shooting-star-touches")
    fresh = new_state(sheets=[0], card=SHOOTING)
    after, events = step(fresh, 0, three)
    assert events[0]["segments"] == [canon("3,1-4,2"), canon("4,2-5,3")] and events[0]["head"] == [5, 3]
    # Later, no card line may touch the shooting star.
    from gameroom.plugins.look_at_the_stars.scenario import set_card

    later = set_card(with_player(after, 0, drawn=False), 2)
    refused(later, card_move(0, 4, 2), "touches-shooting-star")  # 5,3-6,3-7,3 starts on 5,3


def test_R5_1_shooting_star_lengths_and_score():
    state = new_state(sheets=[0], card=SHOOTING)
    lengths = {m["length"] for m in placed(state)}
    assert lengths == {1, 2, 3}
    refused(
        state, {"type": "place_shooting_star", "length": 4, "rotation": 0, "dx": 0, "dy": 0}, "bad-length"
    )
    refused(state, card_move(0, 2, 2), "wrong-card-kind")
    after, _ = step(state, 0, {"type": "place_shooting_star", "length": 3, "rotation": 0, "dx": 3, "dy": 1})
    assert score(after)["shooting_stars"] == 3


def test_R5_3_shooting_star_is_not_a_line():
    state = new_state(sheets=[0], card=SHOOTING)
    after, _ = step(state, 0, {"type": "place_shooting_star", "length": 3, "rotation": 0, "dx": 3, "dy": 1})
    s = score(after)
    assert s["constellations"] == 0 and s["point_bonus"] == 0


def test_R5_4_shooting_star_never_triggers_power():
    # Planet power shape (3 horizontal lines) is nearly complete; a shooting star cannot finish it.
    state = with_lines(
        new_state(sheets=[0], card=SHOOTING, power_bonus_card="planet"), 0, "3,3-4,3", "4,3-5,3", "5,3-6,3"
    )
    after, _events = step(
        state, 0, {"type": "place_shooting_star", "length": 1, "rotation": 0, "dx": 3, "dy": 5}
    )
    assert after["players"][0]["pending"] == []
    assert GAME.legal_moves(after, 0) == [{"type": "confirm_turn"}]


def test_R3_1_sun_closes_rows_per_pile():
    for turn, low in ((1, 0), (6, 0), (7, 2), (12, 2), (13, 4), (18, 4)):
        state = new_state(sheets=[0], card=2, turn=turn)
        ys = {m["dy"] + 1 for m in placed(state)}  # card 2 sits on local row 1 for r=0
        rows = {m["dy"] + 1 for m in placed(state) if m["rotation"] == 0}
        assert min(rows) == low, (turn, ys)


def test_example_12_R3_2_sun_blocks_closed_rows():
    state = new_state(sheets=[0], card=2, turn=7)
    refused(state, card_move(0, -1, 0), "closed-row")  # 0,1-1,1 / 1,1-2,1
    step(state, 0, card_move(0, 2, 1))  # 3,2-4,2 / 4,2-5,2


def test_R3_3_drawings_in_closed_rows_keep_scoring():
    state = with_lines(new_state(sheets=[0], card=2, turn=13), 0, "0,0-1,1", "1,1-1,2", "1,2-1,3")
    assert score(state)["total"] == 4


def test_R2_4_skip_is_always_legal():
    state = new_state(sheets=[0], card=2)
    assert {"type": "skip_card"} in GAME.legal_moves(state, 0)
    # Even with no legal placement at all (every star blocked).
    from gameroom.plugins.look_at_the_stars.content import CONTENT

    full = with_player(state, 0, twinkles=sorted(CONTENT.sheets[0].stars))
    assert GAME.legal_moves(full, 0) == [{"type": "skip_card"}]
    after, events = step(full, 0, {"type": "skip_card"})
    assert events[0]["type"] == "card_skipped" and GAME.legal_moves(after, 0) == [{"type": "confirm_turn"}]
