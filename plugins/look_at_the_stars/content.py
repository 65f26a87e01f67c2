"""The game's content: sheets, night cards and bonus cards, from the data file.

``data/look-at-the-stars.json`` is loaded at import and validated by the
marshmallow schemas below; a malformed file raises :class:`ContentError`
naming the card (its id or index) and the field. Behaviour is driven by this
data: power kinds are dispatched by the ``power`` name of a card, never by
card ids.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from marshmallow import (
    EXCLUDE,
    Schema,
    ValidationError,
    fields,
    validate,
    validates_schema,
)

from .geometry import line_key, pt

#: The power kinds the rules implement (LATS-R6.5 .. R6.13).
POWER_KINDS = (
    "luminous_aura",
    "planet",
    "new_stars",
    "line",
    "galaxy",
    "black_hole",
    "nova",
    "twinkling_star",
    "crescent_moon",
)


class ContentError(ValueError):
    """The data file is malformed; the message names the card and the field."""


Coord = fields.List(fields.Integer(), validate=validate.Length(equal=2))


def _unit_line(line, limit_x: int, limit_y: int) -> bool:
    (x1, y1), (x2, y2) = line
    inside = all(0 <= v <= limit_x for v in (x1, x2)) and all(0 <= v <= limit_y for v in (y1, y2))
    return inside and max(abs(x1 - x2), abs(y1 - y2)) == 1


class _LinesMixin:
    """Checks that ``lines`` are unit lines inside the 4 x 4 local frame."""

    @validates_schema
    def _check_lines(self, data, **kwargs):
        for line in data.get("lines") or []:
            if not _unit_line(line, 3, 3):
                raise ValidationError(f"{line} is not a unit line of the 4x4 frame", "lines")


def _line_field(**kw):
    return fields.List(fields.List(Coord, validate=validate.Length(equal=2)), **kw)


class NightCardSchema(_LinesMixin, Schema):
    class Meta:
        unknown = EXCLUDE

    id = fields.Integer(required=True, validate=validate.Range(0, 29))
    kind = fields.String(required=True, validate=validate.OneOf(["lines", "shooting_star"]))
    lines = _line_field()

    @validates_schema
    def _check_kind(self, data, **kwargs):
        if data.get("kind") == "lines" and len(data.get("lines") or []) != 2:
            raise ValidationError("a line card has exactly 2 lines", "lines")


class NightDeckSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    count = fields.Integer(required=True, validate=validate.Equal(30))
    piles = fields.Integer(required=True, validate=validate.Equal(3))
    cards_per_pile = fields.Integer(required=True, validate=validate.Equal(6))
    cards = fields.List(fields.Nested(NightCardSchema), required=True, validate=validate.Length(equal=30))


class SheetSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    index = fields.Integer(required=True)
    name = fields.String(required=True)
    pre_drawn_lines = _line_field(required=True, validate=validate.Length(equal=2))
    planets = fields.List(Coord, required=True, validate=validate.Length(equal=3))
    no_star_fixed = fields.List(Coord, required=True)
    no_star_new_stars_allowed = fields.List(Coord, required=True)
    stars = fields.List(Coord, required=True)

    @validates_schema
    def _check_points(self, data, **kwargs):
        for line in data.get("pre_drawn_lines", []):
            if not _unit_line(line, 9, 10):
                raise ValidationError(f"{line} is not a unit line of the sheet", "pre_drawn_lines")
        stars = {tuple(p) for p in data.get("stars", [])}
        for line in data.get("pre_drawn_lines", []):
            if not all(tuple(p) in stars for p in line):
                raise ValidationError(f"{line} does not join two stars", "pre_drawn_lines")
        for name in ("planets", "no_star_fixed", "no_star_new_stars_allowed", "stars"):
            for x, y in data.get(name, []):
                if not (0 <= x <= 9 and 0 <= y <= 10):
                    raise ValidationError(f"[{x}, {y}] is off the sheet", name)


class BoardSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    columns = fields.Integer(required=True, validate=validate.Equal(10))
    rows = fields.Integer(required=True, validate=validate.Equal(11))
    outside_dome = fields.List(Coord, required=True)
    lowest_usable_row_by_pile = fields.Dict(
        keys=fields.String(validate=validate.OneOf(["1", "2", "3"])),
        values=fields.Integer(validate=validate.Range(0, 10)),
        required=True,
    )


class ShootingShapeSchema(_LinesMixin, Schema):
    class Meta:
        unknown = EXCLUDE

    lines = _line_field(required=True, validate=validate.Length(1, 3))
    head = Coord


class PointBonusSchema(_LinesMixin, Schema):
    class Meta:
        unknown = EXCLUDE

    option_number = fields.Integer(required=True, validate=validate.Range(1, 10))
    index = fields.Integer(required=True, validate=validate.Range(0, 9))
    points = fields.Integer(required=True, validate=validate.Range(1, 20))
    name = fields.String()
    lines = _line_field(required=True, validate=validate.Length(min=1))


class PowerBonusSchema(_LinesMixin, Schema):
    class Meta:
        unknown = EXCLUDE

    index = fields.Integer(required=True, validate=validate.Range(0, 8))
    power = fields.String(required=True, validate=validate.OneOf(POWER_KINDS))
    level = fields.String(required=True, validate=validate.OneOf(["basic", "experienced"]))
    params = fields.Dict(load_default=dict)
    lines = _line_field(required=True, validate=validate.Length(equal=3))


class CardDefaultsSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    point_bonus_index = fields.Integer(required=True)
    power_bonus_index = fields.Integer(required=True)
    basic_power_indices = fields.List(fields.Integer(), required=True)


class ContentSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    schema = fields.String(required=True, validate=validate.Equal("look-at-the-stars/1"))
    board = fields.Nested(BoardSchema, required=True)
    sheets = fields.List(fields.Nested(SheetSchema), required=True, validate=validate.Length(equal=8))
    night_cards = fields.Nested(NightDeckSchema, required=True)
    shooting_star_shapes = fields.Dict(
        keys=fields.String(validate=validate.OneOf(["1", "2", "3"])),
        values=fields.Nested(ShootingShapeSchema),
        required=True,
    )
    point_bonus_cards = fields.List(
        fields.Nested(PointBonusSchema), required=True, validate=validate.Length(equal=10)
    )
    power_bonus_cards = fields.List(
        fields.Nested(PowerBonusSchema), required=True, validate=validate.Length(equal=9)
    )
    card_defaults = fields.Nested(CardDefaultsSchema, required=True)


# -- error messages that name the card ------------------------------------


def _label(raw, key) -> str:
    """Name a list item by its ``id`` or ``index`` when the raw data has one."""
    if isinstance(raw, list) and isinstance(key, int) and 0 <= key < len(raw) and isinstance(raw[key], dict):
        item = raw[key]
        for name in ("id", "index"):
            if name in item:
                return f"[{key}] ({name} {item[name]})"
    return f"[{key}]" if isinstance(key, int) else f".{key}"


def _flatten(errors, raw, path: str) -> list[str]:
    out = []
    if isinstance(errors, dict):
        for key, sub in errors.items():
            child = (
                raw[key]
                if isinstance(raw, dict) and key in raw
                else (raw[key] if isinstance(raw, list) and isinstance(key, int) and key < len(raw) else None)
            )
            if key == "value" and isinstance(sub, dict):  # Dict field errors: {"key": {"value": ...}}
                out += _flatten(sub, raw, path)
                continue
            out += _flatten(sub, child, path + _label(raw, key))
    else:
        msgs = errors if isinstance(errors, list) else [errors]
        for msg in msgs:
            if isinstance(msg, (dict, list)):
                out += _flatten(msg, raw, path)
            else:
                out.append(f"{path.lstrip('.')}: {msg}")
    return out


def validate_content(raw: dict) -> dict:
    """Validate raw content; raise :class:`ContentError` naming card and field."""
    try:
        data = ContentSchema().load(raw)
    except ValidationError as exc:
        raise ContentError(
            "look-at-the-stars.json is malformed: " + "; ".join(_flatten(exc.messages, raw, ""))
        ) from None
    ids = [c["id"] for c in data["night_cards"]["cards"]]
    if sorted(ids) != list(range(30)):
        raise ContentError("look-at-the-stars.json is malformed: night_cards.cards: ids must be 0..29")
    for name in ("point_bonus_cards", "power_bonus_cards"):
        if [c["index"] for c in data[name]] != list(range(len(data[name]))):
            raise ContentError(f"look-at-the-stars.json is malformed: {name}: index must follow list order")
    return data


# -- the loaded content ----------------------------------------------------


def _shape(lines) -> tuple:
    return tuple((tuple(a), tuple(b)) for a, b in lines)


def _points(coords) -> frozenset:
    return frozenset(pt(x, y) for x, y in coords)


@dataclass(frozen=True)
class Sheet:
    index: int
    name: str
    pre_drawn: tuple  # line keys
    planets: frozenset  # printed planets
    stars: frozenset  # printed stars
    illustration: frozenset  # no-star points New Stars may turn into stars


@dataclass(frozen=True)
class NightCard:
    id: int
    kind: str  # "lines" | "shooting_star"
    shape: tuple | None


@dataclass(frozen=True)
class PointBonus:
    index: int
    option_number: int
    points: int
    name: str
    shape: tuple


@dataclass(frozen=True)
class PowerBonus:
    index: int
    power: str
    level: str
    params: dict
    shape: tuple

    @property
    def once_per_game(self) -> bool:
        return bool(self.params.get("once_per_game"))


@dataclass(frozen=True)
class Content:
    sheets: tuple
    night_cards: tuple
    shooting_shapes: dict  # length -> (shape, head)
    point_bonus: tuple
    power_bonus: tuple
    lowest_row: dict  # pile (1..3) -> lowest usable row
    default_point_bonus: int
    default_power_bonus: int
    basic_powers: tuple
    cards_per_pile: int
    piles: int


def build_content(raw: dict) -> Content:
    """Validate ``raw`` and turn it into the immutable :class:`Content`."""
    data = validate_content(raw)
    outside = _points(data["board"]["outside_dome"])
    sheets = []
    for s in data["sheets"]:
        stars = _points(s["stars"])
        if stars & outside:
            raise ContentError(
                f"look-at-the-stars.json is malformed: sheets[{s['index']}] (index {s['index']}): "
                "stars: a star lies outside the dome"
            )
        sheets.append(
            Sheet(
                index=s["index"],
                name=s["name"],
                pre_drawn=tuple(sorted(line_key(pt(*a), pt(*b)) for a, b in s["pre_drawn_lines"])),
                planets=_points(s["planets"]),
                stars=stars,
                illustration=_points(s["no_star_new_stars_allowed"]),
            )
        )
    cards = tuple(
        NightCard(c["id"], c["kind"], _shape(c["lines"]) if c["kind"] == "lines" else None)
        for c in sorted(data["night_cards"]["cards"], key=lambda c: c["id"])
    )
    shooting = {
        int(k): (_shape(v["lines"]), tuple(v["head"]) if v.get("head") else None)
        for k, v in data["shooting_star_shapes"].items()
    }
    points = tuple(
        PointBonus(c["index"], c["option_number"], c["points"], c.get("name", ""), _shape(c["lines"]))
        for c in data["point_bonus_cards"]
    )
    powers = tuple(
        PowerBonus(c["index"], c["power"], c["level"], dict(c["params"]), _shape(c["lines"]))
        for c in data["power_bonus_cards"]
    )
    defaults = data["card_defaults"]
    return Content(
        sheets=tuple(sheets),
        night_cards=cards,
        shooting_shapes=shooting,
        point_bonus=points,
        power_bonus=powers,
        lowest_row={int(k): v for k, v in data["board"]["lowest_usable_row_by_pile"].items()},
        default_point_bonus=defaults["point_bonus_index"],
        default_power_bonus=defaults["power_bonus_index"],
        basic_powers=tuple(defaults["basic_power_indices"]),
        cards_per_pile=data["night_cards"]["cards_per_pile"],
        piles=data["night_cards"]["piles"],
    )


def load_raw() -> dict:
    text = resources.files(__package__).joinpath("data/look-at-the-stars.json").read_text(encoding="utf-8")
    return json.loads(text)


#: The game's content, loaded and validated at import.
CONTENT = build_content(load_raw())
TURNS = CONTENT.piles * CONTENT.cards_per_pile
