"""The scrubber's speed paths change no output: ``scrub`` against a plain engine on every corpus line.

The plain engine runs the same rules the obvious way: every pattern the trigger set admits, in
order, on the text as the patterns before it left it, each match's groups read by RE2 from the
whole pattern (no ``parse`` program, no check of large texts that skips patterns). Both
must give the same text on every line of every corpus set (the shared corpus, its extension and
the held-out sets), also twice on one line, with colour codes and with a lone surrogate, and on
large texts made of all lines (issue #13: any speed change gives identical output). The byte-dump pass
(``errscope._bytedump``) and the hex-spelled text pass are no speed path: both run them around the patterns, as
``scrub`` does.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import random
import string
from pathlib import Path

import pytest
import re2  # type: ignore[import-untyped]

from errscope import _bytedump, _scrubbing, scrub
from errscope._patterns import PATTERNS
from tests import corpus


def _plain_rule(pattern: object) -> _scrubbing._Rule:
    rule = _scrubbing._rule(pattern)  # type: ignore[arg-type]
    options = re2.Options()
    options.never_capture = True
    find = re2.compile(pattern.regex.encode(), options)._regexp  # type: ignore[attr-defined]
    whole = re2.compile(pattern.regex.encode())._regexp  # type: ignore[attr-defined]
    return dataclasses.replace(rule, find=find, parse=whole if pattern.groups else None, grouped=False, match=find.Match)  # type: ignore[attr-defined]


_PLAIN_RULES = tuple(_plain_rule(p) for p in PATTERNS)


def _plain_patterns(text: str) -> str:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        text = _scrubbing.without_surrogates(text)
        data = text.encode("utf-8")
    hits = sorted(_scrubbing._SET.Match(data))
    scrubbed = data
    # the pass over names in headers and lines before: when one of its triggers matched (its hints after them are
    # no reason to run it); here with every reader, whatever the hints said
    extra = [hits.pop() for _ in range(len(hits)) if hits[-1] > len(PATTERNS)]
    named_elsewhere = any(index <= len(PATTERNS) + len(_scrubbing._TABULAR_TRIGGERS) for index in extra)
    if hits and hits[-1] == len(PATTERNS):
        scrubbed = _scrubbing._scrub_urls(scrubbed)
        hits.pop()
    redacted: list[bytes] = []
    for index in hits:
        rule = _PLAIN_RULES[index]
        spans = rule.find.Match(_scrubbing._UNANCHORED, scrubbed, 0, len(scrubbed))
        if spans[0][0] >= 0:
            scrubbed = _scrubbing._substitute(rule, scrubbed, spans, redacted)
    if redacted:
        scrubbed = _scrubbing._without_echoes(scrubbed, redacted)
    text = text if scrubbed is data else scrubbed.decode("utf-8", "replace")
    return _scrubbing.scrub_named_cells(text) if named_elsewhere else text


def plain_scrub(text: str) -> str:
    tail = ""
    if len(text) > _scrubbing.MAX_SCRUB_CHARS:
        tail = _scrubbing.TRUNCATED_MARKER.format(n=len(text) - _scrubbing.MAX_SCRUB_CHARS)
        text = text[: _scrubbing.MAX_SCRUB_CHARS]
    kept = None
    if "\n" in text and _bytedump.might_hold_dumps(text):  # a dump's rows, read back as scrub reads them
        text, kept = _bytedump.mask_dumps(text, _plain_patterns)
    if _scrubbing._may_spell_hex(text):  # text spelled in hex, read back as scrub reads it
        text = _scrubbing._without_hex_spelled_secrets(text, _plain_patterns)
    scrubbed = _plain_patterns(text)
    if kept:
        scrubbed = _bytedump.keep_rows(scrubbed, kept, text.count("\n") + 1)
    if "\x1b[" in scrubbed or _scrubbing._holds_escaped_sgr(scrubbed):  # raw colours, or spelled (``\\u001b[``)
        plain = _scrubbing._SGR.sub("", scrubbed)
        cleaned = _plain_patterns(plain)
        scrubbed = scrubbed if cleaned == plain else cleaned
    return scrubbed + tail


def _corpus_files() -> list[Path]:
    files = sorted(corpus.EXTENSION.glob("*.jsonl.gz"))
    shared = corpus.corpus_dir()
    return files + (sorted(shared.glob("*.jsonl.gz")) if shared else [])


def _lines() -> list[str]:
    texts = []
    for path in _corpus_files():
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            texts += [json.loads(line)["text"] for line in fh if line.strip()]
    return texts


def test_every_corpus_line_scrubs_as_the_plain_engine_does() -> None:
    if corpus.corpus_dir() is None:
        pytest.skip("shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)")
    lines = _lines()
    assert len(lines) > 3000  # every set: the shared corpus, its extension, the held-out sets
    differ = []
    for text in lines:
        for variant in (text, f"{text} | {text}", "\x1b[31m" + text.replace("=", "\x1b[0m=\x1b[32m", 1) + "\x1b[0m", f"{text} \ud800 {text[:40]}"):
            if scrub(variant) != plain_scrub(variant):
                differ.append(variant)
    assert not differ, differ[:5]


def test_large_texts_scrub_as_the_plain_engine_does() -> None:
    """Texts above the size where the triggered patterns are first checked together, with secrets."""
    if corpus.corpus_dir() is None:
        pytest.skip("shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)")
    blob = "\n".join(_lines())
    for start in range(0, len(blob), len(blob) // 6):
        text = blob[start : start + 40_000]
        assert scrub(text) == plain_scrub(text)
    benign = "\n".join(line["text"] for line in corpus.benign())
    assert len(benign) > _scrubbing._LARGE and scrub(benign) == plain_scrub(benign) == benign


def test_ascii_programs_match_as_the_utf8_ones_on_ascii_text() -> None:
    """Every pattern's Latin-1 program (what ``scrub`` runs on ASCII text) finds the same spans and groups as its
    UTF-8 program on every ASCII line of every corpus set its trigger admits (the lines ``scrub`` runs it on), twice on
    one line, and the trigger sets agree. Each pattern meets the lines of its kind: every program on every line cost
    the suite 90 s."""
    if corpus.corpus_dir() is None:
        pytest.skip("shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)")
    texts = [text.encode() for text in _lines() if text.isascii()]
    assert len(texts) > 3000
    latin1 = sum(rule.find.options().encoding == _scrubbing._LATIN1 for rule in _scrubbing._ASCII_RULES)
    assert latin1 >= len(PATTERNS) - 5  # a pattern that does not convert keeps its UTF-8 program: a few at most
    differ, matched = [], set()
    for data in texts + [t + b" | " + t for t in texts[::7]]:
        admitted = sorted(_scrubbing._SET.Match(data))
        assert admitted == sorted(_scrubbing._ASCII_SET.Match(data))
        for index in (index for index in admitted if index < len(PATTERNS)):
            pattern, utf8, latin = PATTERNS[index], _scrubbing._RULES[index], _scrubbing._ASCII_RULES[index]
            found = utf8.match(_scrubbing._UNANCHORED, data, 0, len(data))
            if found != latin.match(_scrubbing._UNANCHORED, data, 0, len(data)):
                differ.append((pattern.name, data))
            elif found[0][0] >= 0:
                matched.add(pattern.name)
                start, end = found[0]
                if utf8.parse is not None and utf8.parse.Match(_scrubbing._ANCHOR_BOTH, data, start, end) != latin.parse.Match(_scrubbing._ANCHOR_BOTH, data, start, end):
                    differ.append((pattern.name, data))
    assert not differ, differ[:5]
    assert len(matched) > 0.9 * len(PATTERNS)  # 184 of 193 when written: the others match non-ASCII lines only


def test_ascii_program_conversion() -> None:
    """A non-ASCII character of a pattern, literal or escaped, becomes a byte ASCII text never holds; an escaped
    non-ASCII character is left to the UTF-8 program."""
    assert _scrubbing._ascii_program("pa(?:ß|ss)wort[:=：]") == rb"pa(?:\x{ff}|ss)wort[:=\x{ff}]"
    assert _scrubbing._ascii_program(r"[A-Z\x{80}-\x{10FFFF}]+\x{41}") == rb"[A-Z\x{ff}-\x{ff}]+\x{41}"
    assert _scrubbing._ascii_program(r"\ß") is None


def test_naming_lines_change_nothing_where_their_trigger_does_not_match() -> None:
    """A text above ``_LARGE`` with a newline runs the tabular pass's naming-line reader whatever the set says (its set
    has no naming-line trigger; the SQL, HTML and JSON readers still run only where the pass's other triggers
    matched): exact only if that reader changes no text the naming-line trigger does not admit. Every corpus line,
    and runs of three lines joined by newlines (a name line, then its value line)."""
    if corpus.corpus_dir() is None:
        pytest.skip("shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)")
    lines = _lines()
    names = len(PATTERNS) + 1 + _scrubbing._TABULAR_NAMES
    checked, differ = 0, []
    for text in lines + ["\n".join(lines[i : i + 3]) for i in range(len(lines))]:
        if names not in _scrubbing._SET.Match(text.encode("utf-8", "replace")):
            checked += 1
            if _scrubbing.scrub_named_cells(text, _scrubbing._NO_READERS) != text:
                differ.append(text)
    assert checked > 3000 and not differ, differ[:5]


def test_large_texts_run_no_reader_the_pass_triggers_did_not_admit() -> None:
    """A line the tabular pass's readers would change (a JSON ``{"name": "auth", "value": ..}``) but none of its
    triggers admits, in a text above ``_LARGE`` with newlines: the readers other than the naming lines' stay off, as on
    the line alone."""
    if corpus.corpus_dir() is None:
        pytest.skip("shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)")
    runs = {len(PATTERNS) + 1 + index for index in _scrubbing._TABULAR_RUNS}
    filler = "GET /healthz 200 in 3 ms\n" * 400  # lines no trigger of the pass admits (the line before may)
    found = [text for text in _lines() if runs.isdisjoint(_scrubbing._SET.Match(text.encode("utf-8", "replace")))
             and _scrubbing.scrub_named_cells(text) != text]
    assert found  # (the HAR lines of the shared corpus, at the time of writing)
    for text in found[:20]:
        for large in (f"{text}\n{filler}", f"{filler}{text}"):
            assert len(large.encode()) > _scrubbing._LARGE and scrub(large) == plain_scrub(large)


def _each_trigger_alone(data: bytes, large: bool) -> list[int]:
    """The entries of the trigger sets that match ``data``, each trigger run by itself (RE2, UTF-8)."""
    triggers = [p.trigger_regex for p in PATTERNS] + [_scrubbing._URL_TRIGGER.decode(), *_scrubbing._TABULAR_TRIGGERS]
    triggers += list(_scrubbing._TABULAR_HINTS)
    skipped = len(PATTERNS) + 1 + _scrubbing._TABULAR_NAMES if large else -1  # the large sets leave it out
    options = re2.Options()
    options.max_mem = 256 << 20
    text = data.decode()
    return [i for i, trigger in enumerate(triggers) if i != skipped and re2.compile(trigger, options).search(text)]


def test_the_split_trigger_sets_answer_as_each_trigger_alone_on_a_mebibyte() -> None:
    """The trigger sets are split so their DFAs fit (``_SET_RUNS`` repeating triggers a set): on 1 MiB texts that make
    a DFA build the most states (random printable bytes, base64-like runs, every trigger's shape thousands of times,
    non-ASCII), and on a line with lone surrogates, the sets (UTF-8 and Latin-1, small and large) list exactly the
    entries whose trigger matches by itself: none read as "no match". (RE2 sets never give up for slowness, unlike a
    single regex's DFA; a set too large for ``_SET_MEMORY`` fails to compile, at import, not at a match.)"""
    rng = random.Random(11)
    printable = string.printable[:94] + " \n\t"
    shapes = ["ghp_", "sk_live_", "AKIA", "xoxb-", "password=", "token: ", "-----BEGIN ", "eyJ", "Bearer ", "api_key=",
              "https://u:p@", "\n| password | ", "INSERT INTO t (a) VALUES ("]  # fmt: skip
    texts = [
        "".join(rng.choice(printable) for _ in range(1 << 20)),
        "".join(rng.choice(string.ascii_letters + string.digits + "+/=_-.") for _ in range(1 << 20)),
        " ".join(rng.choice(shapes) + "".join(rng.choice(printable) for _ in range(rng.randrange(5, 60)))
                 for _ in range(30_000)),  # fmt: skip
        "".join(chr(rng.randrange(32, 0x3000)) for _ in range(1 << 19)) + " api_key=Q7xY2mK9pL4vN8rT3wZ6",
    ]
    for text in texts:
        data = text.encode()
        large = len(data) > _scrubbing._LARGE
        want = _each_trigger_alone(data, large)
        assert sorted((_scrubbing._LARGE_SET if large else _scrubbing._SET).Match(data)) == want
        if text.isascii():
            assert sorted((_scrubbing._LARGE_ASCII_SET if large else _scrubbing._ASCII_SET).Match(data)) == want
    surrogates = "api_key=\ud800Q7xY2mK9pL4vN8rT3wZ6 password=\udcffFern!Stone77"
    data = _scrubbing.without_surrogates(surrogates).encode()  # what scrub gives RE2
    assert sorted(_scrubbing._SET.Match(data)) == _each_trigger_alone(data, large=False) != []


def test_a_lone_surrogate_reads_as_a_character_not_as_syntax() -> None:
    """A lone surrogate (no UTF-8 for RE2) becomes U+FFFD, a character as the one it replaces was: as ``?`` it read as
    punctuation, and ``api_key=<surrogate>Q7xY...`` kept its key (``?`` starts no value). A pair, decoded one half at a
    time, is the character it encodes."""
    assert scrub("api_key=\ud800Q7xY2mK9pL4vN8rT3wZ6") == "api_key=[REDACTED]"
    assert scrub("password=\udcffFern!Stone77 next") == "password=[REDACTED] next"
    assert scrub("ok \ud83d\ude00 \ud800") == "ok \U0001f600 \ufffd"
