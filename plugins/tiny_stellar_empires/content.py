"""Card sets: finding, validating and compacting a card data file.

A card set is a JSON file with the structure of the shipped
``data/tiny-stellar-empires.json`` (schema ``tiny-stellar-empires/1``). The
shipped list is a reconstruction (the published list is not public), so the
rules engine never names a card: everything it needs comes from the compact
form built by :func:`compact`, which is recorded in the setup event and in the
state so that replay never reads a file again.

A file that breaks the schema raises :class:`CardSetError` whose message names
the card id and the field (``card E05, field 'halves.A.points': ...``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from importlib import resources
from pathlib import Path

from marshmallow import Schema, fields, validate

DEFAULT_CARD_SET = "tiny-stellar-empires.json"
SCHEMA_ID = "tiny-stellar-empires/1"

#: TSE-T1: the component counts every card set must have.
COUNTS = {"empire_cards": 42, "attack_cards": 5, "ambassador_cards": 3, "homeworld_cards": 4}

#: The ability kinds the engine implements (TSE-T29..T44), with their timing.
ABILITY_TIMINGS = {
    "plus1": "end_game",
    "plus2": "end_game",
    "double": "end_game",
    "ambassador_bonus": "end_game",
    "trade_routes": "end_game",
    "protection": "ongoing",
    "look": "ongoing",
    "discount": "ongoing",
    "take": "one_shot",
    "discard": "one_shot",
    "thrive": "one_shot",
    "threat": "one_shot",
    "info": "one_shot",
    "rebirth": "one_shot",
    "bully": "one_shot",
    "loss": "one_shot",
}
#: The secret-mission types the engine can evaluate (TSE-T48).
MISSION_TYPES = ("warmonger", "wormholes_in_row", "ability_kinds_shown", "distinct_symbols")


class CardSetError(ValueError):
    """A card data file that cannot be used; the message names card and field."""


# -- structural schemas -------------------------------------------------------


class _Half(Schema):
    points = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    symbols = fields.List(fields.String(), required=True)
    ability = fields.String(required=True, allow_none=True)


class _Halves(Schema):
    A = fields.Nested(_Half, required=True)
    B = fields.Nested(_Half, required=True)


class _Routes(Schema):
    a_left = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    a_right = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))


class _Empire(Schema):
    class Meta:
        unknown = "include"

    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["planet", "wormhole"]))
    cost = fields.Integer(required=True, strict=True, validate=validate.Range(1, 4))
    routes = fields.Nested(_Routes, required=True, allow_none=True)
    halves = fields.Nested(_Halves, required=True)


class _Attack(Schema):
    class Meta:
        unknown = "include"

    id = fields.String(required=True)
    name = fields.String(required=True)
    extra_cost = fields.Integer(required=True, strict=True, validate=validate.Range(0, 5))
    count_in_deck = fields.Integer(strict=True, validate=validate.Equal(1))


class _Ambassador(Schema):
    class Meta:
        unknown = "include"

    id = fields.String(required=True)
    name = fields.String(required=True)
    ends = fields.List(fields.String(), required=True, validate=validate.Length(equal=2))


class _Mission(Schema):
    class Meta:
        unknown = "include"

    id = fields.String(required=True)
    type = fields.String(required=True, validate=validate.OneOf(MISSION_TYPES))
    symbol = fields.String()
    tiers = fields.List(
        fields.List(fields.Integer(strict=True), validate=validate.Length(equal=2)),
        required=True,
        validate=validate.Length(min=1),
    )


class _Homeworld(Schema):
    class Meta:
        unknown = "include"

    id = fields.String(required=True)
    name = fields.String(required=True)
    main_symbol = fields.String(required=True)
    mission = fields.Nested(_Mission, required=True)


class _Constants(Schema):
    class Meta:
        unknown = "include"

    turns_per_player = fields.Dict(
        keys=fields.String(validate=validate.OneOf(["2", "3", "4"])),
        values=fields.Integer(strict=True, validate=validate.Range(1, 20)),
        required=True,
    )
    hand_size = fields.Integer(required=True, strict=True, validate=validate.Range(1, 10))
    exchange_max = fields.Integer(required=True, strict=True, validate=validate.Range(0, 5))
    wormhole_route_value = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=0)
    )
    majority_vp = fields.Dict(required=True)
    symbol_weights = fields.Dict(required=True)
    tucked_card_vp = fields.Integer(required=True, strict=True)
    minimum_empire_cost_after_discounts = fields.Integer(
        required=True, strict=True, validate=validate.Range(0, 4)
    )


class _File(Schema):
    class Meta:
        unknown = "include"

    schema = fields.String(required=True, validate=validate.Equal(SCHEMA_ID))
    rules_constants = fields.Nested(_Constants, required=True)
    symbols = fields.List(fields.String(), required=True, validate=validate.Length(min=1))
    abilities = fields.List(fields.Dict(), required=True)
    empire_cards = fields.List(fields.Dict(), required=True)
    attack_cards = fields.List(fields.Dict(), required=True)
    ambassador_cards = fields.List(fields.Dict(), required=True)
    homeworld_cards = fields.List(fields.Dict(), required=True)


def _flatten(errors, prefix=""):
    """marshmallow's nested error dict as ``["path: message", ...]``."""
    out = []
    if isinstance(errors, dict):
        for key, value in errors.items():
            out += _flatten(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(errors, list) and errors and all(isinstance(e, str) for e in errors):
        out.append(f"field '{prefix}': {' '.join(errors)}")
    else:
        for item in errors or []:
            out += _flatten(item, prefix)
    return out


def _fail(card, field, message):
    raise CardSetError(f"card {card}, field '{field}': {message}")


def _check(schema, data, what):
    errors = schema().validate(data) if isinstance(data, dict) else {"_schema": ["Not an object."]}
    if errors:
        raise CardSetError(f"{what}, {_flatten(errors)[0]}")


# -- validation -------------------------------------------------------------------


def validate_data(data) -> None:
    """Check a parsed card file (TSE-T1 and section 9); raise :class:`CardSetError`."""
    if not isinstance(data, dict):
        raise CardSetError("card set: the file must hold a JSON object")
    _check(_File, data, "card set")
    symbols = set(data["symbols"])
    known_abilities = {}
    for i, ability in enumerate(data["abilities"]):
        aid = ability.get("id", f"#{i}")
        if aid not in ABILITY_TIMINGS:
            _fail(f"ability {aid}", "id", "unknown ability kind")
        if ability.get("timing") != ABILITY_TIMINGS[aid]:
            _fail(f"ability {aid}", "timing", f"must be {ABILITY_TIMINGS[aid]!r}")
        known_abilities[aid] = ability["timing"]
    for group, count in COUNTS.items():
        if len(data[group]) != count:
            raise CardSetError(
                f"card set, field '{group}': needs exactly {count} cards (TSE-T1), "
                f"found {len(data[group])}"
            )
    seen = set()
    plan = [
        ("empire_cards", _Empire),
        ("attack_cards", _Attack),
        ("ambassador_cards", _Ambassador),
        ("homeworld_cards", _Homeworld),
    ]
    for group, schema in plan:
        for i, card in enumerate(data[group]):
            cid = (
                card.get("id")
                if isinstance(card, dict) and isinstance(card.get("id"), str)
                else f"{group}[{i}]"
            )
            _check(schema, card, f"card {cid}")
            if cid in seen:
                _fail(cid, "id", "duplicate card id")
            seen.add(cid)
            if group == "empire_cards":
                _check_empire(card, symbols, known_abilities)
            elif group == "ambassador_cards":
                for k, sym in enumerate(card["ends"]):
                    if sym not in symbols:
                        _fail(cid, f"ends.{k}", f"unknown symbol {sym!r}")
            elif group == "homeworld_cards":
                if card["main_symbol"] not in symbols:
                    _fail(cid, "main_symbol", f"unknown symbol {card['main_symbol']!r}")
                if card["mission"].get("symbol", "military") not in symbols:
                    _fail(cid, "mission.symbol", "unknown symbol")


def _check_empire(card, symbols, abilities):
    cid = card["id"]
    if card["kind"] == "wormhole" and card["routes"] is not None:
        _fail(cid, "routes", "a wormhole must have routes = null (TSE-T8)")
    if card["kind"] == "planet" and card["routes"] is None:
        _fail(cid, "routes", "a planet needs routes {a_left, a_right} (TSE-T8)")
    for side in ("A", "B"):
        half = card["halves"][side]
        for k, sym in enumerate(half["symbols"]):
            if sym not in symbols:
                _fail(cid, f"halves.{side}.symbols.{k}", f"unknown symbol {sym!r}")
        if half["ability"] is not None and half["ability"] not in abilities:
            _fail(cid, f"halves.{side}.ability", f"unknown ability {half['ability']!r}")


# -- compact form ----------------------------------------------------------------------


def compact(data) -> dict:
    """The part of a validated card file the rules need, as plain JSON data."""
    rc = data["rules_constants"]
    maj = rc["majority_vp"]
    weights = rc["symbol_weights"]
    empire = {}
    for card in data["empire_cards"]:
        routes = card["routes"]
        empire[card["id"]] = {
            "kind": card["kind"],
            "cost": card["cost"],
            "routes": None if routes is None else [routes["a_left"], routes["a_right"]],
            "A": {k: card["halves"]["A"][k] for k in ("points", "symbols", "ability")},
            "B": {k: card["halves"]["B"][k] for k in ("points", "symbols", "ability")},
        }
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    return {
        "hash": hashlib.sha256(canonical).hexdigest()[:16],
        "status": data.get("status", ""),
        "symbols": list(data["symbols"]),
        "abilities": {a["id"]: a["timing"] for a in data["abilities"]},
        "empire": empire,
        "attack": {c["id"]: c["extra_cost"] for c in data["attack_cards"]},
        "ambassador": {c["id"]: list(c["ends"]) for c in data["ambassador_cards"]},
        "homeworld": {
            c["id"]: {
                "main": c["main_symbol"],
                "mission": {
                    "type": c["mission"]["type"],
                    "symbol": c["mission"].get("symbol", "military"),
                    "tiers": [list(t) for t in c["mission"]["tiers"]],
                },
            }
            for c in data["homeworld_cards"]
        },
        "names": {c["id"]: c["name"] for g in COUNTS for c in data[g]},
        "rules": {
            "turns": {str(k): v for k, v in rc["turns_per_player"].items()},
            "hand_size": rc["hand_size"],
            "exchange_max": rc["exchange_max"],
            "wormhole": rc["wormhole_route_value"],
            "majority": [maj.get("sole_leader", 2), maj.get("tied_leader", 1)],
            "weights": [
                weights.get("empire_card_symbol", 1),
                weights.get("ambassador_symbol", 2),
                weights.get("homeworld_main_symbol", 3),
            ],
            "tucked_vp": rc["tucked_card_vp"],
            "min_cost": rc["minimum_empire_cost_after_discounts"],
        },
    }


# -- finding and loading ------------------------------------------------------------------

_PACKAGE_REF = re.compile(r"^([A-Za-z_][\w.]*):(.+)$")


#: Folders (os.pathsep-separated) from which ``card_set`` may name a file by path.
#: Empty by default: a match option must not let any client read the server's files.
CARD_SET_DIRS_ENV = "GAMEROOM_TSE_CARD_SET_DIRS"


def _allowed_path(spec: str) -> Path:
    path = Path(spec).resolve()
    roots = [Path(d).resolve() for d in os.environ.get(CARD_SET_DIRS_ENV, "").split(os.pathsep) if d]
    if not any(path.is_relative_to(root) for root in roots):
        raise CardSetError(
            f"card_set: files may be named by path only inside the folders in {CARD_SET_DIRS_ENV}; "
            "use 'package:resource' for a card set installed as a package"
        )
    return path


def read_text(spec: str) -> str:
    """The text of the card file named by ``spec`` (see :func:`load_card_set`)."""
    match = _PACKAGE_REF.match(spec)
    if match and len(match.group(1)) > 1:  # "C:\..." is a Windows path, not a package
        package, resource = match.groups()
        if ".." in Path(resource).parts:
            raise CardSetError("card_set: a package resource may not leave its package")
        try:
            return resources.files(package).joinpath(resource).read_text(encoding="utf-8")
        except (ModuleNotFoundError, FileNotFoundError, IsADirectoryError, TypeError) as exc:
            raise CardSetError(
                f"card_set: cannot read {resource!r} from package {package!r} "
                f"({type(exc).__name__})"
            ) from None
    if "/" not in spec and "\\" not in spec:
        packaged = resources.files(__package__).joinpath("data", spec)
        if packaged.is_file():
            return packaged.read_text(encoding="utf-8")
    path = _allowed_path(spec)
    if not path.is_file():
        raise CardSetError(f"card_set: no card file at {spec!r}")
    return path.read_text(encoding="utf-8")


def parse(text: str, origin: str = "card set") -> dict:
    """Validate card-file text and return its compact form."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CardSetError(f"{origin}: not valid JSON ({exc})") from None
    validate_data(data)
    return compact(data)


def load_card_set(spec: str = DEFAULT_CARD_SET) -> dict:
    """Load the card set ``spec`` names and return its compact form.

    ``spec`` is a bare file name in this package's ``data`` folder (the
    default), ``package:resource`` (a data file in an installed package) or a
    filesystem path to a JSON file inside one of the folders listed in the
    server's ``GAMEROOM_TSE_CARD_SET_DIRS`` (none by default, so that a match
    option cannot make the server read arbitrary files).
    """
    if spec == DEFAULT_CARD_SET:
        return DEFAULT
    return parse(read_text(spec), f"card_set {spec!r}")


#: The shipped (reconstructed) card set, validated at import.
DEFAULT = parse(read_text(DEFAULT_CARD_SET), DEFAULT_CARD_SET)
