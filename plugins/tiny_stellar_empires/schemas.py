"""marshmallow schemas: match options, moves, views and events."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates

from gameroom.plugin_api import StrictBoolean, StrictInteger, tagged_variants

from .content import DEFAULT_CARD_SET, CardSetError, load_card_set
from .moves import MOVE_TYPES
from .state import PHASES

EVENT_TYPES = [
    "started",
    "homeworlds_dealt",
    "deck_formed",
    "fork_shuffled",
    "drew",
    "turn_started",
    "phase",
    "exchanged",
    "looked",
    "stuck",
    "played",
    "paid",
    "ability_used",
    "ability_declined",
    "took",
    "discarded",
    "thrived",
    "info_taken",
    "bullied",
    "loss_handed",
    "loss_returned",
    "attacked",
    "ambassador_placed",
    "turn_ended",
    "game_over",
]


def _attack_limit(value):
    # "1" or the number 1 (not True, which Python also compares equal to 1)
    if value not in ("one_per_opponent", "1") and not (type(value) is int and value == 1):
        raise ValidationError("Must be 'one_per_opponent' or 1.")


class Options(Schema):
    """Spec section 11, with the defaults of the spec."""

    card_set = fields.String(
        load_default=DEFAULT_CARD_SET,
        metadata={"description": "the name of a card set installed on the server (never a path)"},
    )
    empire_play_mandatory = StrictBoolean(load_default=False)
    max_attacks_per_turn = fields.Raw(
        load_default="one_per_opponent",
        validate=_attack_limit,
        metadata={
            "oneOf": [{"type": "string", "enum": ["one_per_opponent", "1"]}, {"type": "integer", "enum": [1]}]
        },
    )
    ambassador_targets = fields.String(
        load_default="attacked_own_card",
        validate=validate.OneOf(["attacked_own_card", "any_own_card"]),
    )
    one_shot_timing = fields.String(
        load_default="on_play", validate=validate.OneOf(["on_play", "any_own_turn"])
    )
    trade_count = fields.String(
        load_default="connections", validate=validate.OneOf(["connections", "own_edges"])
    )
    discard_pile_public = StrictBoolean(load_default=True)
    stuck_redraw = fields.String(
        load_default="next_turn_start", validate=validate.OneOf(["next_turn_start", "immediate"])
    )
    tie_breaker = fields.String(
        load_default="shared_victory", validate=validate.OneOf(["shared_victory", "empire_points"])
    )

    @validates("card_set")
    def _card_set_loads(self, value, **_):
        # Load now, so that a bad card file refuses the match instead of crashing setup.
        try:
            load_card_set(value)
        except CardSetError as exc:
            raise ValidationError(str(exc)) from None

    @post_load
    def _normalise(self, data, **_):
        data["max_attacks_per_turn"] = str(data["max_attacks_per_turn"])
        return data


class Move(Schema):
    type = fields.String(required=True, validate=validate.OneOf(MOVE_TYPES))
    card = fields.String()
    cards = fields.List(fields.String())
    orientation = fields.String(validate=validate.OneOf(["A", "B"]))
    player = StrictInteger()
    target = fields.String()
    mode = fields.String(validate=validate.OneOf(["raid", "invasion"]))
    end = StrictInteger(validate=validate.OneOf([0, 1]))
    source = fields.String()


class Event(Schema):
    type = fields.String(required=True, validate=validate.OneOf(EVENT_TYPES))
    seat = fields.Integer(allow_none=True)
    reveal = fields.Boolean()
    card = fields.String(allow_none=True)
    cards = fields.List(fields.String(), allow_none=True)
    count = fields.Integer()
    reason = fields.String()
    source = fields.String()
    ability = fields.String()
    player = fields.Integer()
    target = fields.String()
    owner = fields.Integer()
    mode = fields.String()
    end = fields.Integer()
    cost = fields.Integer()
    removed = fields.Raw(
        allow_none=True,
        metadata={
            "description": "homeworlds_dealt: the undealt homeworlds; ambassador_placed: the red card cleared",
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
        },
    )
    removed_count = fields.Integer()
    by = fields.Integer()
    to = fields.Integer()
    public = fields.Boolean()
    orientation = fields.String()
    phase = fields.String(validate=validate.OneOf(PHASES))
    pending = fields.Dict(allow_none=True)
    deck = fields.List(fields.String(), allow_none=True)
    size = fields.Integer()
    homeworlds = fields.List(fields.String(allow_none=True))
    set = fields.Dict()
    options = fields.Dict()
    num_seats = fields.Integer()
    start = fields.Integer()
    # "from" is a Python keyword
    from_ = fields.Integer(data_key="from")


class Outcome(Schema):
    """The result (TSE-T50): points per seat, winners, and each seat's points by category."""

    scores = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    breakdown = fields.List(fields.Dict(keys=fields.String(), values=fields.Integer()), required=True)


class Majority(Schema):
    """TSE-T47 for one symbol: each seat's count, who leads it and the VP each seat scores."""

    symbol = fields.String(required=True)
    counts = fields.List(
        fields.Integer(),
        required=True,
        metadata={
            "description": "per seat: 1 per symbol on an active, non-raided half, 2 per ambassador end facing"
            " the seat, and (only once the game is over) 3 for the homeworld's main symbol"
        },
    )
    leaders = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "the seats with the highest count (none when it is 0)"},
    )
    points = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "per seat: 2 VP to a sole leader, 1 VP to each tied leader, else 0"},
    )


class SeatStanding(Schema):
    """One seat's points by category (TSE-T45..T49), as if the game ended now."""

    cards = fields.Integer(required=True)
    abilities = fields.Integer(required=True)
    majorities = fields.Integer(required=True)
    mission = fields.Integer(
        allow_none=True,
        required=True,
        metadata={"description": "null while homeworlds (and so missions) are hidden"},
    )
    tucked = fields.Integer(required=True)


class OwnHomeworld(Schema):
    """What the viewer's own hidden homeworld will add at the end (TSE-T47, T48)."""

    symbol = fields.String(required=True, metadata={"description": "the homeworld's main symbol"})
    symbol_count = fields.Integer(required=True, metadata={"description": "what it adds to that count"})
    mission_progress = fields.Integer(
        required=True, metadata={"description": "what the mission measures now"}
    )
    mission_points = fields.Integer(
        required=True, metadata={"description": "the mission's VP if it ended now"}
    )


class Standing(Schema):
    """The score as the rules compute it, as if the game ended now, from what the viewer may see."""

    basis = fields.String(
        required=True,
        validate=validate.OneOf(["public", "final"]),
        metadata={
            "description": "public: homeworlds are still hidden (TSE-T4), so for every seat alike the"
            " majorities leave out the homeworlds' main symbols and no mission is scored; the real"
            " final score may differ. final: the game is over, homeworlds are revealed (TSE-H6) and"
            " this is the final scoring"
        },
    )
    majorities = fields.List(
        fields.Nested(Majority), required=True, metadata={"description": "one per symbol"}
    )
    scores = fields.List(fields.Nested(SeatStanding), required=True, metadata={"description": "per seat"})
    totals = fields.List(
        fields.Integer(), required=True, metadata={"description": "per seat: the sum of its scores"}
    )
    own = fields.Nested(
        OwnHomeworld,
        allow_none=True,
        required=True,
        metadata={
            "description": "the viewer's own homeworld, not counted above; null for spectators and at the end"
        },
    )


class View(Schema):
    set = fields.Dict(required=True)
    options = fields.Dict(required=True)
    num_seats = fields.Integer(required=True)
    turns_per_player = fields.Integer(required=True)
    first = fields.Integer(required=True, metadata={"description": "the start player (TSE-T5)"})
    current = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    pending = fields.Dict(allow_none=True, required=True)
    active = fields.List(fields.Integer(), required=True)
    seat = fields.Integer(allow_none=True, required=True)
    hand = fields.List(fields.String(), allow_none=True, required=True)
    homeworld = fields.String(allow_none=True, required=True)
    homeworlds = fields.List(fields.String(allow_none=True), allow_none=True, required=True)
    hand_sizes = fields.List(fields.Integer(), required=True)
    deck_size = fields.Integer(required=True)
    discard = fields.List(fields.String(), allow_none=True, required=True)
    discard_top = fields.String(allow_none=True, required=True)
    discard_size = fields.Integer(required=True)
    rows = fields.List(fields.List(fields.Dict()), required=True)
    tucked = fields.List(fields.List(fields.String()), required=True)
    out = fields.List(fields.String(), required=True)
    turns = fields.List(fields.Integer(), required=True)
    reds_played = fields.List(fields.Integer(), required=True)
    bully = fields.List(fields.Integer(), required=True)
    stuck_owed = fields.List(fields.Boolean(), required=True)
    attacked = fields.List(fields.Integer(), required=True)
    ambassadors_this_turn = fields.Integer(required=True)
    known = fields.List(
        fields.List(
            fields.Raw(metadata={"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            metadata={"description": "[card, holder seat]"},
        ),
        required=True,
    )
    deck_bottom_mine = fields.List(fields.String(), required=True)
    over = fields.Boolean(required=True)
    outcome = fields.Nested(Outcome, allow_none=True, required=True)
    standing = fields.Nested(Standing, required=True)


#: One schema per move type, with the fields it requires (and may carry).
MOVE_VARIANTS = tagged_variants(
    Move,
    {
        "exchange": ("cards",),
        "declare_stuck": (),
        "look_bottom": ("cards",),
        "play_empire": ("card", "orientation"),
        "skip_empire": (),
        "pay": ("card",),
        "use_ability": ("source",),
        "decline_ability": ("source",),
        "threat_discard": ("cards",),
        "loss_discard": ("card",),
        "attack": ("card", "player", "target", "mode"),
        "ambassador": ("card", "target", "end"),
        "end_attacks": (),
        "end_turn": (),
    },
    optional={"use_ability": ("card", "player")},
)

#: One schema per event type, as each seat may receive it (redacted, or whole once the match is over).
EVENT_VARIANTS = tagged_variants(
    Event,
    {
        "started": ("num_seats", "options", "set", "start"),
        "homeworlds_dealt": ("homeworlds", "removed"),
        "deck_formed": ("deck", "source"),
        "fork_shuffled": ("deck",),
        "drew": ("cards", "reason", "seat"),
        "turn_started": ("seat",),
        "phase": ("phase", "seat"),
        "exchanged": ("cards", "seat"),
        "looked": ("cards", "seat"),
        "stuck": ("cards", "seat"),
        "played": ("card", "cost", "orientation", "seat"),
        "paid": ("card", "seat"),
        "ability_used": ("ability", "seat", "source"),
        "ability_declined": ("seat", "source"),
        "took": ("card", "from_", "seat"),
        "discarded": ("cards", "reason", "seat"),
        "thrived": ("card", "owner", "seat", "target"),
        "info_taken": ("card", "public", "seat"),
        "bullied": ("player", "seat"),
        "loss_handed": ("cards", "from_", "seat"),
        "loss_returned": ("cards", "seat", "to"),
        "attacked": ("card", "cost", "mode", "player", "seat", "target"),
        "ambassador_placed": ("card", "cost", "end", "removed", "seat", "target"),
        "turn_ended": ("seat",),
        "game_over": ("homeworlds",),
    },
    optional={
        "homeworlds_dealt": ("removed_count",),
        "deck_formed": ("seat", "size"),
        "fork_shuffled": ("size",),
        "drew": ("count",),
        "looked": ("count",),
        "phase": ("pending",),
        # public: whether others may see the card Info took (absent in logs from before H5's fix)
        "ability_used": ("card", "player", "public"),
        "discarded": ("by",),
        "loss_handed": ("count",),
        "loss_returned": ("count",),
    },
    everywhere=("reveal",),
    suffix="Event",
)
