"""Cost of reading a foreign error text: errscope's readers with their RE2 prefilters against ``re`` alone.

Every reader of a foreign text (:func:`errscope._foreign_text.classify_text`, ``never_reached``,
``says_maybe_acted``) runs on the same texts twice in one process: as shipped, and with every
:class:`errscope._prefilter.Prefiltered` pattern searching with ``re`` alone (the tree before the prefilters).
Texts: ``short``, the error texts quoted in the classification tests (string constants of at least 20
characters with a space: real libraries' and SDKs' messages, median ~100 characters); ``page_16k`` and
``page_256k``, an upstream's HTML error page padded with a table, a key at its end (go-sdk's 2 MiB error text of
``tests/foreign`` is this shape). Figures are CPU microseconds (``time.process_time``) per text, the median of
``ROUNDS`` rounds, each round timing both sides; the ratio is prefiltered / ``re`` alone.
"""

from __future__ import annotations

import ast
import gc
import importlib
import os
import pkgutil
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import errscope
from errscope import _foreign_text
from errscope._prefilter import Prefiltered

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
TESTS = Path(__file__).resolve().parent.parent / "tests"
READERS: tuple[Callable[[str], Any], ...] = (
    _foreign_text.classify_text, _foreign_text.never_reached, _foreign_text.says_maybe_acted,
)


def _error_texts() -> list[str]:
    texts: set[str] = set()
    for path in sorted([*TESTS.glob("classification/*.py"), *TESTS.glob("*/test_heldout_cases_*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 20 <= len(node.value) <= 4000 \
                    and " " in node.value:
                texts.add(node.value)
    return sorted(texts)


def _page(size: int) -> str:
    head = "upstream returned 502 Bad Gateway: <html><head><title>502 Bad Gateway</title></head><body><table>"
    return head + "<tr><td>row</td></tr>" * ((size - len(head)) // 21) + " (api_key=FAKE0123456789abcdef)"


class _ReAlone(Prefiltered):
    """A prefiltered pattern searching with ``re`` alone."""

    __slots__ = ()

    def search(self, text: str) -> Any:
        return self.pattern.search(text)

    def finditer(self, text: str) -> Any:
        return self.pattern.finditer(text)


def _prefiltered_patterns() -> list[Prefiltered]:
    found: dict[int, Prefiltered] = {}
    names = [f"errscope.{m.name}" for m in pkgutil.walk_packages(errscope.__path__, "") if not m.ispkg]
    for name in sorted(set(names)):
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra's module
            continue
        for value in vars(module).values():
            items = value if isinstance(value, tuple) else (value,)
            for item in items:
                for part in item if isinstance(item, tuple) else (item,):
                    if type(part) is Prefiltered:
                        found[id(part)] = part
    return list(found.values())


@contextmanager
def _re_alone(patterns: list[Prefiltered]) -> Iterator[None]:
    for pattern in patterns:
        pattern.__class__ = _ReAlone
    try:
        yield
    finally:
        for pattern in patterns:
            pattern.__class__ = Prefiltered


def _cpu_us_per_text(texts: list[str]) -> float:
    gc.disable()
    start = time.process_time()
    for text in texts:
        for reader in READERS:
            reader(text)
    elapsed = time.process_time() - start
    gc.enable()
    return elapsed / len(texts) * 1e6


def run() -> dict[str, Any]:
    patterns = _prefiltered_patterns()
    kinds = {"short": _error_texts(), "page_16k": [_page(16 * 1024)], "page_256k": [_page(256 * 1024)]}
    result: dict[str, Any] = {"prefiltered_patterns": len(patterns), "short_texts": len(kinds["short"])}
    for kind, texts in kinds.items():
        fast, slow = [], []
        for _ in range(ROUNDS):
            fast.append(_cpu_us_per_text(texts))
            with _re_alone(patterns):
                slow.append(_cpu_us_per_text(texts))
        result[f"{kind}_us"] = round(statistics.median(fast), 1)
        result[f"{kind}_re_alone_us"] = round(statistics.median(slow), 1)
        result[f"{kind}_ratio"] = round(statistics.median(f / s for f, s in zip(fast, slow, strict=True)), 3)
    return result
