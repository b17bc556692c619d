"""Fixtures: the feed's telemetry through a real Collector into a real Prometheus (session-scoped)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from scripts.stackrun import ROOT, Collector, Prometheus
from tests.conftest import require_executable
from tests.dashboards import feed
from tests.integration.collector_harness import collector_binary

SERVICE = "errscope-feed"


@dataclass
class Fed:
    """Prometheus holding what the feed sent through the Collector, plus what the feed did."""

    prometheus: Prometheus
    collector: Collector
    summary: dict[str, Any]

    @property
    def at(self) -> float:
        """Evaluation time for instant queries: just after the last export."""
        return float(self.summary["finished"]) + 1.0

    @property
    def rate_interval(self) -> str:
        """What ``$__rate_interval`` stands for here: from the middle of the gap before the last round
        (every series has a sample by then) to :attr:`at`, so ``rate()`` sees exactly the last round's
        increments however long a loaded machine made the round (Grafana's 1m could start inside it)."""
        start = float(self.summary["last_round_started"]) - feed.ROUND_GAP_S / 2
        return f"{math.ceil((self.at - start) * 1000)}ms"

    def query(self, expr: str) -> list[dict[str, Any]]:
        return self.prometheus.query(expr, self.at)


def _wait_for_feed(prometheus: Prometheus, at: float) -> None:
    ok_calls = sum(reps for tool, args, _, reps in feed.PLAN if tool == "get_order" and args == {"order_id": "A-1"})
    expr = (f'sum(mcp_server_operation_duration_seconds_count{{job="{SERVICE}", gen_ai_tool_name="get_order", '
            f'errscope_outcome="ok"}})')
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        result = prometheus.query(expr, at)
        if result and float(result[0]["value"][1]) >= ok_calls * feed.ROUNDS:
            return
        time.sleep(0.5)
    raise AssertionError(f"the feed's last samples never reached Prometheus ({expr})")


def server_refs(collector: Collector) -> set[str]:
    """Error refs on the SERVER spans the Collector exported."""
    refs = set()
    for batch in collector.read("traces"):
        for rs in batch["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    if span["kind"] == 2:
                        refs |= {a["value"].get("stringValue") for a in span.get("attributes", [])
                                 if a["key"] == "errscope.error_ref"}
    return refs


def _wait_for_files(collector: Collector, summary: dict[str, Any]) -> None:
    """Tail sampling holds traces for its decision wait; wait until every failure's trace and log is out."""
    refs = {c["error_ref"] for c in summary["calls"] if c["error_ref"] and c["outcome"] == "error"}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if refs <= server_refs(collector) and collector.read("logs"):
            return
        time.sleep(0.5)


@pytest.fixture(scope="session")
def fed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fed]:
    prometheus_bin = require_executable("prometheus")
    binary = collector_binary()
    workdir = tmp_path_factory.mktemp("fed")
    prometheus = Prometheus(workdir / "prometheus", binary=prometheus_bin).start()
    collector = Collector(workdir / "collector", binary=binary, env={"ERRSCOPE_SAMPLE_PERCENT": "100"})
    collector.remote_write(prometheus.url)
    try:
        collector.start()
        env = {**os.environ, "OTEL_SEMCONV_STABILITY_OPT_IN": "http/dup", "PYTHONPATH": str(ROOT)}
        env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
        result = subprocess.run(  # noqa: S603 - fixed argv
            [sys.executable, "-m", "tests.dashboards.feed", "--otlp", collector.otlp_http, "--service", SERVICE],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=False,
        )
        assert result.returncode == 0, result.stderr[-4000:]
        summary = json.loads(result.stdout)
        _wait_for_feed(prometheus, float(summary["finished"]) + 1.0)
        _wait_for_files(collector, summary)
        yield Fed(prometheus, collector, summary)
    finally:
        collector.stop()
        prometheus.stop()
