"""marshmallow schemas for the game's options, moves, views and events."""

from __future__ import annotations

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate, validates_schema

from gameroom.plugin_api import FullMatch, StrictBoolean, StrictInteger, tag_schemas, tagged_variants

from .content import FACE_CODES
from .evolve import EVENT_TYPES
from .moves import MOVE_TYPES, PHASE_MOVES


def _sized(length: tuple | None, kwargs: dict) -> dict:
    """``kwargs`` with the item count documented (minItems/maxItems) in its metadata."""
    if length:
        kwargs["metadata"] = {**kwargs.get("metadata", {}), "minItems": length[0], "maxItems": length[1]}
    return kwargs


class IntList(fields.List):
    """A list of integers in ``[lo, hi]`` checked in one pass.

    Much cheaper than ``fields.List(fields.Integer())``, which builds and
    runs a field per item: views and events are validated on every step of
    the conformance kit, so this matters. The inner field only documents the
    items (OpenAPI).
    """

    def __init__(self, lo: int = 0, hi: int = 75, length: tuple | None = None, **kwargs):
        super().__init__(fields.Integer(validate=validate.Range(lo, hi)), **_sized(length, kwargs))
        self.lo, self.hi, self.length = lo, hi, length

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, list) or any(
            type(v) is not int or not self.lo <= v <= self.hi for v in value
        ):
            raise ValidationError(f"must be a list of integers {self.lo}..{self.hi}")
        if self.length and not self.length[0] <= len(value) <= self.length[1]:
            raise ValidationError(f"must hold {self.length[0]}..{self.length[1]} items")
        return value


_SHARED: dict = {}


class Shared(fields.Nested):
    """Like ``fields.Nested`` but validating with one shared schema instance."""

    def __init__(self, schema_cls, **kwargs):
        super().__init__(schema_cls, **kwargs)
        self.schema_cls = schema_cls

    def _deserialize(self, value, attr, data, **kwargs):
        # Fields are deep-copied with every schema instance, so the shared
        # instance lives in a module-level cache, not on the field.
        schema = _SHARED.get(self.schema_cls)
        if schema is None:
            schema = _SHARED[self.schema_cls] = self.schema_cls()
        if not isinstance(value, dict):
            raise ValidationError("must be an object")
        errors = schema.validate(value)
        if errors:
            raise ValidationError(errors)
        return value


def _card(**kwargs):
    return StrictInteger(validate=validate.Range(1, 75), **kwargs)


def _seat(**kwargs):
    return StrictInteger(validate=validate.Range(0, 3), **kwargs)


def _cards(**kwargs):
    return IntList(1, 75, **kwargs)


class FaceCodes(fields.List):
    """The 25 face codes of the sky, in cell order (checked in one pass)."""

    def __init__(self, **kwargs):
        super().__init__(fields.String(validate=validate.OneOf(FACE_CODES)), **_sized((25, 25), kwargs))

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, list) or len(value) != 25 or any(v not in FACE_CODES for v in value):
            raise ValidationError("must be 25 face codes")
        return value


_PHASES = tuple(PHASE_MOVES) + ("setup", "over")


#: The largest ``turn_limit``: the spec types it "int"; read as a positive 32-bit
#: integer (2^31 - 1 rounds is no practical limit, and every client's JSON can hold it).
MAX_TURN_LIMIT = 2**31 - 1


class OptionsSchema(Schema):
    """Match options (spec section 12)."""

    allow_mirror = StrictBoolean(load_default=False)
    dark_cells_may_overhang = StrictBoolean(load_default=False)
    no_cancel_checks = fields.String(
        load_default="abcd",
        validate=FullMatch(
            r"^(?!.*(.).*\1)[abcd]*$", error="a subset of the letters 'abcd', each at most once"
        ),
    )
    limit_discard_may_choose_new = StrictBoolean(load_default=True)
    first_player = fields.String(load_default="random", validate=validate.OneOf(["random", "seat_0"]))
    turn_limit = StrictInteger(
        load_default=None,
        allow_none=True,
        validate=validate.Range(1, MAX_TURN_LIMIT),
        metadata={
            "description": "SAR-B12.4: if set, the match also ends after this many full rounds "
            "(highest VP wins, ties share). null (the default) = no limit: the "
            "match ends only by victory."
        },
    )


#: Required parameters of each move type (spec section 10).
MOVE_FIELDS = {
    "invoke": ("card",),
    "skip_invoke": (),
    "use_service": ("creature",),
    "use_gug": ("minion", "own", "opponent", "theirs"),
    "use_tindaloo": ("minion", "own", "opponent", "theirs"),
    "use_dhole": ("minion", "pile"),
    "dhole_take": ("card",),
    "end_services": (),
    "push": ("line", "index", "direction"),
    "swap": ("cells",),
    "flip": ("cell",),
    "summon": ("card", "supporters"),
    "skip_summon": (),
    "discard_creature": ("card",),
    "discard": ("card",),
    "end_turn": (),
}


class MoveSchema(Schema):
    """One atomic step; ``type`` selects which other fields are required."""

    type = fields.String(required=True, validate=validate.OneOf(MOVE_TYPES))
    card = _card()
    creature = _card()
    minion = _card()
    own = _card()
    theirs = _card()
    opponent = _seat()
    pile = fields.String(validate=validate.OneOf(["draw", "discard"]))
    line = fields.String(validate=validate.OneOf(["row", "col"]))
    index = StrictInteger(validate=validate.Range(0, 4))
    direction = fields.String(validate=validate.OneOf(["left", "right", "up", "down"]))
    cells = fields.List(StrictInteger(validate=validate.Range(0, 24)), validate=validate.Length(2, 2))
    cell = StrictInteger(validate=validate.Range(0, 24))
    supporters = fields.List(StrictInteger(validate=validate.Range(1, 75)), validate=validate.Length(0, 3))

    @validates_schema
    def _fields_of_type(self, data, **kwargs):
        wanted = MOVE_FIELDS.get(data.get("type"), ())
        missing = [f for f in wanted if f not in data]
        extra = [f for f in data if f != "type" and f not in wanted]
        if missing:
            raise ValidationError(f"missing for {data['type']}: {missing}")
        if extra:
            raise ValidationError(f"not used by {data['type']}: {extra}")


#: One schema per move type, with the fields that type requires.
MOVE_VARIANTS = tagged_variants(MoveSchema, MOVE_FIELDS)


class PoolSchema(Schema):
    P = fields.Integer(required=True, validate=validate.Range(0, 20))
    S = fields.Integer(required=True, validate=validate.Range(0, 20))
    F = fields.Integer(required=True, validate=validate.Range(0, 20))


class NoCancelSchema(Schema):
    """Phase-3 bookkeeping of SAR-B6.5 (public)."""

    flipped = IntList(0, 24, required=True)
    pushed = fields.List(fields.String(), required=True)
    swapped = IntList(0, 624, required=True)
    seen = fields.List(fields.String(validate=validate.Length(25, 25)), required=True)


class DholeSchema(Schema):
    pile = fields.String(required=True, validate=validate.OneOf(["draw", "discard"]))
    look = _cards()


class CardLists(fields.List):
    """One list of card ids per seat (``None`` allowed with ``holes``)."""

    def __init__(self, holes: bool = False, **kwargs):
        super().__init__(IntList(1, 75, allow_none=holes), **_sized((2, 4), kwargs))
        self.holes = holes
        self._item = IntList(1, 75)

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, list) or not 2 <= len(value) <= 4:
            raise ValidationError("must be one list per seat")
        for item in value:
            if item is None and self.holes:
                continue
            self._item._deserialize(item, attr, data)
        return value


class ViewSchema(Schema):
    """A seat's view (SAR-H1 .. H5)."""

    num_seats = fields.Integer(required=True, validate=validate.Range(2, 4))
    options = Shared(OptionsSchema, required=True)
    seat = _seat(
        required=True,
        allow_none=True,
        metadata={"description": "the seat this view is for (null: a spectator)"},
    )
    current = _seat(required=True, allow_none=True, metadata={"description": "the seat whose turn it is"})
    phase = fields.String(required=True, validate=validate.OneOf(_PHASES))
    turn = fields.Integer(required=True)
    first = _seat(required=True, allow_none=True)
    sky = IntList(0, 24, length=(25, 25), required=True)
    up = FaceCodes(required=True)
    hand = _cards(required=True, allow_none=True)
    hand_sizes = IntList(0, 75, required=True)
    creatures = CardLists(required=True)
    tapped = _cards(required=True)
    discard = _cards(required=True)
    deck_size = fields.Integer(required=True, validate=validate.Range(0, 75))
    invoked = _card(required=True, allow_none=True)
    pool = Shared(PoolSchema, required=True)
    no_cancel = Shared(NoCancelSchema, required=True, allow_none=True)
    summoned = _card(required=True, allow_none=True)
    discards_made = fields.Integer(required=True, validate=validate.Range(0, 2))
    dhole = Shared(DholeSchema, required=True, allow_none=True)
    vp = IntList(0, 100, required=True)
    winners = IntList(0, 3, required=True, allow_none=True)
    end = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(["victory", "turn_limit", "safeguard"])
    )


def _event(name: str, **declared) -> type:
    return Schema.from_dict(
        {
            "type": fields.String(required=True),
            "seat": _seat(allow_none=True),
            "reveal": fields.Boolean(),
            **declared,
        },
        name=name,
    )


#: The fields of each event type (spec section 8 for the random ones). Fields
#: that redaction removes are optional.
EVENT_SCHEMAS = {
    "match_started": _event(
        "MatchStarted", num_seats=fields.Integer(required=True), options=Shared(OptionsSchema, required=True)
    ),
    "sky_laid": _event(
        "SkyLaid",
        sky=IntList(0, 24, length=(25, 25), required=True),
        faces=IntList(0, 1, length=(25, 25), required=True),
    ),
    "deck_shuffled": _event("DeckShuffled", order=_cards(), count=fields.Integer()),
    "dealt": _event("Dealt", hands=CardLists(holes=True, required=True), counts=IntList(0, 5, required=True)),
    "first_player": _event("FirstPlayer", first=_seat(required=True)),
    "invoked": _event("Invoked", card=_card(required=True), pool=Shared(PoolSchema, required=True)),
    "invoke_skipped": _event("InvokeSkipped"),
    "service_used": _event(
        "ServiceUsed",
        creature=_card(required=True),
        to=fields.String(required=True),
        **{"from": fields.String(required=True, validate=validate.OneOf("PSF"))},
    ),
    "servitors_exchanged": _event(
        "ServitorsExchanged",
        minion=_card(required=True),
        power=fields.String(required=True),
        own=_card(required=True),
        opponent=_seat(required=True),
        theirs=_card(required=True),
    ),
    "dhole_used": _event(
        "DholeUsed",
        minion=_card(required=True),
        pile=fields.String(required=True, validate=validate.OneOf(["draw", "discard"])),
        look=_cards(),
    ),
    "dhole_took": _event("DholeTook", pile=fields.String(required=True), card=_card(), order=_cards()),
    "services_ended": _event("ServicesEnded"),
    "pushed": _event(
        "Pushed",
        line=fields.String(required=True, validate=validate.OneOf(["row", "col"])),
        index=fields.Integer(required=True, validate=validate.Range(0, 4)),
        direction=fields.String(required=True),
    ),
    "swapped": _event(
        "Swapped",
        cells=IntList(0, 24, length=(2, 2), required=True),
        tiles=IntList(0, 24, length=(2, 2), required=True),
    ),
    "flipped": _event(
        "Flipped",
        cell=fields.Integer(required=True),
        tile=fields.Integer(required=True),
        face=fields.Integer(required=True, validate=validate.Range(0, 1)),
    ),
    "symbol_forfeited": _event(
        "SymbolForfeited", symbol=fields.String(required=True, validate=validate.OneOf("PSF"))
    ),
    "summoned": _event(
        "Summoned",
        card=_card(required=True),
        supporters=_cards(required=True),
        discarded=_cards(required=True),
    ),
    "summon_skipped": _event("SummonSkipped"),
    "creature_discarded": _event("CreatureDiscarded", card=_card(required=True)),
    "card_discarded": _event("CardDiscarded", card=_card(required=True)),
    "reshuffled": _event("Reshuffled", count=fields.Integer(required=True), order=_cards()),
    "fork_shuffled": _event("ForkShuffled", count=fields.Integer(required=True), order=_cards()),
    "drew": _event("Drew", cards=_cards(), count=fields.Integer(required=True)),
    "turn_ended": _event("TurnEnded", next=_seat(required=True)),
    "game_over": _event(
        "GameOver",
        winners=IntList(0, 3, required=True),
        reason=fields.String(required=True),
        scores=IntList(0, 100, required=True),
    ),
}
assert set(EVENT_SCHEMAS) == set(EVENT_TYPES)
#: The same, each with its ``type`` pinned (the OpenAPI document's discriminated union).
EVENT_VARIANTS = tag_schemas(EVENT_SCHEMAS, module=__name__)
_EVENT_CHECKERS: dict = {}


class EventSchema(Schema):
    """Any event: ``type`` selects the schema of the rest (see ``EVENT_SCHEMAS``)."""

    type = fields.String(required=True, validate=validate.OneOf(EVENT_TYPES))
    seat = _seat(allow_none=True)
    reveal = fields.Boolean()

    class Meta:
        unknown = INCLUDE

    @validates_schema
    def _by_type(self, data, **kwargs):
        kind = data.get("type")
        if kind not in EVENT_SCHEMAS:
            return
        checker = _EVENT_CHECKERS.get(kind)
        if checker is None:
            checker = _EVENT_CHECKERS[kind] = EVENT_SCHEMAS[kind]()
        errors = checker.validate(data)
        if errors:
            raise ValidationError(errors)
