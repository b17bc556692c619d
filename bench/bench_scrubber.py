"""errscope.scrub over the shared secret corpus: median microseconds per line and MB/s.

Also reports recall and the benign false-positive rate (scored as the corpus README says), and the
same figures with the stdlib ``re`` engine (the fallback when google-re2 is not installed).

    python -m bench bench_scrubber
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import errscope._scrubbing as scrubbing

from tests import corpus

ROUNDS = 5


def _speed(lines: list[str]) -> dict[str, float]:
    for text in lines:  # warm caches
        scrubbing.scrub(text)
    per_line: list[float] = []
    for _ in range(ROUNDS):
        for text in lines:
            start = time.perf_counter()
            scrubbing.scrub(text)
            per_line.append(time.perf_counter() - start)
    total_bytes = sum(len(text.encode("utf-8", "surrogatepass")) for text in lines)
    start = time.perf_counter()
    for _ in range(ROUNDS):
        for text in lines:
            scrubbing.scrub(text)
    elapsed = time.perf_counter() - start
    big = ("upstream said: password=Hunter22x " * 4000)[:100_000]
    start = time.perf_counter()
    scrubbing.scrub(big)
    big_ms = (time.perf_counter() - start) * 1e3
    return {
        "median_us_per_line": round(statistics.median(per_line) * 1e6, 1),
        "p99_us_per_line": round(sorted(per_line)[int(len(per_line) * 0.99)] * 1e6, 1),
        "mb_per_s": round(total_bytes * ROUNDS / elapsed / 1e6, 2),
        "ms_for_100kb_message": round(big_ms, 1),
    }


def run() -> dict[str, object]:
    if corpus.corpus_dir() is None:
        return {
            "skipped": "shared corpus not found (../shared/corpus or ERRSCOPE_CORPUS_DIR)"
        }
    secret_lines, benign_lines = corpus.secrets(), corpus.benign()
    lines = [line["text"] for line in secret_lines + benign_lines]
    score = corpus.score(scrubbing.scrub, secret_lines, benign_lines)
    result: dict[str, object] = {
        "lines": len(lines),
        "recall": round(score.recall, 4),
        "recall_literal_overlap_rule": round(score.recall_literal, 4),
        "benign_false_positive_rate": round(score.false_positive_rate, 4),
        "engine": "google-re2" if scrubbing._re2 is not None else "re",
        **_speed(lines),
    }
    if scrubbing._re2 is not None:
        saved = scrubbing._re2
        scrubbing._re2 = None  # the stdlib fallback, same patterns
        try:
            result["stdlib_re"] = _speed(lines)
        finally:
            scrubbing._re2 = saved
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
