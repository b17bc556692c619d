"""Go regexp CPU of the Collector's scrubbing regexes on the shared corpus, without starting a Collector.

The Collector's scrubbing CPU is Go's regexp running the generated regexes (``collector/config.yaml``): the
transform's combined pattern (``MatchString``, then ``ReplaceAllString`` whose ``$`` replacement makes Go record all
of its capture groups), the free-text guard, and the redaction processors' ``blocked_values`` (``MatchString``, then
``ReplaceAllStringFunc``, the match bounds only) and ``allowed_values``. ``bench/collector_regex/main.go`` runs each
once per corpus line, the way its processor runs it on one value, and reports CPU seconds (getrusage, so a loaded
machine inflates them less than wall time), beside: each pattern alone, summed (the cost of the patterns, not of
their one alternation), and the one alternation restricted, per line, to the patterns whose ``trigger_regex`` matches
it (what an exact trigger prefilter could reach). Seconds, against ``bench_collector corpus``'s minutes: for
comparing regex changes in one run. Needs Go.

    PYTHONPATH=instrumentation:. python bench/collector_regex.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from errscope._patterns import (
    GUARD,
    PATTERNS,
    collector_blocked_values,
    collector_guard,
    collector_plain_value,
    collector_regex,
    collector_replacement,
    collector_separated_value,
)

HERE = Path(__file__).resolve().parent / "collector_regex"


def _go(value: str) -> str:
    return value.replace("$$", "$")  # confmap escaping undone: the text Go compiles


def run() -> dict[str, object]:
    from tests import corpus

    texts = [line["text"] for line in corpus.secrets()] + [line["text"] for line in corpus.benign()]
    entries = [
        {"name": "transform replace_pattern", "regex": _go(collector_regex()), "replacement": _go(collector_replacement())},
        {"name": "transform GUARD as written", "regex": GUARD, "match_only": True},
        {"name": "transform GUARD as run (IsMatch, factored)", "regex": _go(collector_guard()), "match_only": True},
        {"name": "redaction/scrub blocked_values", "regex": _go(collector_blocked_values()[0])},
        {"name": "redaction/scrub allowed_values", "regex": _go(collector_plain_value()), "match_only": True},
        {"name": "redaction/scrub_plain blocked_values", "regex": _go(collector_blocked_values(plain=True)[0])},
        {"name": "redaction/scrub_plain allowed_values", "regex": _go(collector_separated_value()), "match_only": True},
    ]
    patterns = [{"name": p.name, "regex": p.regex, "trigger": p.trigger_regex} for p in PATTERNS]
    payload = json.dumps({"entries": entries, "patterns": patterns, "texts": texts})
    out = subprocess.run(
        ["go", "run", "."], cwd=HERE, input=payload, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    result["text_mb"] = round(sum(len(t.encode()) for t in texts) / 1e6, 3)
    return result


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
