"""Fixtures: the demo run once per session as a real ``errscope demo`` process (stdout not a terminal)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class DemoRun:
    """One finished ``errscope demo`` process: its output folder, streams and wall time."""

    out: Path
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def report(self) -> dict[str, Any]:
        return json.loads((self.out / "triage.json").read_text())

    def table(self) -> list[dict[str, str]]:
        """The printed table, parsed by the columns' header offsets."""
        lines = self.stdout.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("ERROR REF"))
        header = lines[start]
        names = [h for h in header.split("  ") if h.strip()]
        offsets = [header.index(name) for name in names]
        rows = []
        for line in lines[start + 1:]:
            if not line.startswith(("ERR-", "-")):
                break
            bounds = [*offsets[1:], None]
            rows.append({name.strip(): line[a:b].strip() for name, a, b in zip(names, offsets, bounds, strict=True)})
        return rows


def run_demo(out: Path, *extra: str, env: dict[str, str] | None = None, timeout: float = 120) -> DemoRun:
    environment = {**os.environ, **(env or {})}
    if not env or "OTEL_EXPORTER_OTLP_ENDPOINT" not in env:
        environment.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    started = time.monotonic()
    result = subprocess.run(  # noqa: S603 - fixed argv
        [sys.executable, "-m", "errscope.cli", "demo", "--out", str(out), *extra],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=timeout, check=False,
    )
    return DemoRun(out, result.returncode, result.stdout, result.stderr, time.monotonic() - started)


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The default demo (stdio), run once."""
    run = run_demo(tmp_path_factory.mktemp("demo") / "errscope-out")
    assert run.returncode == 0, run.stdout + run.stderr
    return run


@pytest.fixture(scope="session")
def demo_http(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The demo with the refund server on streamable HTTP, run once."""
    run = run_demo(tmp_path_factory.mktemp("demo-http") / "out", "--http")
    assert run.returncode == 0, run.stdout + run.stderr
    return run
