"""A seat's name: what create, claim, fork and import accept.

A name is shown to everyone in every view, history sentence and export, so it
must show as what it is. Refused: control characters (C0, DEL, C1); Unicode
format characters (category Cf), which are invisible or change how the text
around them shows (zero-width spaces, the BOM, bidi overrides, embeddings and
isolates such as U+202E, which would let ``"\\u202eevil"`` read as ``"live"``,
the invisible tag characters); line and paragraph separators (Zl, Zp); the
marks that show nothing (the combining grapheme joiner U+034F, the Khmer
invisible vowels U+17B4 and U+17B5) and the fillers that show as blank space
(U+115F, U+1160, U+2800, U+3164, U+FFA0), anywhere: ``"ad\\u3164min"`` would
read as ``"ad min"`` or ``"admin"``; and names that show nothing.

Kept where they do show something:

- the two joiners: a zero-width joiner (U+200D) builds emoji sequences
  (👩‍👩‍👧) and a zero-width non-joiner (U+200C) is part of ordinary Persian and
  Indic spelling. Each is accepted between two characters that are neither
  format characters nor blanks, never at either end;
- a variation selector right after a symbol or punctuation mark (``❤\\ufe0f``),
  or after a digit, ``#`` or ``*`` starting a keycap (``1\\ufe0f\\u20e3``); after a
  letter it changes nothing that shows (``"Bob\\ufe0f"`` reads as ``"Bob"``);
- tag characters only in an emoji flag tag sequence: U+1F3F4, tag letters or
  digits, then the cancel tag U+E007F (the flags of Scotland, Wales, England).
"""

import unicodedata

from marshmallow import ValidationError, fields, validate

from .patterns import FullMatch

#: The joiners kept where they join (see the module docstring).
JOINERS = frozenset("\u200c\u200d")

#: Letters and symbols that show as blank space, and marks that show nothing at all.
_BLANK_FILLERS = frozenset("\u115f\u1160\u2800\u3164\uffa0")
_INVISIBLE_MARKS = frozenset("\u034f\u17b4\u17b5")

#: Variation selectors (VS1-16, VS17-256).
_VARIATION = frozenset(chr(c) for c in [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)])
_KEYCAP_BASE = frozenset("0123456789#*")
_KEYCAP = "\u20e3"

#: An emoji flag tag sequence: black flag, tag digits or small letters, cancel tag.
_BLACK_FLAG = "\U0001f3f4"
_TAG_SPEC = frozenset(chr(c) for c in [*range(0xE0030, 0xE003A), *range(0xE0061, 0xE007B)])
_CANCEL_TAG = "\U000e007f"

#: The format characters (Cf) of the Basic Multilingual Plane but the joiners, for the
#: published pattern (fixed here, not computed, so the OpenAPI document does not change with
#: the Python's Unicode version). The check below refuses every Cf, astral ones too.
_BMP_FORMAT = r"\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
_REFUSED = r"\x00-\x1f\x7f-\x9f\u034f\u115f\u1160\u17b4\u17b5\u2028\u2029\u2800\u3164\uffa0" + _BMP_FORMAT

#: What the OpenAPI document publishes: no control or format character, separator, invisible
#: mark or blank filler, and not only blanks.
NAME_PATTERN = rf"^[^{_REFUSED}]*[^\s{_REFUSED}][^{_REFUSED}]*$"

DESCRIPTION = (
    "1–64 printable characters, at least one of them a letter, digit, punctuation mark or symbol. "
    "No control characters, no line or paragraph separators, no invisible format characters "
    "(Unicode category Cf: zero-width spaces, the BOM, bidi controls, tags), no marks or fillers "
    "that show nothing (U+034F, U+17B4, U+17B5, U+115F, U+1160, U+2800, U+3164, U+FFA0), except a "
    "zero-width joiner (U+200D, emoji sequences) or non-joiner (U+200C) between two characters that "
    "are neither format characters nor blanks, and tag characters in an emoji flag tag sequence "
    "(U+1F3F4, tag digits or small letters, U+E007F). A variation selector only follows a symbol or "
    "punctuation mark, or the digit, # or * of a keycap (followed by U+20E3)."
)


def _shows_as_written(name: str) -> None:
    """What the pattern cannot say: astral format characters, where a joiner, a variation
    selector or a tag stands, and whether anything shows at all."""
    flags = _flag_tags(name)
    visible = False
    for i, char in enumerate(name):
        category = unicodedata.category(char)
        if category == "Cs":  # (request bodies with them are refused before this anyway)
            raise ValidationError("A name must not contain lone surrogates.")
        if category in ("Zl", "Zp") or char in _INVISIBLE_MARKS or char in _BLANK_FILLERS:
            raise ValidationError(
                f"A name must not contain characters that show nothing (U+{ord(char):04X})."
            )
        if char in _VARIATION:
            if not _selectable(name, i):
                raise ValidationError(
                    f"A variation selector (U+{ord(char):04X}) only follows a symbol, a punctuation "
                    "mark or a keycap's digit."
                )
        elif category == "Cf" and i not in flags:
            if char not in JOINERS or not (_joinable(name, i - 1) and _joinable(name, i + 1)):
                raise ValidationError(
                    "A name must not contain invisible format characters "
                    f"(U+{ord(char):04X}); a joiner stands only between two other characters."
                )
        elif category[0] in "LNPS":
            visible = True
    if not visible:
        raise ValidationError("A name must show at least one letter, digit, punctuation mark or symbol.")


def _flag_tags(name: str) -> set[int]:
    """Where the tag characters of emoji flag tag sequences (black flag, tags, cancel tag) stand."""
    found: set[int] = set()
    start = name.find(_BLACK_FLAG)
    while start != -1:
        end = start + 1
        while end < len(name) and name[end] in _TAG_SPEC:
            end += 1
        if end > start + 1 and end < len(name) and name[end] == _CANCEL_TAG:
            found.update(range(start + 1, end + 1))
        start = name.find(_BLACK_FLAG, end)
    return found


def _selectable(name: str, i: int) -> bool:
    """A variation selector at ``i`` follows a symbol or punctuation mark, or begins a keycap."""
    if i == 0:
        return False
    before = name[i - 1]
    if before in _KEYCAP_BASE:
        return name[i + 1 : i + 2] == _KEYCAP
    return unicodedata.category(before)[0] in "PS"


def _joinable(name: str, i: int) -> bool:
    return 0 <= i < len(name) and not name[i].isspace() and unicodedata.category(name[i]) != "Cf"


def name_field(**kwargs):
    """The one definition of a seat name, shared by create, claim, fork and import."""
    return fields.String(
        validate=[
            validate.Length(1, 64),
            FullMatch(NAME_PATTERN, error="A name must be printable and not blank."),
            _shows_as_written,
        ],
        metadata={"description": DESCRIPTION},
        **kwargs,
    )
