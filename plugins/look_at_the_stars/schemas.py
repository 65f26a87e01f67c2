"""marshmallow schemas of the game's options, moves, views and events."""
from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate

from .content import POWER_KINDS

MOVE_TYPES = ("place_card", "place_shooting_star", "skip_card", "select_occurrence", "use_power",
              "decline_power", "confirm_turn")
EVENT_TYPES = ("game_set_up", "card_revealed", "card_placed", "shooting_star_placed", "card_skipped",
               "occurrence_selected", "power_used", "power_declined", "step_taken", "turn_confirmed",
               "turn_revealed", "game_ended")


def _point_bonus_choice(value):
    if value in ("default", "random"):
        return
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 10:
        return
    raise ValidationError("Must be 'default', 'random' or a card number 1-10.")


class Options(Schema):
    """Match options (LATS section 11)."""

    point_bonus_card = fields.Raw(load_default="default", validate=_point_bonus_choice,
                                  metadata={"description": "'default' (card 3, the '+'), 'random' or 1-10"})
    power_bonus_card = fields.String(
        load_default="default",
        validate=validate.OneOf(("default", "random_basic", "random_all") + POWER_KINDS))
    allow_mirror = fields.Boolean(load_default=False)
    point_bonus_counting = fields.String(load_default="max_disjoint",
                                         validate=validate.OneOf(("max_disjoint", "greedy_scan")))
    decline_consumes_all_pending = fields.Boolean(load_default=False)
    sun_blocks_nova_and_aura = fields.Boolean(load_default=True)
    live_score = fields.Boolean(load_default=False)
    solo_variant = fields.Boolean(load_default=False,
                                  metadata={"description": "Unofficial solo variant; also applies with 1 seat."})


Point = fields.List(fields.Integer(), validate=validate.Length(equal=2))
Line = fields.List(Point, validate=validate.Length(equal=2))


def _lines(**kw):
    return fields.List(Line, **kw)


class Move(Schema):
    """One atomic step; which optional fields apply depends on ``type``."""

    type = fields.String(required=True, validate=validate.OneOf(MOVE_TYPES))
    rotation = fields.Integer(validate=validate.Range(0, 3))
    dx = fields.Integer()
    dy = fields.Integer()
    mirror = fields.Boolean()
    length = fields.Integer(validate=validate.Range(1, 3))
    lines = _lines(validate=validate.Length(equal=3))
    point = Point
    line = Line
    stop = fields.Boolean()


class ShootingStar(Schema):
    segments = _lines(required=True)
    head = Point


class SheetView(Schema):
    sheet = fields.Integer(required=True)
    name = fields.String(required=True)
    lines = _lines(required=True)
    consumed = _lines(required=True)
    shooting_stars = fields.List(fields.Nested(ShootingStar), required=True)
    planets = fields.List(Point, required=True)
    new_stars = fields.List(Point, required=True)
    galaxies = fields.List(Point, required=True)
    twinkling_stars = fields.List(Point, required=True)
    novas = fields.List(Point, required=True)
    auras = fields.List(Point, required=True)
    moon = fields.List(fields.Integer(), allow_none=True, required=True)
    black_hole = fields.List(fields.Integer(), allow_none=True, required=True)
    # Own sheet only:
    drawn = fields.Boolean()
    pending = fields.List(_lines())
    selected = _lines(allow_none=True)
    new_stars_left = fields.Integer()
    turn_steps = fields.List(fields.Dict())


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
    sheets = fields.List(fields.Nested(SheetView), required=True)
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
    stop = fields.Boolean()
    new_stars_left = fields.Integer()
    drawings = fields.List(fields.List(fields.Dict()))
    scores = fields.List(fields.Integer())
    winners = fields.List(fields.Integer())
    breakdown = fields.List(fields.Dict(keys=fields.String(), values=fields.Integer()))
