"""Error references: short, quotable, unique per failed call (DESIGN.md, "error ref")."""

from __future__ import annotations

import re
import secrets
import unicodedata
from typing import Final

__all__ = ["ERROR_REF_PATTERN", "new_error_ref", "read_error_ref"]

# Crockford base32: no I, L, O, U, so a ref read aloud or retyped from a screenshot survives.
_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

ERROR_REF_PATTERN: Final = re.compile(r"\bERR-[0-9A-HJKMNP-TV-Z]{8}\b")
"""Matches an error ref inside free text (a user's screenshot, a log line)."""

# Crockford's decoding: the letters a reader mistakes for digits are read as those digits.
_MISREAD: Final = str.maketrans("OIL", "011")


def new_error_ref() -> str:
    """Return a fresh ref like ``ERR-7K3M9QXZ``: 40 random bits, 8 Crockford base32 characters."""
    n = secrets.randbits(40)
    return "ERR-" + "".join(_ALPHABET[(n >> shift) & 31] for shift in range(35, -1, -5))


def read_error_ref(text: str) -> str | None:
    """The first ref ``text`` spells (``ERR-`` and 8 characters), as a person retyped or pasted it: alone or inside the
    sentence the user saw ("... couldn't find your order. Ref ERR-7K3M9QXZ."), in any case, with ``O`` for ``0`` and
    ``I`` or ``L`` for ``1`` and hyphens between the characters ignored (Crockford base32's decoding,
    crockford.com/base32.html), and as chat and word processors rewrite it: full-width letters, a typographic dash
    for the hyphen, zero-width characters (Unicode NFKC and the dash punctuation class Pd). ``None`` when it spells no
    ref."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    text = "".join("-" if unicodedata.category(c) == "Pd" or c == "\u2212" else c for c in text)
    for match in _QUOTED_REF.finditer(text):
        ref = "ERR-" + match.group(1).replace("-", "").upper().translate(_MISREAD)
        if ERROR_REF_PATTERN.fullmatch(ref):
            return ref
    return None


# Zero-width characters a chat client or a copy from a web page leaves inside a word.
_INVISIBLE: Final = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))

# "ERR" and a hyphen (or a space, as a ref read aloud is typed), then 8 symbols with optional hyphens between them;
# the symbols are checked against the alphabet after the misread letters are mapped.
_QUOTED_REF: Final = re.compile(r"(?<![0-9A-Za-z])ERR[- ]((?:[0-9A-Za-z]-?){7}[0-9A-Za-z])(?![0-9A-Za-z])",
                                re.IGNORECASE)
