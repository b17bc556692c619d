"""Does a speed change alter any output of ``errscope.scrub``? Compare two checkouts on the same inputs.

Usage (from a checkout, ``PYTHONPATH=instrumentation:.``)::

    python -m bench.scrub_equivalence --tree /tmp/old    # this checkout against another one's instrumentation/

The inputs, built from this checkout's corpus whatever ``--tree`` says: every text of every ``*.jsonl.gz`` set in
``tests/secret_corpus`` and the shared corpus; ten variants of each (between words, quoted, twice on one line, after
a newline, upper and lower case, with colour codes, with a lone surrogate, with a non-ASCII character, cut in half);
20,000 splices of two texts (the head of one and the tail of another, at a random point: new boundaries between
shapes); and 40 KB blobs of consecutive texts (the large-text paths). Each tree scrubs all of them in its own process;
the script prints the number of inputs, the sha256 of each tree's outputs and every input whose outputs differ (the
first ten in full). Exit status 1 when any differs.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPLICES = 20_000
BLOB = 40_000


def _texts() -> list[str]:
    sys.path.insert(0, str(REPO))
    from tests import corpus

    files = sorted(corpus.EXTENSION.glob("*.jsonl.gz"))
    shared = corpus.corpus_dir()
    files += sorted(shared.glob("*.jsonl.gz")) if shared else []
    texts: list[str] = []
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            texts += [json.loads(line)["text"] for line in fh if line.strip()]
    return texts


def inputs() -> list[str]:
    texts = _texts()
    out = list(texts)
    for text in texts:
        out += [
            f"upstream said: {text} (retrying)",
            f'"{text}"',
            f"{text} {text}",
            f"ERROR\n{text}\n",
            text.upper(),
            text.lower(),
            f"\x1b[31m{text}\x1b[0m",
            text + "\ud800",
            "é " + text,
            text[: len(text) // 2],
        ]
    rng = random.Random(13)
    for _ in range(SPLICES):
        a, b = rng.choice(texts), rng.choice(texts)
        out.append(a[: rng.randint(0, len(a))] + b[rng.randint(0, len(b)) :])
    blob: list[str] = []
    size = 0
    for text in texts:
        blob.append(text)
        size += len(text) + 1
        if size >= BLOB:
            out.append("\n".join(blob))
            blob, size = [], 0
    return out


def _run(tree: Path, texts: Path, result: Path) -> None:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=f"{tree / 'instrumentation'}:{REPO}")
    code = (
        "import pickle, sys\nfrom errscope import scrub\n"
        "texts = pickle.load(open(sys.argv[1], 'rb'))\n"
        "pickle.dump([scrub(t) for t in texts], open(sys.argv[2], 'wb'))\n"
    )
    subprocess.run([sys.executable, "-c", code, str(texts), str(result)], env=env, cwd=REPO, check=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, required=True, help="the other checkout (its instrumentation/ is imported)")
    args = parser.parse_args()
    texts = inputs()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp, "in.pickle")
        source.write_bytes(pickle.dumps(texts))
        outputs = []
        for name, tree in (("this", REPO), ("other", args.tree)):
            result = Path(tmp, f"{name}.pickle")
            _run(tree, source, result)
            outputs.append(pickle.loads(result.read_bytes()))
    ours, theirs = outputs
    for name, out in (("this", ours), ("other", theirs)):
        digest = hashlib.sha256("\x00".join(out).encode("utf-8", "surrogatepass")).hexdigest()
        print(f"{name}: {len(out)} outputs, sha256 {digest}")
    differ = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    print(f"{len(texts)} inputs, {len(differ)} differ")
    for i in differ[:10]:
        print(f"--- input {i}: {texts[i][:300]!r}\n  this:  {ours[i][:300]!r}\n  other: {theirs[i][:300]!r}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
