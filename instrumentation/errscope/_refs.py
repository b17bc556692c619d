"""Error references: short, quotable, unique per failed call (DESIGN.md, "error ref")."""

from __future__ import annotations

import re
import secrets
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
    """The ref ``text`` spells (``ERR-`` and 8 characters), as a person retyped it: any case, and ``O``
    for ``0``, ``I`` or ``L`` for ``1`` (Crockford base32's decoding, crockford.com/base32.html).
    ``None`` when it is no ref."""
    # As quoted from a sentence: "(Ref ERR-7K3M9QXZ.)" or in quotes; the ref's own characters are never these.
    text = text.strip().strip(".,;:!?'\"`()[]{}<>\u201c\u201d\u2018\u2019").upper()
    if not text.startswith("ERR-"):
        return None
    ref = "ERR-" + text[4:].translate(_MISREAD)
    return ref if ERROR_REF_PATTERN.fullmatch(ref) else None
