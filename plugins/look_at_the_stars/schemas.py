"""marshmallow schemas of the game's options, moves, views and events."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate

from gameroom.plugin_api import StrictBoolean, StrictInteger, tagged_variants

from .content import POWER_KINDS
from .moves import MOVE_TYPES

EVENT_TYPES = (
    "game_set_up",
    "fork_shuffled",
    "card_revealed",
    "card_placed",
    "shooting_star_placed",
    "card_skipped",
    "occurrence_selected",
    "power_used",
    "power_declined",
    "step_taken",
    "turn_confirmed",
    "turn_revealed",
    "game_ended",
)


def _point_bonus_choice(value):
    if value in ("default", "random"):
        return
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 10:
        return
    raise ValidationError("Must be 'default', 'random' or a card number 1-10.")


class Options(Schema):
    """Match options (LATS section 11)."""

    point_bonus_card = fields.Raw(
        load_default="default",
        validate=_point_bonus_choice,
        metadata={
            "description": "'default' (card 3, the '+'), 'random' or 1-10",
            "oneOf": [
                {"type": "string", "enum": ["default", "random"]},
                {"type": "integer", "minimum": 1, "maximum": 10},
            ],
        },
    )
    power_bonus_card = fields.String(
        load_default="default",
        validate=validate.OneOf(("default", "random_basic", "random_all") + POWER_KINDS),
    )
    allow_mirror = StrictBoolean(load_default=False)
    point_bonus_counting = fields.String(
        load_default="max_disjoint", validate=validate.OneOf(("max_disjoint", "greedy_scan"))
    )
    decline_consumes_all_pending = StrictBoolean(load_default=False)
    sun_blocks_nova_and_aura = StrictBoolean(load_default=True)
    live_score = StrictBoolean(load_default=False)
    solo_variant = StrictBoolean(
        load_default=False,
        metadata={
            "description": "Unofficial solo variant: allows 1 player, whose result is "
            "the final score (no win or loss). Without it a match "
            "needs 2 to 8 players."
        },
    )


def _is_point(value) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def _is_line(value) -> bool:
    return isinstance(value, list) and len(value) == 2 and _is_point(value[0]) and _is_point(value[1])


class _Fast(fields.List):
    """A list field checked by one predicate instead of field-by-field.

    Views carry hundreds of points and lines; validating each through nested
    marshmallow fields made the conformance kit's view checks dominate its run
    time. The declared inner field still documents the shape (OpenAPI).
    """

    check = staticmethod(lambda value: True)
    what = "value"

    def _deserialize(self, value, attr, data, **kwargs):
        if not self.check(value):
            raise ValidationError(f"Not a valid {self.what}.")
        return value


class PointField(_Fast):
    check = staticmethod(_is_point)
    what = "point [x, y]"

    def __init__(self, **kw):
        super().__init__(fields.Integer(), **kw)


class LineField(_Fast):
    check = staticmethod(_is_line)
    what = "line [[x1, y1], [x2, y2]]"

    def __init__(self, **kw):
        super().__init__(fields.List(fields.Integer()), **kw)


class PointsField(_Fast):
    check = staticmethod(lambda v: isinstance(v, list) and all(_is_point(p) for p in v))
    what = "list of points"

    def __init__(self, **kw):
        super().__init__(PointField(), **kw)


class LinesField(_Fast):
    check = staticmethod(lambda v: isinstance(v, list) and all(_is_line(p) for p in v))
    what = "list of lines"

    def __init__(self, **kw):
        super().__init__(LineField(), **kw)


Point = PointField()
Line = LineField()


def _lines(**kw):
    return LinesField(**kw)


class Move(Schema):
    """One atomic step; which optional fields apply depends on ``type``."""

    type = fields.String(required=True, validate=validate.OneOf(MOVE_TYPES))
    rotation = StrictInteger(validate=validate.Range(0, 3))
    dx = StrictInteger()
    dy = StrictInteger()
    mirror = StrictBoolean()
    length = StrictInteger(validate=validate.Range(1, 3))
    lines = _lines(validate=validate.Length(equal=3))
    point = Point
    line = Line
    stop = StrictBoolean()


class ShootingStar(Schema):
    segments = _lines(required=True)
    head = Point


class SheetView(Schema):
    sheet = fields.Integer(required=True)
    name = fields.String(required=True)
    lines = _lines(required=True)
    consumed = _lines(required=True)
    shooting_stars = fields.List(fields.Nested(ShootingStar), required=True)
    planets = PointsField(required=True)
    new_stars = PointsField(required=True)
    galaxies = PointsField(required=True)
    twinkling_stars = PointsField(required=True)
    novas = PointsField(required=True)
    auras = PointsField(required=True)
    moon = PointField(allow_none=True, required=True)
    black_hole = PointField(allow_none=True, required=True)
    # Own sheet only:
    drawn = fields.Boolean()
    pending = fields.List(_lines())
    selected = _lines(allow_none=True)
    new_stars_left = fields.Integer()
    turn_steps = fields.List(fields.Dict())


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_lines(v) -> bool:
    return isinstance(v, list) and all(_is_line(x) for x in v)


def _is_points(v) -> bool:
    return isinstance(v, list) and all(_is_point(x) for x in v)


#: The same checks as :class:`SheetView`, one predicate per key (see :class:`_Fast`).
_SHEET_CHECKS = {
    "sheet": _is_int,
    "name": lambda v: isinstance(v, str),
    "lines": _is_lines,
    "consumed": _is_lines,
    "shooting_stars": lambda v: (
        isinstance(v, list)
        and all(
            isinstance(s, dict)
            and set(s) <= {"segments", "head"}
            and _is_lines(s.get("segments"))
            and ("head" not in s or _is_point(s["head"]))
            for s in v
        )
    ),
    "planets": _is_points,
    "new_stars": _is_points,
    "galaxies": _is_points,
    "twinkling_stars": _is_points,
    "novas": _is_points,
    "auras": _is_points,
    "moon": lambda v: v is None or _is_point(v),
    "black_hole": lambda v: v is None or _is_point(v),
    "drawn": lambda v: isinstance(v, bool),
    "pending": lambda v: isinstance(v, list) and all(_is_lines(o) for o in v),
    "selected": lambda v: v is None or _is_lines(v),
    "new_stars_left": _is_int,
    "turn_steps": lambda v: isinstance(v, list) and all(isinstance(e, dict) for e in v),
}
_SHEET_REQUIRED = {
    "sheet",
    "name",
    "lines",
    "consumed",
    "shooting_stars",
    "planets",
    "new_stars",
    "galaxies",
    "twinkling_stars",
    "novas",
    "auras",
    "moon",
    "black_hole",
}


def _is_sheet(value) -> bool:
    return (
        isinstance(value, dict)
        and _SHEET_REQUIRED <= set(value)
        and set(value) <= set(_SHEET_CHECKS)
        and all(_SHEET_CHECKS[k](v) for k, v in value.items())
    )


class SheetsField(_Fast):
    check = staticmethod(lambda v: isinstance(v, list) and all(_is_sheet(s) for s in v))
    what = "list of sheets"

    def __init__(self, **kw):
        super().__init__(fields.Nested(SheetView), **kw)


class BonusCard(Schema):
    card = fields.Integer()
    index = fields.Integer(required=True)
    points = fields.Integer()
    name = fields.String()
    power = fields.String()
    level = fields.String()
    lines = _lines(required=True)


class RulesView(Schema):
    point_bonus = fields.Nested(BonusCard, required=True)
    power_bonus = fields.Nested(BonusCard, required=True)
    options = fields.Dict(required=True)


class Outcome(Schema):
    scores = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    breakdown = fields.List(fields.Dict(keys=fields.String(), values=fields.Integer()), required=True)


class View(Schema):
    num_seats = fields.Integer(required=True)
    seat = fields.Integer(allow_none=True, required=True)
    rules = fields.Nested(RulesView, required=True)
    turn = fields.Integer(required=True)
    pile = fields.Integer(required=True)
    lowest_usable_row = fields.Integer(required=True)
    current_card = fields.Integer(required=True)
    revealed_cards = fields.List(fields.Integer(), required=True)
    cards_left_in_pile = fields.Integer(required=True)
    cards_left = fields.Integer(required=True)
    confirmed = fields.List(fields.Boolean(), required=True)
    sheets = SheetsField(required=True)
    scores = fields.List(fields.Integer(), allow_none=True)
    outcome = fields.Nested(Outcome, allow_none=True)


class Event(Schema):
    """Every event; fields beyond ``type`` depend on it."""

    type = fields.String(required=True, validate=validate.OneOf(EVENT_TYPES))
    seat = fields.Integer(allow_none=True)
    reveal = fields.Boolean()
    num_seats = fields.Integer()
    sheets = fields.List(fields.Integer())
    deck = fields.List(fields.Integer())
    unrevealed = fields.List(fields.Integer())
    count = fields.Integer()
    rules = fields.Dict()
    turn = fields.Integer()
    pile = fields.Integer()
    card = fields.Integer()
    rotation = fields.Integer()
    dx = fields.Integer()
    dy = fields.Integer()
    mirror = fields.Boolean()
    length = fields.Integer()
    lines = _lines()
    segments = _lines()
    head = Point
    pending = fields.List(_lines())
    occurrence = _lines()
    consumed = _lines()
    power = fields.String(validate=validate.OneOf(POWER_KINDS))
    point = Point
    line = Line
    stop = StrictBoolean()
    new_stars_left = fields.Integer()
    drawings = fields.List(fields.List(fields.Dict()))
    scores = fields.List(fields.Integer())
    winners = fields.List(fields.Integer())
    breakdown = fields.List(fields.Dict(keys=fields.String(), values=fields.Integer()))


#: One schema per move type, with the fields it requires (and may carry).
MOVE_VARIANTS = tagged_variants(
    Move,
    {
        "place_card": ("rotation", "dx", "dy"),
        "place_shooting_star": ("length", "rotation", "dx", "dy"),
        "skip_card": (),
        "select_occurrence": ("lines",),
        "use_power": (),
        "decline_power": (),
        "confirm_turn": (),
    },
    optional={
        "place_card": ("mirror",),
        "place_shooting_star": ("mirror",),
        "use_power": ("point", "line", "stop"),
    },
)

#: One schema per event type, as each seat may receive it (redacted, or whole once the match is over).
EVENT_VARIANTS = tagged_variants(
    Event,
    {
        "game_set_up": ("num_seats", "sheets", "rules"),
        "fork_shuffled": (),
        "card_revealed": ("turn", "pile", "card", "reveal"),
        "card_placed": ("seat", "card", "rotation", "dx", "dy", "lines", "pending"),
        "shooting_star_placed": ("seat", "card", "length", "rotation", "dx", "dy", "segments", "head"),
        "card_skipped": ("seat", "card"),
        "occurrence_selected": ("seat", "occurrence"),
        "power_used": ("seat", "power"),
        "power_declined": ("seat", "occurrence", "consumed", "pending"),
        "step_taken": ("seat",),
        "turn_confirmed": ("seat",),
        "turn_revealed": ("turn", "drawings"),
        "game_ended": ("scores", "winners", "breakdown"),
    },
    optional={
        "game_set_up": ("deck",),
        "fork_shuffled": ("unrevealed", "count"),
        "card_placed": ("mirror",),
        "shooting_star_placed": ("mirror",),
        "power_used": ("occurrence", "consumed", "line", "point", "new_stars_left", "stop", "pending"),
    },
    everywhere=("reveal",),
    suffix="Event",
)
