"""The game's content: tiles and the 75 creature cards, loaded from data.

``data/stars-are-right.json`` is validated card by card with marshmallow at
import time. A malformed file raises :class:`ContentError` whose message names
the card (its id) and the field, so a typo in the data is found at start-up,
not in the middle of a match.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from gameroom.plugin_api import FullMatch

DATA_FILE = Path(__file__).parent / "data" / "stars-are-right.json"

#: The 14 face codes (SAR-B1.2), in the data file's order; the index is the
#: code number the matcher packs into 4 bits per cell.
FACE_CODES = ("1", "2", "3", "4", "5", "V", "Wn", "Wx", "Mo", "Le", "Su", "Se", "Sh", "Me")
SYMBOLS = ("P", "S", "F")
FAMILIES = ("cthulhu", "hastur", "tsatso", "chaugnar")
GOO, GREATER, LESSER, MINION = "great_old_one", "greater_servitor", "lesser_servitor", "minion"
CARD_TYPES = (GOO, GREATER, LESSER, MINION)
SERVITORS = (GREATER, LESSER)
#: Printed VP by card type (SAR-B1.3).
POINTS = {GOO: 4, GREATER: 2, LESSER: 1, MINION: 0}
MINION_POWERS = ("A", "B", "C", "D", "E")


class ContentError(ValueError):
    """The data file is malformed; the message names the card and field."""


class _Power(fields.Field):
    """A symbol conversion ``{"from": "P", "to": "PP"}`` or a minion letter."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str):
            if value not in MINION_POWERS:
                raise ValidationError(f"unknown minion power {value!r}")
            return value
        if not isinstance(value, dict) or set(value) != {"from", "to"}:
            raise ValidationError("must be a minion letter A-E or an object {from, to}")
        src, dst = value["from"], value["to"]
        if (
            src not in SYMBOLS
            or not isinstance(dst, str)
            or not 1 <= len(dst) <= 3
            or any(ch not in SYMBOLS for ch in dst)
        ):
            raise ValidationError(f"bad symbol conversion {value!r}")
        return {"from": src, "to": dst}


def _cell(value):
    return value is None or value in FACE_CODES


class CardSchema(Schema):
    """One creature card as printed (SAR-B1.5)."""

    id = fields.Integer(required=True, validate=validate.Range(1, 75))
    name = fields.String(required=True, validate=validate.Length(min=1))
    type = fields.String(required=True, validate=validate.OneOf(CARD_TYPES))
    family = fields.String(required=True, allow_none=True, validate=validate.OneOf(FAMILIES))
    invocation = fields.String(required=True, validate=FullMatch(r"^[PSF]{1,3}$"))
    bonus = fields.String(required=True, allow_none=True, validate=validate.OneOf(FACE_CODES))
    points = fields.Integer(required=True)
    constellation = fields.List(
        fields.List(
            fields.List(fields.Raw(allow_none=True), validate=validate.Length(min=1)),
            validate=validate.Length(min=1),
        ),
        required=True,
        validate=validate.Length(1, 4),
    )
    power = _Power(required=True)
    notation = fields.String(load_default="")
    note = fields.String(load_default="")

    @validates_schema
    def _consistent(self, data, **kwargs):
        kind = data["type"]
        if data["points"] != POINTS[kind]:
            raise ValidationError(f"a {kind} is worth {POINTS[kind]} VP", "points")
        if (data["family"] is None) != (kind == MINION):
            raise ValidationError("minions have no family; every other card has one", "family")
        if (data["bonus"] is None) != (kind not in SERVITORS):
            raise ValidationError("exactly the servitors carry a Bonus Star", "bonus")
        if isinstance(data["power"], str) != (kind == MINION):
            raise ValidationError("minions have a letter power, others a conversion", "power")
        groups = data["constellation"]
        for group in groups:
            if any(len(row) != len(group[0]) for row in group):
                raise ValidationError("every group must be a rectangle", "constellation")
            if not all(_cell(cell) for row in group for cell in row):
                raise ValidationError("cells must be face codes or null", "constellation")
            if all(cell is None for row in group for cell in row):
                raise ValidationError("a group needs at least one star", "constellation")
        shapes = sorted((len(g), len(g[0])) for g in groups)
        expected = {LESSER: [(1, 2), (1, 2)], MINION: [(1, 1)] * 4}.get(kind)
        if expected is not None and shapes != expected:
            raise ValidationError(f"a {kind} has groups {expected}", "constellation")
        if expected is None and len(groups) != 1:
            raise ValidationError(f"a {kind} has one group", "constellation")


@dataclass(frozen=True)
class Card:
    """A creature card, immutable and hashable."""

    id: int
    name: str
    type: str
    family: str | None
    invocation: str
    bonus: str | None
    points: int
    groups: tuple  # of groups; a group is a tuple of rows of (code or None)
    power: object  # {"from", "to"} dict for conversions, letter for minions
    notation: str

    @property
    def conversion(self) -> tuple[str, str] | None:
        """``(X, Y...)`` for a symbol power, else ``None``."""
        return None if isinstance(self.power, str) else (self.power["from"], self.power["to"])

    @property
    def codes(self) -> frozenset:
        """Face codes of the star (non-dark) cells."""
        return frozenset(c for g in self.groups for row in g for c in row if c is not None)


@dataclass(frozen=True)
class Content:
    cards: dict  # id -> Card
    tile_faces: tuple  # tile id -> (face A code, face B code)
    hand_size: int
    max_creatures: int
    target_points: int


def _fail(card_id, messages) -> ContentError:
    parts = []
    for field, msg in sorted(messages.items(), key=str):
        text = msg if isinstance(msg, str) else "; ".join(map(str, _flatten(msg)))
        parts.append(f"field '{field}': {text}")
    return ContentError(f"card {card_id}: " + ", ".join(parts))


def _flatten(msg):
    if isinstance(msg, dict):
        for value in msg.values():
            yield from _flatten(value)
    elif isinstance(msg, list):
        for value in msg:
            yield from _flatten(value)
    else:
        yield msg


def load_content(raw: dict) -> Content:
    """Validate the parsed data file and build :class:`Content`.

    Raises :class:`ContentError` naming the card id and field of the first
    malformed card, or the top-level key that is wrong.
    """
    if not isinstance(raw, dict) or raw.get("schema") != "stars-are-right/1":
        raise ContentError("data file: field 'schema' must be 'stars-are-right/1'")
    cards = {}
    for index, item in enumerate(raw.get("cards") or []):
        card_id = item.get("id", f"#{index}") if isinstance(item, dict) else f"#{index}"
        try:
            data = CardSchema().load(item)
        except ValidationError as exc:
            raise _fail(
                card_id, exc.messages if isinstance(exc.messages, dict) else {"_schema": exc.messages}
            ) from None
        if data["id"] in cards:
            raise ContentError(f"card {data['id']}: field 'id': duplicate id")
        groups = tuple(tuple(tuple(row) for row in g) for g in data["constellation"])
        cards[data["id"]] = Card(
            data["id"],
            data["name"],
            data["type"],
            data["family"],
            data["invocation"],
            data["bonus"],
            data["points"],
            groups,
            data["power"],
            data["notation"],
        )
    if sorted(cards) != list(range(1, 76)):
        raise ContentError("data file: field 'cards' must hold the cards 1..75 exactly once")
    tiles = raw.get("tiles") or []
    if [t.get("id") for t in tiles] != list(range(25)):
        raise ContentError("data file: field 'tiles' must hold the tiles 0..24 in order")
    tile_faces = []
    for tile in tiles:
        faces = tile.get("faces")
        if not (isinstance(faces, list) and len(faces) == 2 and all(f in FACE_CODES for f in faces)):
            raise ContentError(f"tile {tile['id']}: field 'faces': two face codes required")
        tile_faces.append(tuple(faces))
    game = raw.get("game") or {}
    return Content(
        cards,
        tuple(tile_faces),
        game.get("hand_size", 5),
        game.get("max_creatures", 6),
        game.get("target_points", 10),
    )


def load_file(path: Path = DATA_FILE) -> Content:
    """Read and validate a data file."""
    with open(path, encoding="utf-8") as fh:
        return load_content(json.load(fh))


#: The packaged content, validated at import.
CONTENT = load_file()
CARDS = CONTENT.cards
TILE_FACES = CONTENT.tile_faces
ALL_CARD_IDS = tuple(sorted(CARDS))
