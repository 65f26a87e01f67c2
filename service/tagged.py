"""Tagged unions of moves and events: one marshmallow schema per ``type``.

A game's moves (and events) are JSON objects told apart by their ``type``.
Each type is documented as its own schema, with its own required fields, and
the game's ``Move`` (``Event``) component in the OpenAPI document is a
``oneOf`` of them with a ``discriminator`` on ``type``: that is what lets a
generated client give every move a class of its own.

Games declare the variants in :class:`~gameroom.plugin_api.GameSchemas`
(``moves=`` and ``events=``); :func:`tagged_variants` builds them from a flat
schema and a table of which fields each type uses. A game that declares no
variants but whose ``move`` schema allows exactly one ``type`` value (Nim)
gets that schema as its single variant.

The platform also uses the variants to refuse moves carrying keys that their
type does not declare (:func:`move_keys`): such keys would otherwise be
stored in the log and echoed back to every client.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping

from marshmallow import INCLUDE, Schema, fields, validate


def camel(kind: str) -> str:
    """``use_power`` -> ``UsePower``."""
    return "".join(part[:1].upper() + part[1:] for part in kind.replace("-", "_").split("_"))


def _type_field(kind: str) -> fields.Field:
    return fields.String(
        required=True, validate=validate.Equal(kind), metadata={"description": f"always '{kind}'"}
    )


def tagged_variants(
    base: type[Schema],
    required: Mapping[str, Iterable[str]],
    *,
    optional: Mapping[str, Iterable[str]] | None = None,
    everywhere: Iterable[str] = (),
    suffix: str = "Move",
) -> dict:
    """One schema class per ``type`` value, built from the fields of the flat schema ``base``.

    ``required`` maps each type to the names of the fields it must carry;
    ``optional`` to those it may carry; every type may carry the fields named
    in ``everywhere`` (events: ``"reveal"``). The classes are named
    ``<Type><suffix>`` (``UsePowerMove``) and live in ``base``'s module, so
    the OpenAPI document names them after the game.
    """
    declared = base._declared_fields
    optional = optional or {}
    out = {}
    for kind in required:
        attrs: dict = {
            "type": _type_field(kind),
            "__module__": base.__module__,
            "__doc__": f"The {kind!r} {suffix.lower()}.",
        }
        for name in required[kind]:
            field = copy.deepcopy(declared[name])
            field.required = True
            attrs[name] = field
        for name in (*optional.get(kind, ()), *everywhere):
            if name not in attrs:
                attrs[name] = copy.deepcopy(declared[name])
        out[kind] = type(camel(kind) + suffix, (Schema,), attrs)
    unknown = set(optional) - set(required)
    if unknown:
        raise ValueError(f"optional fields for undeclared types: {sorted(unknown)}")
    return out


def tag_schemas(
    schemas: Mapping[str, type[Schema]], *, suffix: str = "Event", module: str | None = None
) -> dict:
    """Per-type schema classes made variants: their ``type`` field pinned to the type's value.

    ``module``: where the classes say they live (the game's schemas module,
    so that the OpenAPI document names them after the game); default each
    class's own.
    """
    out = {}
    for kind, cls in schemas.items():
        attrs = {
            "type": _type_field(kind),
            "__module__": module or cls.__module__,
            "__doc__": cls.__doc__ or f"The {kind!r} {suffix.lower()}.",
        }
        out[kind] = type(camel(kind) + suffix, (cls,), attrs)
    return out


def _single_type(schema: type[Schema]) -> str | None:
    field = schema._declared_fields.get("type")
    for validator in getattr(field, "validators", ()):
        if isinstance(validator, validate.Equal):
            return validator.comparable
        if isinstance(validator, validate.OneOf) and len(validator.choices) == 1:
            return next(iter(validator.choices))
    return None


def variants(game_schemas, kind: str) -> dict | None:
    """``type`` -> schema class for ``kind`` ("move" or "event"), or None when the game declares none."""
    declared = getattr(game_schemas, kind + "s", None)
    if declared:
        return dict(declared)
    flat = getattr(game_schemas, kind)
    only = _single_type(flat)
    return {only: flat} if only is not None else None


def _keys(schema: type[Schema]) -> frozenset | None:
    if getattr(schema.Meta, "unknown", None) == INCLUDE:
        return None
    return frozenset(field.data_key or name for name, field in schema._declared_fields.items())


def move_keys(game_schemas) -> tuple[dict, frozenset | None]:
    """What keys a move may carry: ``({type: keys}, keys of any other type)``.

    ``None`` keys mean "anything" (a schema with ``unknown = INCLUDE``). A move
    whose ``type`` has no variant is held to the flat schema's keys; its rules
    then say whether the type exists.
    """
    by_type = {kind: _keys(cls) for kind, cls in (variants(game_schemas, "move") or {}).items()}
    return by_type, _keys(game_schemas.move)


def unknown_keys(allowed: tuple[dict, frozenset | None], move: dict) -> list[str]:
    """The keys of ``move`` that its type does not declare, sorted."""
    by_type, other = allowed
    kind = move.get("type")
    keys = by_type.get(kind, other) if isinstance(kind, str) else other
    if keys is None:
        return []
    return sorted(str(k) for k in move if k not in keys)
