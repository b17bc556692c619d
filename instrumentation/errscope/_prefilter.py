"""Python patterns searched in linear time: an RE2 pass finds where a match can start, ``re`` reads it there.

The readers of foreign error texts (:mod:`errscope._foreign_text`) are Python patterns: lookarounds, Unicode
``\\b``. ``re`` tries every branch of an alternation at every position of a text, so a case-insensitive list
of a few hundred phrases costs ~6 µs a character when nothing matches: 0.1 s for a 16 KiB error page, 13 s for
go-sdk's 2 MiB error text, all of it blocking the event loop. :func:`prefiltered` pairs a pattern with a
*loose* RE2 program (its parse tree written as RE2, assertions dropped, classes widened to every character
``re`` could match) that matches at every position the pattern can match at, and maybe at more. The RE2
program's leftmost match start is therefore never after ``re``'s, so ``re`` is tried only at the candidate
starts RE2 gives, anchored: the result is the one ``pattern.search`` returns, found in RE2's time.
"""

from __future__ import annotations

import _sre
import itertools
import operator
import re
from collections.abc import Iterator
from functools import cache
from re import _constants as sre
from re._casefix import _EXTRA_CASES
from re._parser import parse as _sre_parse
from typing import Any, Final

import re2

__all__ = ["Prefiltered", "prefiltered"]

_COUNTED: Final = 16
"""Counted repetitions up to this are kept; a longer one is loosened to "at least" (RE2 compiles ``[\\w]{1,128}``,
Unicode classes and all, into 128 copies; RE2 bounds a count at 1000)."""
_MEMORY: Final = 32 << 20  # bytes of DFA state per program; the phrase lists need ~1 MiB
_CANDIDATES: Final = 64
"""Candidates tried one by one before ``re`` searches the rest itself: loose hits that do not match are rare
(a dropped ``\\b`` or lookaround), so this bounds the pathological text, not the common one."""
_UNANCHORED: Final = re2._re2.RE2.Anchor.UNANCHORED

# Python's Unicode classes for str patterns (re docs: "\\d", "\\s", "\\w"), as RE2 classes that hold all of them (in
# a positive class) or only members of them (in a negated class): either way the loose program matches a superset.
# RE2's Unicode tables are newer than Python's, so a Unicode property stands only where it widens.
_SPACE: Final = (  # str.isspace(): exact
    r"\t-\r\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
)
_POSITIVE: Final = {
    sre.CATEGORY_DIGIT: r"\p{Nd}",
    sre.CATEGORY_NOT_DIGIT: r"\x00-\x{10ffff}",
    sre.CATEGORY_SPACE: _SPACE,
    sre.CATEGORY_NOT_SPACE: r"\S",  # RE2's \S excludes only ASCII space
    sre.CATEGORY_WORD: r"\p{L}\p{N}_",
    sre.CATEGORY_NOT_WORD: r"\W",  # RE2's \W excludes only ASCII word characters
}
_NEGATED: Final = {
    sre.CATEGORY_DIGIT: "0-9",
    sre.CATEGORY_SPACE: _SPACE,
    sre.CATEGORY_WORD: "0-9A-Za-z_",
}


class _Unsupported(Exception):
    """A construct with no loose RE2 form (a category RE2 cannot negate within a class)."""


class Prefiltered:
    """A compiled ``re`` pattern whose :meth:`search` and :meth:`finditer` run RE2 first; ``pattern`` is the ``re``
    pattern itself, for every other method. The RE2 program is compiled at the first search (0.1-50 ms a
    pattern: a process that never reads a foreign text never pays it); a pattern with no loose RE2 form, or one
    RE2 cannot compile within its memory bound, is searched with ``re`` alone."""

    __slots__ = ("_loose", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self._loose: Any = None  # the RE2 program; False when there is none

    def search(self, text: str) -> re.Match[str] | None:
        """``self.pattern.search(text)``, the same match, in time linear in ``len(text)``.

        A lone surrogate, which RE2 cannot read, is read as ``?``: one character for one, so positions hold (the
        match is of that text).
        """
        loose = self._loose if self._loose is not None else self._compile()
        if loose is False:
            return self.pattern.search(text)
        if text.isascii():
            data = text.encode()
        else:
            try:
                data = text.encode()
            except UnicodeEncodeError:
                data = text.encode("utf-8", "replace")
                text = data.decode()
        ascii_text, size, pattern = len(data) == len(text), len(data), self.pattern
        at = position = 0  # the next byte RE2 reads, and the character it is
        for _ in range(_CANDIDATES):
            start = loose.Match(_UNANCHORED, data, at, size)[0][0]
            if start < 0:
                return None
            # RE2 speaks bytes: count the characters up to the candidate
            position = start if ascii_text else position + len(data[at:start].decode())
            found = pattern.match(text, position)
            if found is not None or position == len(text):
                return found
            at = start + (1 if ascii_text else len(text[position].encode()))
            position += 1
        return pattern.search(text, position)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """``self.pattern.finditer(text)``: RE2 finds the first match's start, ``re`` reads on from there."""
        first = self.search(text)
        return iter(()) if first is None else self.pattern.finditer(first.string, first.start())

    def _compile(self) -> Any:
        options = re2.Options()
        options.never_capture = True
        options.max_mem = _MEMORY
        options.log_errors = False
        try:
            self._loose = re2.compile(loose_regex(self.pattern.pattern, self.pattern.flags).encode(), options)._regexp
        except (_Unsupported, re2.error):
            self._loose = False
        return self._loose


def prefiltered(pattern: re.Pattern[str]) -> Prefiltered:
    """``pattern`` with an RE2 prefilter for :meth:`Prefiltered.search` (str patterns; raises ``TypeError`` for a
    bytes pattern)."""
    if not isinstance(pattern.pattern, str):
        raise TypeError("prefiltered() takes a str pattern")
    return Prefiltered(pattern)


def loose_regex(regex: str, flags: int = 0) -> str:
    """An RE2 regex matching at every start position ``re.compile(regex, flags)`` matches at (str patterns).

    Lookarounds and ``\\b``/``\\B`` are dropped, ``\\d \\s \\w`` and their negations widened to hold Python's Unicode
    classes, counts above 16 opened, a backreference read as any text. Case-insensitivity is ``re``'s own, written
    out: a literal or class under ``re.I`` becomes the class of every character ``re`` equates with it (RE2's case
    folding differs: ``re`` equates ``i`` with ``İ`` and ``ı``, and under ``re.A`` nothing outside ASCII).
    Raises ``_Unsupported`` for ``\\D``, ``\\S`` or ``\\W`` inside a negated class.
    """
    tree = _sre_parse(regex, flags)
    return _sequence(tree, tree.state.flags)


def _sequence(items: Any, flags: int) -> str:
    return "".join(_node(op, arg, flags) for op, arg in items)


def _char(code: int) -> str:
    char = chr(code)
    return char if char.isascii() and char.isalnum() else f"\\x{{{code:x}}}"


@cache
def _lowered_from() -> dict[int, tuple[int, ...]]:
    """Python's simple lower-case mapping reversed: a lower-case code point -> the others lowering to it (no cased
    character lies above plane 1; a test holds this over every code point)."""
    codes = range(0x20000)
    table: dict[int, tuple[int, ...]] = {}
    for code in itertools.compress(codes, map(operator.ne, codes, map(_sre.unicode_tolower, codes))):
        table[_sre.unicode_tolower(code)] = (*table.get(_sre.unicode_tolower(code), ()), code)
    return table


def _equated(code: int) -> set[int]:
    """The code points ``re`` equates with ``code`` under ``re.I`` (Unicode): those whose lower case is
    ``code``'s, or one of ``re``'s extra cases for it (``i``/``ı``, ``s``/``ſ``, ``µ``/``μ``, ...)."""
    lower = _sre.unicode_tolower(code)
    equated = {code}
    for low in (lower, *_EXTRA_CASES.get(lower, ())):
        equated.add(low)
        equated.update(_lowered_from().get(low, ()))
    return equated


def _case_closure(items: Any, flags: int) -> set[int]:
    """The code points outside ``items``' literals and ranges that ``re`` also matches under ``re.I`` (``flags``)."""
    codes: set[int] = set()
    ranges = [arg if op is sre.RANGE else (arg, arg) for op, arg in items if op in (sre.LITERAL, sre.RANGE)]
    if flags & re.ASCII:  # ASCII letters only
        for low, high in ranges:
            codes.update(ord(c.swapcase()) for c in map(chr, range(max(low, 65), min(high, 122) + 1)) if c.isalpha())
        return codes
    for low, high in ranges:
        if high - low < 256:
            for code in range(low, high + 1):
                codes |= _equated(code)
        else:  # only cased code points add any
            cased = {*_lowered_from(), *itertools.chain(*_lowered_from().values()), *_EXTRA_CASES}
            codes.update(c for c in cased if any(low <= e <= high for e in _equated(c)))
    return codes


def _class(items: Any, flags: int) -> str:
    negated = bool(items) and items[0][0] is sre.NEGATE
    items = items[1:] if negated else items
    parts = []
    for op, arg in items:
        if op is sre.LITERAL:
            parts.append(_char(arg))
        elif op is sre.RANGE:
            parts.append(f"{_char(arg[0])}-{_char(arg[1])}")
        elif op is sre.CATEGORY:
            table = _NEGATED if negated else _POSITIVE
            if arg not in table:
                raise _Unsupported(arg)
            parts.append(r"\t-\r\x{20}" if negated and arg is sre.CATEGORY_SPACE and flags & re.ASCII else table[arg])
        else:
            raise _Unsupported(op)
    if flags & re.IGNORECASE:
        parts.extend(map(_char, sorted(_case_closure(items, flags))))
    if not parts:
        return r"[^\x00-\x{10ffff}]" if not negated else r"(?s:.)"
    return f"[{'^' if negated else ''}{''.join(parts)}]"


def _node(op: Any, arg: Any, flags: int) -> str:
    if op is sre.LITERAL:
        return _class([(op, arg)], flags) if flags & re.IGNORECASE else _char(arg)
    if op is sre.NOT_LITERAL:
        return _class([(sre.NEGATE, None), (sre.LITERAL, arg)], flags)
    if op is sre.ANY:
        return "(?s:.)" if flags & re.DOTALL else "[^\\n]"
    if op is sre.IN:
        return _class(arg, flags)
    if op is sre.CATEGORY:
        return f"[{_POSITIVE[arg]}]"
    if op is sre.BRANCH:
        return "(?:" + "|".join(_sequence(branch, flags) for branch in arg[1]) + ")"
    if op is sre.SUBPATTERN:
        _group, add, remove, items = arg
        return "(?:" + _sequence(items, (flags | add) & ~remove) + ")"
    if op is sre.ATOMIC_GROUP:
        return "(?:" + _sequence(arg, flags) + ")"
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, high, items = arg  # RE2 writes out a counted repetition: above a few, only "at least" is kept
        count = f"{{{low},{high}}}" if high <= _COUNTED else f"{{{min(low, _COUNTED)},}}"
        return "(?:" + _sequence(items, flags) + ")" + count
    if op is sre.AT:
        return _at(arg, flags)
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return ""
    if op is sre.GROUPREF:  # the text a group matched: some text
        return "(?s:.*)"
    if op is sre.GROUPREF_EXISTS:
        _group, yes, no = arg
        return "(?:" + _sequence(yes, flags) + "|" + (_sequence(no, flags) if no else "") + ")"
    raise _Unsupported(op)


def _at(where: Any, flags: int) -> str:
    if where is sre.AT_BEGINNING:
        return "(?m:^)" if flags & re.MULTILINE else r"\A"
    if where is sre.AT_BEGINNING_STRING:
        return r"\A"
    if where is sre.AT_END:
        return "(?m:$)"  # without re.M, before a final newline: before every newline is wider
    if where is sre.AT_END_STRING:
        return r"\z"
    return ""  # \b, \B: Python's are Unicode, RE2's ASCII; dropped
