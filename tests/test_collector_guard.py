"""The Collector's value guards (``errscope._patterns.separators``): ``redaction/scrub`` runs every pattern on
the values that hold a separator some pattern needs, ``redaction/scrub_plain`` only the token shapes on the
values that hold none. Sound only if every match of a pattern with separators holds one of them: derived
from the parse tree, checked here on small regexes and on every match in the examples, the shared corpus
and every held-out set."""

from __future__ import annotations

import pytest
import re2
from errscope._patterns import (
    PATTERNS,
    collector_blocked_values,
    combined_regex,
    collector_plain_value,
    collector_separated_value,
    separators,
)

from tests import corpus
from tests.test_scrubbing import EXAMPLES, KEYWORD_SHAPES

NEEDS_SEPARATOR = [p for p in PATTERNS if separators(p.regex)]
PLAIN = re2.compile(collector_plain_value().replace("$$", "$"))
SEPARATED = re2.compile(collector_separated_value().replace("$$", "$"))


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


def test_posix_classes_are_refused() -> None:
    with pytest.raises(ValueError, match="POSIX"):
        separators("[[:alpha:]]+=x")


def _texts() -> list[str]:
    texts = [text for text, _ in EXAMPLES.values()] + [text for text, _ in KEYWORD_SHAPES]
    if corpus.corpus_dir() is not None:
        texts += [line["text"] for line in corpus.secrets() + corpus.benign()]
    for path in sorted(corpus.EXTENSION.glob("*.jsonl.gz")):  # every held-out set, secrets and benign
        texts += [line["text"] for line in corpus.held_out(path.name)]
    return sorted(set(texts))


def test_every_match_holds_a_separator_so_its_value_meets_every_pattern() -> None:
    """For every line a pattern with separators matches (Go's semantics: RE2), the match holds one of
    them, so the value is not plain and redaction/scrub runs every pattern on it."""
    texts = _texts()
    assert len(texts) > 2000
    checked = 0
    for pattern in NEEDS_SEPARATOR:
        rx, needed = re2.compile(pattern.regex), separators(pattern.regex)
        for text in texts:
            for match in rx.finditer(text):
                assert needed & set(match.group(0)), (pattern.name, match.group(0))
                assert PLAIN.search(text) is None and SEPARATED.search(text), (pattern.name, text)
                checked += 1
    assert checked > 1000


def test_the_guards_split_every_value() -> None:
    plain = ["1.2.3.4", "telemetrygen-server", "/v1/orders/42", "application/json", "3", "7f3c2a9e-0b1d", ""]
    separated = ["user=svc", "Bearer x", "a@b.example", "k: v", "pw='x'", "f(x)", "a;b", "<a>", "k＝v"]
    for value in plain + separated + _texts()[:500]:
        assert bool(PLAIN.search(value)) != bool(SEPARATED.search(value)), value
    assert all(PLAIN.search(v) for v in plain) and not any(PLAIN.search(v) for v in separated)


def test_plain_values_meet_the_token_shapes_in_order() -> None:
    """A plain value meets only the patterns that need no separator, as one alternation in PATTERNS' order; it
    runs on every such value, in Go's NFA: keep them short, or give them a separator (a key alternation belongs
    behind the guard)."""
    tokens = [p for p in PATTERNS if not separators(p.regex)]
    assert collector_blocked_values(plain=True) == [combined_regex(tokens).replace("$", "$$")]
    for pattern in tokens:
        assert len(pattern.regex) <= 300, f"{pattern.name}: a long rule without a separator runs on every value"
    unguarded = [p.name for p in tokens if p.family == "keyword"]
    assert unguarded == ["cli_short_password"], f"keyword rules every plain value pays for: {unguarded}"
