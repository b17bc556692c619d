"""Score every secret set with ``errscope.scrub`` and with the RE2 patterns alone (what the Collector runs).

    python -m tests.secret_corpus.score_all [--json out.json] [--compare before.json]

One row per set: missed secret lines and altered benign lines, for both scrubbers. ``--compare`` prints
what changed against an earlier ``--json`` and exits 1 when any set lost recall or gained a false positive
(the rule every new round of fixes must keep).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests import corpus

SETS = ("heldout", "fresh", "oncall", "lookalike", "wrapped", "mcpstack", "infra", "polyglot", "captured", "dumped", "atrest", "quoted", "localized", "prose", "logformats", "bare", "tabular", "raised", "invoked", "decoys", "escaped", "toolout", "continued", "typed", "richtext", "bytedump", "signed", "notations", "traced", "apps", "audited", "notebooks", "released", "piped")


def _sets() -> dict[str, tuple[list[dict[str, str]], list[dict[str, str]]]]:
    sets = {"corpus": (corpus.secrets(), corpus.benign())}
    for name in SETS:
        sets[name] = corpus.held_out(f"{name}_secrets.jsonl.gz"), corpus.held_out(f"{name}_benign.jsonl.gz")
    return sets


def score_all() -> dict[str, dict[str, list[int]]]:
    """``{set: {"scrub": [missed, secrets, altered, benign], "regex_only": [...]}}``."""
    from errscope import scrub

    table: dict[str, dict[str, list[int]]] = {}
    for name, (secrets, benign) in _sets().items():
        table[name] = {}
        for label, scrubber in (("scrub", scrub), ("regex_only", corpus.regex_only)):
            result = corpus.score(scrubber, secrets, benign)
            table[name][label] = [len(result.missed), len(secrets), len(result.altered), len(benign)]
    return table


def _row(cells: list[int]) -> str:
    missed, n_secrets, altered, n_benign = cells
    return f"{n_secrets - missed:>4}/{n_secrets:<4} {altered:>3}/{n_benign:<4}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    table = score_all()
    before = json.loads(args.compare.read_text()) if args.compare else {}
    print(f"{'set':<10} {'scrub recall / FP':<20} {'regex_only recall / FP':<22}")
    worse = False
    for name, row in table.items():
        line = f"{name:<10} {_row(row['scrub']):<20} {_row(row['regex_only']):<22}"
        if name in before:
            line += "  before: " + "  ".join(_row(before[name][k]) for k in ("scrub", "regex_only"))
            for k in ("scrub", "regex_only"):
                if row[k][0] > before[name][k][0] or row[k][2] > before[name][k][2]:
                    worse = True
                    line += f"  WORSE ({k})"
        print(line)
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
