"""Instructions per ``errscope.scrub`` call, counted with callgrind (the figures of the engine section of
``tests/secret_corpus/README.md``).

Usage (from a checkout, ``PYTHONPATH=instrumentation:.``)::

    python -m bench.callgrind_scrub lines                  # a corpus line (every secret and benign line)
    python -m bench.callgrind_scrub blob64k                # bench_scrubber's 64 KiB benign blob
    python -m bench.callgrind_scrub body dense             # its two 100 KB messages
    python -m bench.callgrind_scrub lines --tree /tmp/old  # errscope imported from another checkout

Runs a process under ``valgrind --tool=callgrind`` twice, once with FEW passes over the texts and once with MANY,
and prints ``(I(MANY) - I(FEW)) / ((MANY - FEW) * texts)``: the instructions of one warm scrub, start-up, imports
and compilation cancelled out. The texts are built from this checkout's corpus whatever ``--tree`` says, so two
trees count the same inputs. The garbage collector is off in the counted passes and ``PYTHONHASHSEED=0`` fixes set
and dict orders: the count does not move with the machine's load (wall times on the shared machine do).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PASSES = {"lines": (2, 5), "blob64k": (3, 13), "body": (3, 13), "dense": (2, 6)}


def _texts(kind: str) -> list[str]:
    sys.path.insert(0, str(REPO))
    from bench.bench_scrubber import _blob
    from tests import corpus

    secret, benign = corpus.secrets(), corpus.benign()
    benign_texts = [line["text"] for line in benign]
    if kind == "lines":
        return [line["text"] for line in secret + benign]
    if kind == "blob64k":
        return [_blob(benign_texts, 64 * 1024)]
    if kind == "body":
        return [_blob(benign_texts, 100_000 - 200) + " DATABASE_URL=postgresql://app:Hunter22x@db:5432/x api_key=" + "Q7" + "x" * 30]
    return [("upstream said: password=Hunter22x " * 4000)[:100_000]]


def _run(kind: str, passes: int) -> None:
    texts = _texts(kind)
    from errscope import scrub

    for text in texts:  # compile, fill the caches
        scrub(text)
    gc.collect()
    gc.disable()
    for _ in range(passes):
        for text in texts:
            scrub(text)


def _count(kind: str, passes: int, tree: Path) -> int:
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=f"{tree / 'instrumentation'}:{REPO}")
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.out", sys.executable, "-m",
             "bench.callgrind_scrub", "--run", kind, str(passes)],
            env=env, cwd=REPO, check=True, capture_output=True,
        )
        summary = re.search(r"^summary: (\d+)", Path(out, "cg.out").read_text(), re.MULTILINE)
        assert summary is not None
        return int(summary.group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kinds", nargs="*", help=f"of {sorted(PASSES)} (default: lines)")
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose instrumentation/ is imported")
    parser.add_argument("--run", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        _run(args.run[0], int(args.run[1]))
        return
    for kind in args.kinds or ["lines"]:
        few, many = PASSES[kind]
        texts = len(_texts(kind))
        per_scrub = (_count(kind, many, args.tree) - _count(kind, few, args.tree)) / ((many - few) * texts)
        print(f"{kind}: {per_scrub:,.0f} instructions a scrub ({texts} texts, {args.tree})")


if __name__ == "__main__":
    main()
