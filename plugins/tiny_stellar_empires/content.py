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
import stat
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
    wormhole_route_value = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
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
                f"card set, field '{group}': needs exactly {count} cards (TSE-T1), found {len(data[group])}"
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
#
# A client names a card set; it never gives a path. The names are those of the sets
# the server's owner installed: the JSON files shipped in this package's ``data``
# folder, the sets other plugins register (the ``gameroom_content`` hook, kind
# ``card_set``), and ``<name>.json`` files in the folders the owner lists in
# GAMEROOM_CARD_SET_DIRS. A value that is not a name is refused before any file is
# touched, so no refusal can tell whether some file exists.

#: Folders (os.pathsep-separated) whose ``<name>.json`` files are card sets named ``<name>``.
CARD_SET_DIRS_ENV = "GAMEROOM_CARD_SET_DIRS"

#: Largest card file read, in bytes (the shipped one has about 23 KB).
MAX_CARD_SET_BYTES = 1 << 20

#: A whole card set name (always with ``fullmatch``: ``$`` would also take a final newline).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}(\.json)?")

#: Card sets other plugins registered: name -> a file (importlib Traversable or Path).
_REGISTERED: dict = {}


def register_card_sets(files: dict) -> None:
    """Make the card sets ``{name: file}`` (from the ``gameroom_content`` hook) nameable."""
    for name, source in files.items():
        if not _NAME.fullmatch(name):
            raise CardSetError(f"card set name {name!r}: letters, digits, '-' and '_' only")
        _REGISTERED[_stem(name)] = source


def _stem(name: str) -> str:
    return name[: -len(".json")] if name.endswith(".json") else name


def _shipped() -> dict:
    folder = resources.files(__package__).joinpath("data")
    return {
        entry.name[: -len(".json")]: entry
        for entry in folder.iterdir()
        if entry.name.endswith(".json") and _NAME.fullmatch(entry.name)
    }


def _owner_dirs() -> list[Path]:
    return [Path(d) for d in os.environ.get(CARD_SET_DIRS_ENV, "").split(os.pathsep) if d]


def installed_card_sets() -> list[str]:
    """The names a ``card_set`` option may take on this server."""
    names = set(_shipped()) | set(_REGISTERED)
    for folder in _owner_dirs():
        try:
            names |= {p.stem for p in folder.iterdir() if p.suffix == ".json" and _NAME.fullmatch(p.name)}
        except OSError:
            continue
    return sorted(names)


def _bounded(fh, name: str) -> str:
    data = fh.read(MAX_CARD_SET_BYTES + 1)
    if len(data) > MAX_CARD_SET_BYTES:
        raise CardSetError(f"card_set {name!r}: the file is larger than {MAX_CARD_SET_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CardSetError(f"card_set {name!r}: the file is not UTF-8 text") from None


def _read_owner_file(path: Path, name: str) -> str | None:
    """The text of ``path`` if it is a regular file (never a device or a pipe), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return _bounded(fh, name)


def read_text(name: str) -> str:
    """The text of the installed card set ``name`` (see :func:`load_card_set`)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise CardSetError(
            "card_set: must be the name of a card set installed on this server "
            "(letters, digits, '-' and '_'; never a path)"
        )
    stem = _stem(name)
    source = _shipped().get(stem) or _REGISTERED.get(stem)
    if source is not None:
        with source.open("rb") as fh:
            return _bounded(fh, name)
    for folder in _owner_dirs():
        text = _read_owner_file(folder / f"{stem}.json", name)
        if text is not None:
            return text
    raise CardSetError(
        f"card_set: no card set named {name!r} is installed on this server "
        f"(installed: {', '.join(installed_card_sets())})"
    )


def parse(text: str, origin: str = "card set") -> dict:
    """Validate card-file text and return its compact form."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CardSetError(f"{origin}: not valid JSON ({exc})") from None
    validate_data(data)
    return compact(data)


def load_card_set(spec: str = DEFAULT_CARD_SET) -> dict:
    """Load the installed card set named ``spec`` and return its compact form.

    ``spec`` is a name, with or without ``.json``: a set shipped in this
    package's ``data`` folder (the default), one a plugin registered, or
    ``<spec>.json`` in a folder of GAMEROOM_CARD_SET_DIRS. Never a path.
    """
    if spec == DEFAULT_CARD_SET:
        return DEFAULT
    return parse(read_text(spec), f"card_set {spec!r}")


#: The shipped (reconstructed) card set, validated at import.
DEFAULT = parse(read_text(DEFAULT_CARD_SET), DEFAULT_CARD_SET)
