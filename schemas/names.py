"""A seat's name: what create, claim, fork and import accept.

A name is shown to everyone in every view, history sentence and export, so it
must show as what it is. Refused: control characters (C0, DEL, C1); Unicode
format characters (category Cf), which are invisible or change how the text
around them shows (zero-width spaces, the BOM, bidi overrides, embeddings and
isolates such as U+202E, which would let ``"\\u202eevil"`` read as ``"live"``,
the invisible tag characters); and names that show nothing (only blanks,
fillers such as U+3164, or combining marks).

The two joiners are kept where they join: a zero-width joiner (U+200D) builds
emoji sequences (👩‍👩‍👧) and a zero-width non-joiner (U+200C) is part of
ordinary Persian and Indic spelling. Each is accepted between two characters
that are neither format characters nor blanks, never at either end.
"""

import unicodedata

from marshmallow import ValidationError, fields, validate

#: The joiners kept where they join (see the module docstring).
JOINERS = frozenset("\u200c\u200d")

#: Letters and symbols that show as blank space.
_BLANK_FILLERS = frozenset("\u115f\u1160\u2800\u3164\uffa0")

#: The format characters (Cf) of the Basic Multilingual Plane but the joiners, for the
#: published pattern (fixed here, not computed, so the OpenAPI document does not change with
#: the Python's Unicode version). The check below refuses every Cf, astral ones too.
_BMP_FORMAT = r"\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
_REFUSED = r"\x00-\x1f\x7f-\x9f" + _BMP_FORMAT

#: What the OpenAPI document publishes: no control or format character, and not only blanks.
NAME_PATTERN = rf"^[^{_REFUSED}]*[^\s{_REFUSED}][^{_REFUSED}]*$"

DESCRIPTION = (
    "1–64 printable characters, at least one of them a letter, digit, punctuation mark or symbol. "
    "No control characters and no invisible format characters (Unicode category Cf: zero-width "
    "spaces, the BOM, bidi controls, tags), except a zero-width joiner (U+200D, emoji sequences) or "
    "non-joiner (U+200C) between two characters that are neither format characters nor blanks."
)


def _shows_as_written(name: str) -> None:
    """What the pattern cannot say: astral format characters, where a joiner stands, and
    whether anything shows at all."""
    visible = False
    for i, char in enumerate(name):
        category = unicodedata.category(char)
        if category == "Cs":  # (request bodies with them are refused before this anyway)
            raise ValidationError("A name must not contain lone surrogates.")
        if category == "Cf":
            if char not in JOINERS or not (_joinable(name, i - 1) and _joinable(name, i + 1)):
                raise ValidationError(
                    "A name must not contain invisible format characters "
                    f"(U+{ord(char):04X}); a joiner stands only between two other characters."
                )
        elif category[0] in "LNPS" and char not in _BLANK_FILLERS:
            visible = True
    if not visible:
        raise ValidationError("A name must show at least one letter, digit, punctuation mark or symbol.")


def _joinable(name: str, i: int) -> bool:
    return 0 <= i < len(name) and not name[i].isspace() and unicodedata.category(name[i]) != "Cf"


def name_field(**kwargs):
    """The one definition of a seat name, shared by create, claim, fork and import."""
    return fields.String(
        validate=[
            validate.Length(1, 64),
            validate.Regexp(NAME_PATTERN, error="A name must be printable and not blank."),
            _shows_as_written,
        ],
        metadata={"description": DESCRIPTION},
        **kwargs,
    )
