"""Bench registry: ``python -m bench`` runs every ``bench/bench_*.py`` module's ``run()`` and prints the results."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here.parent))
    only = set(sys.argv[1:])
    known = {path.stem for path in here.glob("bench_*.py")}
    if only - known:
        print(f"unknown benchmark: {', '.join(sorted(only - known))} (known: {', '.join(sorted(known))})", file=sys.stderr)
        return 2
    for path in sorted(here.glob("bench_*.py")):
        name = path.stem
        if only and name not in only:
            continue
        module = importlib.import_module(f"bench.{name}")
        result = module.run()
        print(json.dumps({"bench": name, **result}, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
