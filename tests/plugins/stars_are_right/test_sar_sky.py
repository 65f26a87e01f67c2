"""Phase 3, changing the sky (SAR-B6), and the worked examples 1-4 and 15."""

import pytest
from marshmallow import ValidationError

from gameroom.plugin_api import IllegalMove
from gameroom.plugins.stars_are_right import StarsAreRight
from gameroom.plugins.stars_are_right.matcher import pack_sky, visible
from gameroom.plugins.stars_are_right.scenario import position, step, steps, up_codes
from gameroom.plugins.stars_are_right.sky import legal_actions

NO_MIRROR = {"allow_mirror": False, "dark_cells_may_overhang": False}


def sky_phase(**pool):
    return position(2, hands=[[], []], phase="sky", pool=pool, invoked=36)


def row(state, r):
    return up_codes(state)[5 * r : 5 * r + 5]


def refused(state, move, code="no-cancel"):
    with pytest.raises(IllegalMove) as err:
        step(state, 0, move)
    assert err.value.code == code
    return err.value


def test_example_1_B6_2_push_with_wrap_around():
    state, _ = step(sky_phase(P=1), 0, {"type": "push", "line": "row", "index": 0, "direction": "left"})
    assert row(state, 0) == ["3", "1", "V", "Wn", "2"]
    assert state["sky"][:5] == [1, 7, 12, 15, 0]
    assert visible(14, pack_sky(state["sky"], state["faces"]), NO_MIRROR)


def test_B6_2_push_right_and_columns():
    state, _ = step(sky_phase(P=2), 0, {"type": "push", "line": "row", "index": 2, "direction": "right"})
    assert state["sky"][10:15] == [19, 2, 24, 3, 16]  # [A,B,C,D,E] -> [E,A,B,C,D]
    state, _ = step(state, 0, {"type": "push", "line": "col", "index": 0, "direction": "down"})
    assert [state["sky"][5 * r] for r in range(5)] == [20, 0, 8, 19, 22]


def test_example_2_B6_3_swap_adjacency():
    state = sky_phase(S=1)
    legal = legal_actions(state)
    assert {"type": "swap", "cells": [4, 9]} in legal  # (0,4)-(1,4)
    assert {"type": "swap", "cells": [16, 21]} in legal  # (3,1)-(4,1)
    refused(state, {"type": "swap", "cells": [4, 0]}, "not-adjacent")  # no wrap
    refused(state, {"type": "swap", "cells": [0, 6]}, "not-adjacent")  # diagonal
    state, _ = step(state, 0, {"type": "swap", "cells": [16, 21]})
    assert row(state, 3) == ["Se", "3", "4", "4", "2"]
    assert row(state, 4) == ["Me", "1", "V", "Wn", "2"]
    assert visible(14, pack_sky(state["sky"], state["faces"]), NO_MIRROR)


def test_B6_2_to_B6_4_action_counts():
    state = sky_phase(P=1, S=1, F=1)
    legal = legal_actions(state)
    assert sum(m["type"] == "push" for m in legal) == 20
    assert sum(m["type"] == "swap" for m in legal) == 40
    assert sum(m["type"] == "flip" for m in legal) == 25
    assert len(legal_actions(sky_phase(S=2))) == 40  # B6.1: only symbols in the pool


def test_example_3_B6_4_B6_5a_flip_once_per_tile():
    state, _ = step(sky_phase(F=2, S=1), 0, {"type": "flip", "cell": 6})
    assert up_codes(state)[6] == "Se" and state["sky"][6] == 21
    state, _ = step(state, 0, {"type": "swap", "cells": [6, 7]})  # tile 21 moves to (1,2)
    assert state["sky"][7] == 21
    refused(state, {"type": "flip", "cell": 7})
    assert {"type": "flip", "cell": 7} not in legal_actions(state)


def test_example_4_B6_5b_push_back_is_rejected():
    state, _ = step(sky_phase(P=2), 0, {"type": "push", "line": "row", "index": 2, "direction": "right"})
    refused(state, {"type": "push", "line": "row", "index": 2, "direction": "left"})


def test_example_4_B6_5c_same_pair_swapped_twice_is_rejected():
    state, _ = step(sky_phase(S=2), 0, {"type": "swap", "cells": [0, 1]})
    refused(state, {"type": "swap", "cells": [0, 1]})


def test_example_4_B6_5d_fifth_push_recreates_the_start():
    state = steps(sky_phase(P=5), 0, [{"type": "push", "line": "row", "index": 0, "direction": "right"}] * 4)
    refused(state, {"type": "push", "line": "row", "index": 0, "direction": "right"})


def test_example_4_B6_5d_swaps_restoring_S0_are_rejected():
    state, _ = step(sky_phase(P=1, S=4), 0, {"type": "push", "line": "row", "index": 0, "direction": "right"})
    assert row(state, 0) == ["Wn", "2", "3", "1", "V"]
    state = steps(
        state,
        0,
        [
            {"type": "swap", "cells": [0, 1]},
            {"type": "swap", "cells": [1, 2]},
            {"type": "swap", "cells": [2, 3]},
        ],
    )
    assert row(state, 0) == ["2", "3", "1", "Wn", "V"]
    err = refused(state, {"type": "swap", "cells": [3, 4]})
    assert "B6.5d" in err.message


def test_B6_5_no_cancel_checks_option_abd_allows_a_repeated_pair():
    moves = [
        {"type": "swap", "cells": [0, 1]},
        {"type": "push", "line": "row", "index": 0, "direction": "right"},
        {"type": "swap", "cells": [1, 2]},
    ]  # tiles 1 and 0 again, on new cells
    state = position(2, hands=[[], []], phase="sky", pool={"S": 2, "P": 1}, invoked=36)
    state = steps(state, 0, moves[:2])
    refused(state, moves[2])
    state = position(
        2, hands=[[], []], phase="sky", pool={"S": 2, "P": 1}, invoked=36, options={"no_cancel_checks": "abd"}
    )
    state = steps(state, 0, moves)
    assert state["phase"] == "summon"


@pytest.mark.parametrize(
    "move, message",
    [
        ({"type": "swap", "cells": [0, 25]}, "Each of 'cells' must be a cell index 0..24."),
        ({"type": "swap", "cells": [-1, 0]}, "Each of 'cells' must be a cell index 0..24."),
        ({"type": "swap", "cells": ["0", 1]}, "Each of 'cells' must be a cell index 0..24."),
        ({"type": "flip", "cell": 25}, "'cell' must be a cell index 0..24."),
        ({"type": "flip"}, "'cell' must be a cell index 0..24."),
    ],
)
def test_a_cell_out_of_range_is_refused_naming_the_field_the_client_sent(move, message):
    err = refused(sky_phase(S=1, F=1), move, "bad-cell")
    assert err.message == message


@pytest.mark.parametrize("value", ["ab\n", "\n", "abcd\n", "ab\r\n", "aa", "e"])
def test_no_cancel_checks_refuses_anything_but_distinct_letters_abcd_a_trailing_newline_too(value):
    with pytest.raises(ValidationError) as err:
        StarsAreRight().load_options({"no_cancel_checks": value})
    assert "no_cancel_checks" in err.value.messages
    assert StarsAreRight().load_options({"no_cancel_checks": "ab"})["no_cancel_checks"] == "ab"


def test_B6_1_every_symbol_must_be_carried_out_before_summoning():
    state = sky_phase(P=1, F=1)
    refused(state, {"type": "skip_summon"}, "wrong-phase")
    refused(state, {"type": "push", "line": "row", "index": 0, "direction": "up"}, "bad-direction")
    state, _ = step(state, 0, {"type": "flip", "cell": 0})
    refused(state, {"type": "flip", "cell": 1}, "symbol-not-in-pool")
    assert state["phase"] == "sky"


def test_B6_6_symbol_without_legal_action_is_forfeited():
    state = sky_phase(P=1, F=1)
    state["nc"]["flipped"] = list(range(25))  # artificially: every tile already flipped
    state, events = step(state, 0, {"type": "push", "line": "row", "index": 0, "direction": "right"})
    assert [e["type"] for e in events] == ["pushed", "symbol_forfeited"]
    assert events[1]["symbol"] == "F"
    assert state["phase"] == "summon" and state["pool"] == {"P": 0, "S": 0, "F": 0}


def test_B6_7_invoked_card_is_discarded_when_the_pool_is_empty():
    state, _ = step(sky_phase(F=1), 0, {"type": "flip", "cell": 0})
    assert state["invoked"] is None and state["discard"] == [36]
    assert state["phase"] == "summon" and state["nc"] is None


def test_example_15_B5_10_B6_6_maximum_pool():
    state = position(2, hands=[[10], []], tables=[[1, 4, 7, 13, 16, 19], []])
    state, _ = step(state, 0, {"type": "invoke", "card": 10})
    for creature in (1, 4, 7, 13, 16, 19):
        state, _ = step(state, 0, {"type": "use_service", "creature": creature})
    assert state["pool"] == {"P": 12, "S": 0, "F": 0}
    state, _ = step(state, 0, {"type": "end_services"})
    skies = [list(state["sky"])]
    for r in range(3):
        for _ in range(4):
            state, _ = step(state, 0, {"type": "push", "line": "row", "index": r, "direction": "right"})
            skies.append(list(state["sky"]))
    assert len({tuple(s) for s in skies}) == 13  # every state differs from all earlier ones
    assert state["phase"] == "summon" and state["discard"] == [10]
    # Each row pushed right 4 times equals one push left.
    start = position(2)["sky"]
    for r in range(3):
        assert state["sky"][5 * r : 5 * r + 5] == start[5 * r + 1 : 5 * r + 5] + start[5 * r : 5 * r + 1]


def test_sky_sentences_count_rows_and_columns_from_1_as_the_board_labels_them():
    """The board labels the tiles "row 1 column 2" and its arrows "push column 5 down": the
    history tells the same moves in the same words, never 0-based."""
    game, names = StarsAreRight(), ["Ana", "Bo"]
    state = sky_phase(P=1, S=1, F=1)
    said = []
    for move in (
        {"type": "push", "line": "col", "index": 4, "direction": "down"},
        {"type": "swap", "cells": [1, 6]},
        {"type": "flip", "cell": 18},
    ):
        state, events = step(state, 0, move)
        said += [game.describe(e, 1, names) for e in events if e["type"] in ("pushed", "swapped", "flipped")]
    assert said == [
        "Ana pushed column 5 down.",
        "Ana swapped the tiles at row 1 column 2 and row 2 column 2.",
        "Ana flipped the tile at row 4 column 4.",
    ]
