"""Error references: short, quotable, unique per failed call (DESIGN.md, "error ref")."""

from __future__ import annotations

import re
import secrets
from typing import Final

__all__ = ["ERROR_REF_PATTERN", "new_error_ref"]

# Crockford base32: no I, L, O, U, so a ref read aloud or retyped from a screenshot survives.
_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

ERROR_REF_PATTERN: Final = re.compile(r"\bERR-[0-9A-HJKMNP-TV-Z]{8}\b")
"""Matches an error ref inside free text (a user's screenshot, a log line)."""


def new_error_ref() -> str:
    """Return a fresh ref like ``ERR-7K3M9QXZ``: 40 random bits, 8 Crockford base32 characters."""
    n = secrets.randbits(40)
    return "ERR-" + "".join(_ALPHABET[(n >> shift) & 31] for shift in range(35, -1, -5))
