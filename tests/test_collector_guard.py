"""The Collector's value guard (``errscope._patterns.separators``, ``collector_value_guard``): the redaction
processor that runs the patterns needing a separator skips every value holding none of their separators.
Sound only if every match of each such pattern holds one: derived from the parse tree, checked here on
small regexes and on every match in the examples, the shared corpus and every held-out set."""

from __future__ import annotations

from pathlib import Path

import pytest
import re2
from errscope._patterns import (
    PATTERNS,
    collector_blocked_values,
    collector_value_guard,
    separators,
)

from tests import corpus
from tests.test_scrubbing import EXAMPLES, KEYWORD_SHAPES

GUARDED = [p for p in PATTERNS if separators(p.regex)]
ALLOWED = re2.compile(collector_value_guard().replace("$$", "$"))


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        (r"a[:=]b", ":="),  # a sequence needs what any item needs
        (r"k(?:=|: )v", ":="),  # an alternation: the union of its branches'
        (r"k(?:=|x)v", ""),  # ... and nothing when one branch needs nothing
        (r"k=?v", ""),  # an optional item needs nothing
        (r"k[ \t]+=+v", "="),  # the smallest set of the sequence
        (r"(?i:key)\s*@", "@"),  # \s* may be empty
        (r"x\sy", " \t\n\f\r"),  # RE2's \s
        (r"[^:]+", ""),  # a negated class
        (r"\bsk-[A-Za-z0-9]{16,}", ""),  # a token shape: '-' is a plain character
        (r"(?:^|[\s,])-p", ""),  # the start of the text is no character
    ],
)
def test_separators_follow_the_parse_tree(regex: str, expected: str) -> None:
    assert separators(regex) == frozenset(expected)


def _texts() -> list[str]:
    texts = [text for text, _ in EXAMPLES.values()] + [text for text, _ in KEYWORD_SHAPES]
    if corpus.corpus_dir() is not None:
        texts += [line["text"] for line in corpus.secrets() + corpus.benign()]
    for path in sorted(corpus.EXTENSION.glob("*.jsonl.gz")):  # every held-out set, secrets and benign
        texts += [line["text"] for line in corpus.held_out(Path(path).name)]
    return sorted(set(texts))


def test_every_match_holds_a_separator_the_guard_refuses() -> None:
    """For every line a guarded pattern matches (Go's semantics: RE2), the match holds one of the
    pattern's separators, so the guard does not allow the value and the pattern runs."""
    texts = _texts()
    assert len(texts) > 2000
    checked = 0
    for pattern in GUARDED:
        rx, needed = re2.compile(pattern.regex), separators(pattern.regex)
        for text in texts:
            for match in rx.finditer(text):
                assert needed & set(match.group(0)), (pattern.name, match.group(0))
                assert ALLOWED.search(text) is None, (pattern.name, text)
                checked += 1
    assert checked > 1000


def test_the_guard_allows_plain_values_only() -> None:
    for value in ("1.2.3.4", "telemetrygen-server", "/v1/orders/42", "application/json", "3", "7f3c2a9e-0b1d"):
        assert ALLOWED.search(value), value
    for value in ("user=svc", "Bearer x", "a@b.example", "k: v", "pw='x'", "f(x)", "a;b", "<a>", "k＝v"):
        assert ALLOWED.search(value) is None, value


def test_token_shapes_stay_cheap_on_every_value() -> None:
    """A pattern that needs no separator runs on every attribute value, in Go's NFA when it has no literal
    prefix: keep it short, or give it a separator (a key alternation belongs behind the guard)."""
    tokens = [p for p in PATTERNS if not separators(p.regex)]
    assert [p.regex.replace("$", "$$") for p in tokens] == collector_blocked_values(guarded=False)
    assert len(GUARDED) + len(tokens) == len(PATTERNS)
    for pattern in tokens:
        assert len(pattern.regex) <= 300, f"{pattern.name}: a long rule without a separator runs on every value"
    # the keyword family (the costly key alternations) is behind the guard, but for ``-p<password>``
    unguarded = [p.name for p in tokens if p.family == "keyword"]
    assert unguarded == ["cli_short_password"], f"keyword rules every value pays for: {unguarded}"


def test_posix_classes_are_refused() -> None:
    with pytest.raises(ValueError, match="POSIX"):
        separators("[[:alpha:]]+=x")
