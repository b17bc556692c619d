"""The Collector's value guards (``errscope._patterns.separators``): ``redaction/scrub`` runs every pattern on
the values that hold a separator some pattern needs, ``redaction/scrub_plain`` only the token shapes on the
values that hold none. Sound only if every match of a pattern with separators holds one of them: derived
from the parse tree, checked here on small regexes and on every match in the examples, the shared corpus
and every held-out set."""

from __future__ import annotations

import math

import pytest
import re2
from errscope._patterns import (
    GUARD,
    PATTERNS,
    collector_blocked_values,
    collector_guard,
    collector_length_outside,
    collector_short_plain_blocked_values,
    collector_short_plain_value,
    combined_regex,
    collector_plain_value,
    collector_separated_value,
    factored_alternation,
    plain_min_length,
    separators,
)

from collector import generate

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


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        (r"ghp_[A-Za-z0-9]{36,}", 40),  # a sequence: the sum of its items; a repetition: its minimum count
        (r"a(?:bc|d)e?", 2),  # an alternation: its shortest branch; an optional item: nothing
        (r"\bs\.[A-Za-z0-9]{24}\b", 26),  # \b is no character
        (r"(?:^|[\s,])-p[A-Za-z0-9]", 3),  # the start of the text is no character
        (r"k(?:=|x)v", 3),  # a branch with a separator cannot match in a plain value
        (r"a=b", math.inf),  # ... and a sequence that needs one matches nothing there
        (r"[:=]x", math.inf),  # a class of separators alone
        (r"[^=]{4}", 4),  # a negated class: one character
        (r"(?i:key)-[0-9]{2}", 6),  # case folding changes no length
    ],
)
def test_plain_min_length_follows_the_parse_tree(regex: str, expected: float) -> None:
    assert plain_min_length(regex) == expected


def test_every_plain_match_is_at_least_the_min_length() -> None:
    """For every match of a token shape (Go's semantics: RE2) that holds no separator, so could be in a plain value,
    the match holds at least :func:`plain_min_length` characters: a shorter plain value cannot hold one."""
    separators_held = set().union(*(separators(p.regex) for p in PATTERNS))
    texts = _texts()
    checked = 0
    for pattern in (p for p in PATTERNS if not separators(p.regex)):
        rx, shortest = re2.compile(pattern.regex), plain_min_length(pattern.regex)
        for text in texts:
            for match in rx.finditer(text):
                if not separators_held & set(match.group(0)):
                    assert len(match.group(0)) >= shortest, (pattern.name, match.group(0))
                    checked += 1
    assert checked > 300


def _go(regex: str) -> re2._Regexp:
    return re2.compile(regex.replace("$$", "$"))


def test_the_length_tiers_split_every_plain_value() -> None:
    """Each plain value meets exactly one token-shape processor (the others' ``allowed_values`` skip it), the one
    whose tier holds its length (in characters: Go's ``(?s:.)``, one code point), and that processor's alternation
    is every token shape that fits, in PATTERNS' order."""
    tiers = generate.plain_tiers()
    allowed = [[_go(a) for a in collector_length_outside(low, high)] + [SEPARATED] for _, low, high in tiers]
    values = ["", "7", "1.2.3.4", "telemetrygen", "telemetrygen-client", "3f2b8c1e-4a5d-4e6f-9a7b-1c2d3e4f5a6b",
              "é" * 12, "é" * 13, "日本語" * 7, "x" * 20, "x" * 21, "x" * 28, "x" * 29, "x" * 400]  # fmt: skip
    values += [v for v in _texts() if PLAIN.search(v)][:300]
    for value in values:
        meets = [name for (name, low, high), entries in zip(tiers, allowed, strict=True)
                 if not any(e.search(value) for e in entries)]  # fmt: skip
        assert meets == [name for name, low, high in tiers if low <= len(value) <= (high or math.inf)], value
    for separated in ("user=svc", "Bearer x", "a@b"):
        assert all(any(e.search(separated) for e in entries) for entries in allowed)
    tokens = [p for p in PATTERNS if not separators(p.regex)]
    for _, _, high in tiers[:-1]:
        assert high is not None
        fit = [p for p in tokens if plain_min_length(p.regex) <= high]
        assert collector_short_plain_blocked_values(high) == [combined_regex(fit).replace("$", "$$")]
        assert 0 < len(fit) < len(tokens)


def test_the_factored_guard_is_guard_for_a_yes_or_no() -> None:
    """The transform's ``IsMatch`` runs GUARD with each case-folded word list split into one alternative a word and the
    alternatives sorted (Go merges their common leading letters): the same texts match, on every example and corpus
    line and their upper- and lower-case forms."""
    assert factored_alternation(r"(?i:b|a(?:x|y))[ \t]|z|(?i:c)+|&#|(?i:a)\(") == (
        r"(?i:a(?:x|y))[ \t]|(?i:a)\(|(?i:b)[ \t]|(?i:c)+|&#|z"
    )
    factored = collector_guard().replace("$$", "$")
    assert sorted(factored) != sorted(GUARD)  # rewritten, not copied
    guard, fast = re2.compile(GUARD), re2.compile(factored)
    texts = _texts()
    texts += [t.upper() for t in texts] + [t.lower() for t in texts]
    differ = [t for t in texts if bool(guard.search(t)) != bool(fast.search(t))]
    assert differ == []
    assert sum(bool(guard.search(t)) for t in texts) > 1000


def test_a_short_plain_match_meets_its_tiers_shapes() -> None:
    """The transform checks a free-text value of at most ``PLAIN_TIERS[-1]`` characters without a separator for the
    token shapes that fit in its tier instead of GUARD: every token shape's match that holds no separator, read as
    such a value, is admitted by its tier's value regex and matched by its tier's shapes (RE2, Go's semantics)."""
    tiers = [(low, high) for _, low, high in generate.plain_tiers() if high]
    shapes = {high: _go(collector_short_plain_blocked_values(high)[0]) for _, high in tiers}
    values = {high: _go(collector_short_plain_value(low, high)) for low, high in tiers}
    texts = _texts()
    checked = 0
    for pattern in (p for p in PATTERNS if not separators(p.regex)):
        rx = re2.compile(pattern.regex)
        for text in texts:
            for match in rx.finditer(text):
                found = match.group(0)
                if PLAIN.search(found) and len(found) <= tiers[-1][1]:
                    high = next(h for low, h in tiers if low <= len(found) <= h)
                    assert values[high].search(found) and shapes[high].search(found), (pattern.name, found)
                    checked += 1
    assert checked > 50
    for low, high in tiers:  # the value regexes count characters and refuse a separator
        assert values[high].search("é" * high) and not values[high].search("é" * (high + 1))
        assert not values[high].search("a=b") and (low == 0 or not values[high].search("x" * (low - 1)))
