"""Error references: short, quotable, unique per failed call (DESIGN.md, "error ref")."""

from __future__ import annotations

import html
import re
import secrets
import unicodedata
from collections.abc import Iterator
from typing import Final
from urllib.parse import unquote

__all__ = ["ERROR_REF_PATTERN", "new_error_ref", "read_error_ref", "read_partial_ref"]

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
    for the hyphen, zero-width characters (Unicode NFKC and the dash punctuation class Pd). Also as the formats a
    message passes through escape it (:func:`_unescaped`): a JSON log line (``\\nERR-…``, ``ERR\\u2011…``), a URL
    (``%22ERR-…%22``), HTML (``ERR&#8209;…``), Markdown (``ERR\\-…``). ``None`` when it spells no ref."""
    for reading in _readings(text):
        for match in _QUOTED_REF.finditer(reading):
            ref = "ERR-" + _symbols(match.group(1))
            if ERROR_REF_PATTERN.fullmatch(ref):
                return ref
    return None


def read_partial_ref(text: str) -> str | None:
    """The start of a ref ``text`` spells when a host, a chat preview or a screenshot cut it short: ``ERR-`` and 4 to 7
    of its characters, then the end of the text, an ellipsis or anything but a letter or digit (``Ref ERR-7K3M9…``),
    read as :func:`read_error_ref` reads a whole one (``ERR-7K3M9``). ``None`` when ``text`` spells a whole ref or no
    start of one; fewer than 4 characters (20 bits) would match refs of other calls."""
    if read_error_ref(text) is not None:
        return None
    for reading in _readings(text):
        for match in _PARTIAL_REF.finditer(reading):
            symbols = _symbols(match.group(1))
            if all(c in _ALPHABET for c in symbols):
                return "ERR-" + symbols
    return None


def _symbols(spelled: str) -> str:
    return spelled.replace("-", "").upper().translate(_MISREAD)


def _readings(text: str) -> Iterator[str]:
    """``text`` normalised (NFKC, no zero-width characters, every dash a hyphen), then, when that differs, with the
    escapes undone too: a ref found in the text as given is preferred."""
    plain = _normalised(text)
    yield plain
    unescaped = _normalised(_unescaped(text))
    if unescaped != plain:
        yield unescaped


def _normalised(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    return "".join("-" if unicodedata.category(c) == "Pd" or c == "\u2212" else c for c in text)


def _unescaped(text: str) -> str:
    """``text`` with the escapes of the formats a message passes through undone, twice over (a JSON string inside a
    JSON log line): HTML character references (WHATWG HTML, ``html.unescape``), URL percent-encoding (RFC 3986 §2.1),
    JSON string escapes (RFC 8259 §7: ``\\uXXXX``, ``\\n``) and Markdown's backslash escapes of punctuation
    (CommonMark §2.4). An escape left whole would glue a letter to the ref (``\\nERR-…``, ``%22ERR-…``) or split it
    (``ERR\\-…``)."""
    for _ in range(2):
        before = text
        text = html.unescape(text)
        if _PERCENT.search(text):
            text = unquote(text)
        text = _BACKSLASHED.sub(_unescape_one, text)
        if text == before:
            break
    return text


_PERCENT: Final = re.compile(r"%[0-9A-Fa-f]{2}")
_BACKSLASHED: Final = re.compile(r"\\(u[0-9A-Fa-f]{4}|[nrtbf]|[!-/:-@\[-`{-~])")
"""A JSON escape (``\\u2011``; a control one is read as a space), or a backslash before ASCII punctuation (JSON's
``\\"``, ``\\\\``, ``\\/``; Markdown's ``\\-``, ``\\_``, ``\\*``), read left to right as a JSON decoder does."""


def _unescape_one(match: re.Match[str]) -> str:
    escaped = match.group(1)
    if len(escaped) == 5:
        return chr(int(escaped[1:], 16))
    return " " if escaped in "nrtbf" else escaped


# Zero-width characters a chat client or a copy from a web page leaves inside a word.
_INVISIBLE: Final = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))

# "ERR" and a hyphen (or a space, as a ref read aloud is typed), then 8 symbols with optional hyphens between them;
# the symbols are checked against the alphabet after the misread letters are mapped.
_QUOTED_REF: Final = re.compile(r"(?<![0-9A-Za-z])ERR[- ]((?:[0-9A-Za-z]-?){7}[0-9A-Za-z])(?![0-9A-Za-z])",
                                re.IGNORECASE)
# The same, cut short: 4 to 7 symbols, then no letter or digit (an ellipsis, the text's end).
_PARTIAL_REF: Final = re.compile(r"(?<![0-9A-Za-z])ERR[- ]((?:[0-9A-Za-z]-?){3,6}[0-9A-Za-z])(?![0-9A-Za-z])",
                                 re.IGNORECASE)
