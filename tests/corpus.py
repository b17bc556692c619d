"""The shared secret corpus (../shared/corpus) and its scoring rule, for tests and benchmarks.

Scoring, exactly as the corpus README says: a secret line counts as recalled when no character run
of its ``secret`` longer than 4 characters survives in the scrubbed text; a benign line is a false
positive when it changed at all.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_CANDIDATES = [
    os.environ.get("ERRSCOPE_CORPUS_DIR", ""),
    str(REPO.parent / "shared" / "corpus"),
    "/work/shared/corpus",
]


def corpus_dir() -> Path | None:
    for candidate in _CANDIDATES:
        if candidate and (Path(candidate) / "secrets.jsonl.gz").is_file():
            return Path(candidate)
    return None


def _load(name: str) -> list[dict[str, str]]:
    directory = corpus_dir()
    if directory is None:
        raise FileNotFoundError("secret corpus not found (set ERRSCOPE_CORPUS_DIR)")
    with gzip.open(directory / name, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def secrets() -> list[dict[str, str]]:
    return _load("secrets.jsonl.gz")


def benign() -> list[dict[str, str]]:
    return _load("benign.jsonl.gz")


def leaked_literal(secret: str, scrubbed: str, run: int = 5) -> bool:
    """The README rule read literally: any run of ``run`` (> 4) characters of ``secret`` in ``scrubbed``.

    This also counts runs that were never part of the secret where they appear, e.g. ``githu`` of
    ``github_pat_...`` in the untouched host name ``api.github.com`` of the same line.
    """
    if len(secret) < run:
        return secret in scrubbed
    return any(secret[i : i + run] in scrubbed for i in range(len(secret) - run + 1))


def leaked(secret: str, scrubbed: str, text: str, run: int = 5) -> bool:
    """The README rule, counting only runs that survive *from the secret*.

    A run of ``run`` characters of ``secret`` leaked when it occurs in ``scrubbed`` more often than
    in the rest of the original ``text`` (the text with every copy of the secret cut out), so a
    run that merely also occurs in the surrounding words (``api.github.com``, ``RSA key``) is not
    a leak, while any surviving piece of the secret itself still is.
    """
    if not leaked_literal(secret, scrubbed, run):
        return False
    context = text.split(secret)
    if len(secret) < run:
        return scrubbed.count(secret) > sum(part.count(secret) for part in context)
    for i in range(len(secret) - run + 1):
        piece = secret[i : i + run]
        if scrubbed.count(piece) > sum(part.count(piece) for part in context):
            return True
    return False


@dataclass(frozen=True)
class Score:
    recall: float
    false_positive_rate: float
    recall_literal: float
    missed: list[dict[str, str]]
    missed_literal: list[dict[str, str]]
    altered: list[tuple[dict[str, str], str]]


def score(
    scrubber: Callable[[str], str],
    secret_lines: Iterable[dict[str, str]] | None = None,
    benign_lines: Iterable[dict[str, str]] | None = None,
) -> Score:
    s_lines = list(secret_lines if secret_lines is not None else secrets())
    b_lines = list(benign_lines if benign_lines is not None else benign())
    missed, missed_literal = [], []
    for line in s_lines:
        out = scrubber(line["text"])
        if leaked(line["secret"], out, line["text"]):
            missed.append(line)
        if leaked_literal(line["secret"], out):
            missed_literal.append(line)
    altered = []
    for line in b_lines:
        out = scrubber(line["text"])
        if out != line["text"]:
            altered.append((line, out))
    return Score(
        recall=1 - len(missed) / len(s_lines),
        false_positive_rate=len(altered) / len(b_lines),
        recall_literal=1 - len(missed_literal) / len(s_lines),
        missed=missed,
        missed_literal=missed_literal,
        altered=altered,
    )
