"""errscope._prefilter: RE2 finds where a match can start, ``re`` reads it there; the match is ``re``'s own.

The readers of foreign texts run their large patterns through it; these tests hold every such pattern to
``re.search``'s exact answer on the error texts the classification tests quote (real libraries' and SDKs' messages),
on Unicode variants of them where Python's and RE2's classes differ, and on the constructs the loose RE2 form
drops or widens.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import random
import re
from pathlib import Path
from re import _constants as sre
from typing import Any

import pytest
import re2

import errscope
from errscope._prefilter import _CANDIDATES, _NEGATED, _POSITIVE, _SPACE, Prefiltered, loose_regex, prefiltered

TESTS = Path(__file__).resolve().parent


def _prefiltered_patterns() -> dict[str, Prefiltered]:
    """Every prefiltered pattern of the package, module-level or in a module-level tuple, by a readable name."""
    found: dict[str, Prefiltered] = {}
    for info in pkgutil.walk_packages(errscope.__path__, "errscope."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an extra's module
            continue
        for name, value in vars(module).items():
            items = value if isinstance(value, tuple) else (value,)
            for index, item in enumerate(items):
                for part in item if isinstance(item, tuple) else (item,):
                    if isinstance(part, Prefiltered):
                        found.setdefault(f"{info.name}.{name}[{index}]", part)
    return found


def _quoted_error_texts() -> list[str]:
    texts: set[str] = set()
    for path in sorted([*TESTS.glob("classification/*.py"), *TESTS.glob("*/test_heldout_cases_*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 8 <= len(node.value) <= 4000:
                texts.add(node.value)
    return sorted(texts)


def _variants(text: str) -> list[str]:
    """Where Python's Unicode classes and RE2's ASCII ones part: a letter beside a word (``\\b``), NBSP (``\\s``),
    case folds outside ASCII (the Kelvin sign, the long s), a lone surrogate, upper case."""
    return [
        text.upper(),
        text.replace(" ", "\u00a0"),
        "é" + text.replace(" ", "é", 3),
        text.replace("k", "\u212a").replace("s", "\u017f"),
        text + "\udc80",
    ]


PATTERNS = _prefiltered_patterns()
_PYTHON_CLASS = {
    sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_NOT_DIGIT: r"\D", sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S", sre.CATEGORY_WORD: r"\w", sre.CATEGORY_NOT_WORD: r"\W",
}


def test_the_readers_patterns_are_prefiltered() -> None:
    """The phrase lists that cost ``re`` ~6 µs a character run prefiltered."""
    names = {name.split(".")[-1].split("[")[0] for name in PATTERNS}
    assert {"_NEVER_REACHED", "_AFTER_SENDING", "_CRASH", "_PHRASES", "_UNKNOWN_TOOL", "_STRONG_MARKER"} <= names


def test_every_prefiltered_pattern_finds_what_re_finds() -> None:
    """Span and groups equal ``pattern.search``'s on a seeded sample of the quoted texts and their variants (a
    lone surrogate is read as ``?`` by both sides' contract, so ``re`` reads it so too)."""
    texts = random.Random(7).sample(_quoted_error_texts(), 1200)
    texts += [variant for text in texts[:300] for variant in _variants(text)]
    differ = []
    for name, pattern in PATTERNS.items():
        for text in texts:
            expected = pattern.pattern.search(text.encode("utf-8", "replace").decode())
            found = pattern.search(text)
            if (expected and (expected.span(), expected.groups())) != (found and (found.span(), found.groups())):
                differ.append((name, text[:80]))
    assert not differ, differ[:10]


@pytest.mark.parametrize(
    ("regex", "flags", "text"),
    [
        (r"\brefused\b", 0, "érefused"),  # Python: no boundary between two letters; RE2's \b would see one
        (r"\brefused\b", 0, "é refused"),
        (r"connection\s+refused", 0, "connection\u00a0refused"),  # NBSP is Python's \s, not RE2's
        (r"status (\d+)", 0, "status \u0665\u0660\u0663"),  # Arabic-Indic digits are Python's \d
        (r"(\w+) failed", 0, "naïve_ő failed"),
        (r"[^\s]+ refused", 0, "\u2003x refused"),
        (r"ok\b", re.I, "O\u212a"),  # the Kelvin sign folds to k
        (r"refused$", 0, "refused\n"),  # $ before a final newline
        (r"refused$", 0, "refused\nagain"),
        (r"(?m)^refused", 0, "x\nrefused"),
        (r"^refused", 0, "x\nrefused"),
        (r"(?<!not )refused", 0, "not refused, then refused"),
        (r"refused(?! by policy)", 0, "refused by policy; refused"),
        (r"(a+)-\1", 0, "aa-a aa-aa"),  # a backreference
        (r"(?:ab){1500}", 0, "ab" * 1600),  # beyond RE2's 1000
        (r"x(?i:ERROR)", 0, "xerror xERROR"),
        (r"(?-i:Error)", re.I, "error Error"),
        (r"a.b", re.S, "a\nb"),
        (r"a.b", 0, "a\nb axb"),
        (r"refused", 0, "connection refused\udc80"),
        (r"\d[^?]x", 0, "1\udc80x 1yx"),
        (r"\bab\b", 0, "xab " * (_CANDIDATES + 5) + "ab"),  # more loose candidates than are tried one by one
        (r"", 0, ""),
        (r"refused$\n", 0, "refused\n"),  # $ before the final newline, which the pattern then reads
        (r"i", re.I, "\u0130 \u0131"),  # re equates i with İ and ı; RE2's case folding does not
        (r"\u0130", re.I, "xi"),
        (r"[a-z]+", re.I, "\u0131\u0130k"),
        (r"[^\s]", re.A, "\x85"),  # ASCII \s: NEL is not a space
        (r"[^k]", re.A | re.I, "k\u212a"),  # ASCII case folding: the Kelvin sign is not k
        (r"x(?-i:[^k])", re.I, "xK"),
    ],
)
def test_constructs_the_loose_form_widens_keep_re_s_answer(regex: str, flags: int, text: str) -> None:
    pattern = prefiltered(re.compile(regex, flags))
    assert pattern._compile() is not False, loose_regex(regex, flags)
    expected = re.compile(regex, flags).search(text.encode("utf-8", "replace").decode())
    found = pattern.search(text)
    assert (expected and (expected.span(), expected.group())) == (found and (found.span(), found.group()))
    assert [m.span() for m in pattern.finditer(text)] == [
        m.span() for m in re.compile(regex, flags).finditer(text.encode("utf-8", "replace").decode())]


def test_a_page_with_no_match_never_reaches_re() -> None:
    """A 1 MiB page: RE2 answers alone; ``re`` runs once, at the one place a match can start."""
    calls: list[tuple[str, int]] = []

    class Counting:
        def __init__(self, pattern: re.Pattern[str]) -> None:
            self._pattern = pattern

        def match(self, text: str, pos: int = 0) -> Any:
            calls.append(("match", pos))
            return self._pattern.match(text, pos)

        def search(self, text: str, pos: int = 0) -> Any:
            calls.append(("search", pos))
            return self._pattern.search(text, pos)

    pattern = prefiltered(re.compile(r"\b(?:connection refused|no route to host|name or service not known)\b", re.I))
    pattern._compile()
    pattern.pattern = Counting(pattern.pattern)  # type: ignore[assignment]
    page = "<tr><td>row</td></tr>" * 50_000
    assert pattern.search(page) is None and calls == []
    found = pattern.search(page + " dial tcp: Connection Refused")
    assert found is not None and found.group() == "Connection Refused"
    assert calls == [("match", len(page) + len(" dial tcp: "))]


@pytest.mark.parametrize("negated", [False, True], ids=["positive", "negated"])
def test_the_loose_classes_widen_python_s(negated: bool) -> None:
    """Over every code point: in a positive class the RE2 form holds all of Python's class, in a negated class only
    members of it (RE2's Unicode tables are newer than Python's); ``_SPACE`` is exactly ``str.isspace``."""
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    for category, form in (_NEGATED if negated else _POSITIVE).items():
        python = _PYTHON_CLASS[category]
        if negated:  # every character the RE2 form names is in Python's class
            assert re.fullmatch(f"{python}*", "".join(re2.findall(f"[{form}]", text))), python
        else:  # every character of Python's class is in the RE2 form
            assert re2.fullmatch(f"[{form}]*", "".join(re.findall(python, text))), python
    assert set(re2.findall(f"[{_SPACE}]", text)) == {c for c in text if c.isspace()}


def test_no_cased_character_lies_above_plane_1() -> None:
    """The reversed lower-case table of the loose form's case folding scans planes 0 and 1 only."""
    import _sre

    assert all(_sre.unicode_tolower(c) == c for c in range(0x20000, 0x110000))
