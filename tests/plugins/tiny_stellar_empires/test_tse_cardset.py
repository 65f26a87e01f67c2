"""Card data: validation (TSE-T1, section 9), the card_set option, and rules that
follow a replacement card file."""

import copy
import json
from importlib import resources

import pytest
from marshmallow import ValidationError

from gameroom.core.decider import fold
from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.plugins.tiny_stellar_empires.content import (
    CardSetError,
    load_card_set,
    parse,
    register_card_sets,
)
from gameroom.plugins.tiny_stellar_empires.rules import empire_plays
from gameroom.plugins.tiny_stellar_empires.scenario import position
from gameroom.plugins.tiny_stellar_empires.scoring import breakdown
from gameroom.testing.conformance import play_random_match

G = TinyStellarEmpires()
SHIPPED = json.loads(
    resources.files("gameroom.plugins.tiny_stellar_empires")
    .joinpath("data", "tiny-stellar-empires.json")
    .read_text(encoding="utf-8")
)


def card(data, cid):
    for group in ("empire_cards", "attack_cards", "ambassador_cards", "homeworld_cards"):
        for c in data[group]:
            if c["id"] == cid:
                return c
    raise KeyError(cid)


def broken(change):
    data = copy.deepcopy(SHIPPED)
    change(data)
    with pytest.raises(CardSetError) as exc:
        parse(json.dumps(data))
    return str(exc.value)


def test_shipped_set_is_valid_and_marked_reconstructed():
    cards = load_card_set()
    assert len(cards["empire"]) == 42 and len(cards["attack"]) == 5
    assert len(cards["ambassador"]) == 3 and len(cards["homeworld"]) == 4
    assert cards["status"] == "RECONSTRUCTED"


def test_bad_cost_names_card_and_field():
    msg = broken(lambda d: card(d, "E05").update(cost=9))
    assert "E05" in msg and "'cost'" in msg


def test_missing_half_points_names_card_and_field():
    msg = broken(lambda d: card(d, "E17")["halves"]["A"].pop("points"))
    assert "E17" in msg and "halves.A.points" in msg


def test_unknown_ability_and_symbol_name_card_and_field():
    msg = broken(lambda d: card(d, "E20")["halves"]["B"].update(ability="teleport"))
    assert "E20" in msg and "halves.B.ability" in msg
    msg = broken(lambda d: card(d, "E21")["halves"]["A"]["symbols"].append("magic"))
    assert "E21" in msg and "halves.A.symbols" in msg
    msg = broken(lambda d: card(d, "G02").update(ends=["culture", "magic"]))
    assert "G02" in msg and "ends" in msg


def test_wormhole_with_routes_and_planet_without_are_refused():
    msg = broken(lambda d: card(d, "W02").update(routes={"a_left": 1, "a_right": 1}))
    assert "W02" in msg and "routes" in msg
    msg = broken(lambda d: card(d, "E09").update(routes=None))
    assert "E09" in msg and "routes" in msg


def test_T1_component_counts_are_checked():
    msg = broken(lambda d: d["empire_cards"].pop())
    assert "empire_cards" in msg and "42" in msg
    msg = broken(lambda d: card(d, "H03").update(id="H01"))
    assert "H01" in msg and "duplicate" in msg
    msg = broken(lambda d: card(d, "H04")["mission"].update(type="conquer_all"))
    assert "H04" in msg and "mission.type" in msg


def test_card_set_option_refuses_a_bad_file_at_load_time(tmp_path):
    data = copy.deepcopy(SHIPPED)
    card(data, "E33")["cost"] = 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValidationError) as exc:
        G.load_options({"card_set": "bad"})
    assert "E33" in str(exc.value.messages) and "cost" in str(exc.value.messages)
    with pytest.raises(ValidationError, match="no card set named 'missing'"):
        G.load_options({"card_set": "missing"})


def test_card_set_option_names_shipped_and_owner_installed_sets(tmp_path):
    for name in ("tiny-stellar-empires", "tiny-stellar-empires.json"):
        assert (
            load_card_set(G.load_options({"card_set": name})["card_set"])["hash"] == load_card_set()["hash"]
        )
    (tmp_path / "copy.json").write_text(json.dumps(SHIPPED))
    for name in ("copy", "copy.json"):
        assert (
            load_card_set(G.load_options({"card_set": name})["card_set"])["hash"] == load_card_set()["hash"]
        )


@pytest.mark.parametrize("name", ["tiny-stellar-empires\n", "copy\n", "copy.json\n", "copy\r\n"])
def test_a_card_set_name_with_a_trailing_newline_is_not_a_name(tmp_path, name):
    """Python's ``$`` matches before a final newline: ``"copy\\n"`` passed for a name and was
    looked for as a file ``copy\\n.json``."""
    (tmp_path / "copy.json").write_text(json.dumps(SHIPPED))
    with pytest.raises(ValidationError, match="never a path"):
        G.load_options({"card_set": name})
    with pytest.raises(CardSetError, match="letters, digits"):
        register_card_sets({name: tmp_path / "copy.json"})


def alternative(tmp_path):
    """A modified copy: E15 gets edges 2-9, E02 edges 5-5, E16 half A 9 points."""
    data = copy.deepcopy(SHIPPED)
    card(data, "E15")["routes"] = {"a_left": 2, "a_right": 9}
    card(data, "E02")["routes"] = {"a_left": 5, "a_right": 5}
    card(data, "E16")["halves"]["A"]["points"] = 9
    path = tmp_path / "alternative.json"
    path.write_text(json.dumps(data))
    return "alternative"


def test_rules_follow_an_alternative_card_file(tmp_path):
    alt = {"card_set": alternative(tmp_path)}
    hand = [["E15", "E02", "E30", "E31"], []]
    shipped = position(hands=hand, rows=[["E01/A"], []], phase="empire")
    changed = position(hands=hand, rows=[["E01/A"], []], phase="empire", options=alt)
    assert set(empire_plays(shipped, 0)) == {("E02", "A")}
    assert set(empire_plays(changed, 0)) == {("E15", "A")}  # left edge 2 now, E02 no longer fits
    assert breakdown(position(rows=[["E16/A"], []]))[0]["cards"] == 3
    assert breakdown(position(rows=[["E16/A"], []], options=alt))[0]["cards"] == 9


def test_replay_never_reads_the_card_file_again(tmp_path):
    name = alternative(tmp_path)
    path = tmp_path / f"{name}.json"
    folded, entries = play_random_match(G, 2, "alt-replay", thorough=False, options={"card_set": name})
    started = entries[0]["events"][0]
    assert started["set"]["empire"]["E16"]["A"]["points"] == 9
    with open(path, "w") as f:
        f.write("this file has changed")
    assert fold(G, entries).state == folded.state


def test_options_table_defaults_and_refusals():
    assert G.load_options({}) == {
        "card_set": "tiny-stellar-empires.json",
        "empire_play_mandatory": False,
        "max_attacks_per_turn": "one_per_opponent",
        "ambassador_targets": "attacked_own_card",
        "one_shot_timing": "on_play",
        "trade_count": "connections",
        "discard_pile_public": True,
        "stuck_redraw": "next_turn_start",
        "tie_breaker": "shared_victory",
    }
    assert G.load_options({"max_attacks_per_turn": 1})["max_attacks_per_turn"] == "1"
    for bad in (
        {"max_attacks_per_turn": True},
        {"max_attacks_per_turn": 2},
        {"trade_count": "diagonal"},
        {"unknown_option": 1},
    ):
        with pytest.raises(ValidationError):
            G.load_options(bad)


def test_card_set_paths_are_refused_even_inside_the_owners_folders(tmp_path):
    """A match option must not let a client make the server read its files: names only."""
    (tmp_path / "copy.json").write_text(json.dumps(SHIPPED))
    (tmp_path.parent / "elsewhere.json").write_text(json.dumps(SHIPPED))
    for value in (
        str(tmp_path / "copy.json"),
        str(tmp_path / ".." / "elsewhere.json"),
        "../elsewhere",
        "/etc/hostname",
        "gameroom.plugins.tiny_stellar_empires:data/tiny-stellar-empires.json",
        "gameroom.plugins.tiny_stellar_empires:../../setup.cfg",
        "service:/etc/passwd",
        "",
        ".json",
        "copy/",
        "./copy",
        "~/copy",
        "C:\\cards\\copy.json",
        "copy\x00.json",
    ):
        with pytest.raises(ValidationError, match="never a path|Length"):
            G.load_options({"card_set": value})
