"""gameroom.jsoncodec: orjson on the hot paths must give the JSON the standard library gave."""

import json

import pytest

from gameroom import jsoncodec

SAMPLES = [
    {"b": 1, "a": [1, 2.5, None, True], "nested": {"x": "é✓", "y": [{"z": -0.1}]}},
    {1: "int key", "s": 'quote " and \\ and \n newline'},
    [1e-7, 123456789012, -5, "", {}],
    {"big": 2**70, "neg": -(2**65)},  # beyond orjson's 64-bit integers: the standard library takes over
]


@pytest.mark.parametrize("value", SAMPLES)
def test_dumps_gives_the_same_json_value_as_the_standard_library(value):
    out = jsoncodec.dumps(value)
    assert isinstance(out, bytes)
    assert json.loads(out) == json.loads(json.dumps(value))
    assert b" " not in jsoncodec.dumps({"a": [1, 2]})  # compact, as the responses were


def test_key_order_is_kept():
    assert list(json.loads(jsoncodec.dumps({"z": 1, "a": 2, "m": 3}))) == ["z", "a", "m"]


def test_big_integers_survive_a_store_round_trip(store):
    """Stored entries are decoded by the standard library: an integer beyond 64 bits stays exact."""
    big = 123456789012345678901234567890
    store.append("m-big", {"kind": "setup", "events": [{"type": "x", "n": big, "t": "é"}]}, 0)
    [entry] = store.read("m-big")
    assert entry["events"][0]["n"] == big and type(entry["events"][0]["n"]) is int
    assert entry["events"][0]["t"] == "é"


def test_what_orjson_refuses_is_encoded_as_before():
    circular = []
    circular.append(circular)
    with pytest.raises(ValueError):  # the standard library's verdict
        jsoncodec.dumps(circular)


def test_dumps_text_is_the_decoded_bytes():
    assert jsoncodec.dumps_text({"k": "é"}) == '{"k":"é"}'
