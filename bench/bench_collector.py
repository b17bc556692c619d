"""Spans per second through the real collector with the scrubbing processors vs. without them.

One run each, same binary, same pipelines (memory_limiter -> [transform/scrub -> redaction/scrub]
-> tail_sampling -> batch -> file exporter to /dev/null), load from telemetrygen (OTLP/gRPC,
unthrottled) on 127.0.0.1. Goal: the scrubbing pipeline keeps at least half the throughput.

    python -m bench bench_collector          # or: python bench/bench_collector.py
    ERRSCOPE_BENCH_SECONDS=20 python -m bench bench_collector
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.stackrun import Collector, built

SECONDS = float(os.environ.get("ERRSCOPE_BENCH_SECONDS", "15"))
WORKERS = int(os.environ.get("ERRSCOPE_BENCH_WORKERS", "4"))

# Attributes shaped like an errscope tool span (short identifiers, as in real traffic).
SPAN_ATTRIBUTES = {
    "mcp.method.name": '"tools/call"',
    "gen_ai.tool.name": '"lookup_order"',
    "gen_ai.operation.name": '"execute_tool"',
    "errscope.outcome": '"ok"',
}


def _measure(overlays: list[str]) -> dict[str, float]:
    telemetrygen = built("telemetrygen")
    env = {
        "ERRSCOPE_SAMPLE_PERCENT": "100",
        "ERRSCOPE_DECISION_WAIT": "1s",
        "GOMAXPROCS": "2",
    }
    with Collector(overlays=overlays, env=env) as collector:
        args = [
            telemetrygen, "traces",
            "--otlp-endpoint", collector.otlp_grpc, "--otlp-insecure",
            "--duration", f"{SECONDS:.0f}s", "--rate", "0", "--workers", str(WORKERS),
            "--child-spans", "2",
        ]  # fmt: skip
        for key, value in SPAN_ATTRIBUTES.items():
            args += ["--telemetry-attributes", f"{key}={value}"]
        start = time.monotonic()
        subprocess.run(args, check=True, capture_output=True, timeout=SECONDS + 120)
        elapsed = time.monotonic() - start
        accepted = collector.metric("otelcol_receiver_accepted_spans_total")
        refused = collector.metric("otelcol_receiver_refused_spans_total")
        deadline = time.monotonic() + 60
        while (
            time.monotonic() < deadline
            and collector.metric("otelcol_exporter_sent_spans_total") < accepted
        ):
            time.sleep(0.5)
        sent = collector.metric("otelcol_exporter_sent_spans_total")
    return {
        "accepted": accepted,
        "refused": refused,
        "sent": sent,
        "seconds": elapsed,
        "spans_per_s": accepted / elapsed,
    }


def run() -> dict[str, object]:
    without = _measure(["bench-sink.yaml", "bench-noscrub.yaml"])
    with_scrub = _measure(["bench-sink.yaml"])
    ratio = (
        with_scrub["spans_per_s"] / without["spans_per_s"]
        if without["spans_per_s"]
        else 0.0
    )
    return {
        "spans_per_s_with_scrubbing": round(with_scrub["spans_per_s"]),
        "spans_per_s_without_scrubbing": round(without["spans_per_s"]),
        "ratio": round(ratio, 3),
        "goal": ">= 0.5",
        "detail": {
            "with": with_scrub,
            "without": without,
            "workers": WORKERS,
            "seconds": SECONDS,
        },
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
