"""Spans per second through the real collector with the scrubbing processors vs. without them, and
through the scale-out tiers (one agent routing by trace id to one or to three gateways).

One run each, same binary, same pipelines (memory_limiter -> [transform/scrub -> redaction/scrub ->
redaction/scrub_plain_12, _20, _28 -> redaction/scrub_plain] -> tail_sampling -> batch -> file exporter to /dev/null),
load from telemetrygen (OTLP/gRPC, unthrottled) on 127.0.0.1. Goal: the scrubbing pipeline keeps at least 0.6 of the
throughput (issue #13). telemetrygen's attribute values (``1.2.3.4``, ``telemetrygen-server``) hold no separator, so
redaction/scrub skips them and only the token shapes that fit in their length run on them (redaction/scrub_plain_12,
_20); its span names (``okey-dokey-0``, ``lets-go``) likewise meet those shapes instead of GUARD.
Scale-out: telemetrygen -> agent (deploy/scale-out/agent.yaml) -> gateways (collector/config.yaml +
deploy/scale-out/gateway.yaml, sink profile); loss = spans the agent accepted that no gateway received
(goal: 0). All processes share this machine's cores, so three gateways measure routing, not more CPU.

    python -m bench bench_collector          # or: python bench/bench_collector.py
    ERRSCOPE_BENCH_SECONDS=20 python -m bench bench_collector

Corpus CPU (:func:`corpus_cpu`): CPU seconds (user + system, from ``/proc/<pid>/stat``) the Collector process spends
scrubbing every line of the shared corpus in every field the integration test puts it in (span name, status,
span/event/resource attributes, string and nested log bodies, log and data point attributes), per MB of corpus text
(each line counted once). CPU seconds, not wall time: they hardly move with the machine's load. Pass an earlier
config's path to compare both in one run (``python bench/bench_collector.py corpus OLD_CONFIG.yaml``;
``ERRSCOPE_BENCH_EVERY=5``: every fifth line).

Stack-trace CPU (:func:`stacktrace_cpu`): Collector CPU seconds per 1,000 failed-call traces shaped as errscope
records them (a SERVER span with the ``exception`` event: ``exception.type``, ``exception.message`` and
``exception.stacktrace`` of a real ``json.JSONDecodeError`` a tool wrapped, as :func:`errscope._root_cause.describe`
renders it, ~1.6 KB), this config against an earlier one and against no
scrubbing, in one run (``python bench/bench_collector.py stacktraces [OLD_CONFIG.yaml]``;
``ERRSCOPE_BENCH_TRACES``, default 150).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts import stackrun
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


def _load(telemetrygen: str, endpoint: str) -> float:
    """telemetrygen traces at ``endpoint`` for SECONDS; the elapsed seconds."""
    args = [
        telemetrygen, "traces", "--otlp-endpoint", endpoint, "--otlp-insecure",
        "--duration", f"{SECONDS:.0f}s", "--rate", "0", "--workers", str(WORKERS), "--child-spans", "2",
    ]  # fmt: skip
    for key, value in SPAN_ATTRIBUTES.items():
        args += ["--telemetry-attributes", f"{key}={value}"]
    start = time.monotonic()
    subprocess.run(args, check=True, capture_output=True, timeout=SECONDS + 120)
    return time.monotonic() - start


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
        "goal": ">= 0.6",
        "detail": {
            "with": with_scrub,
            "without": without,
            "workers": WORKERS,
            "seconds": SECONDS,
        },
        "scale_out": run_tiers(),
    }


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def corpus_cpu(config: Path | None = None, every: int = 1, post_chars: int = 20_000) -> dict[str, float]:
    """Collector CPU seconds per MB of shared-corpus text (every ``every``-th line), each line in every field (the
    integration test's payloads), posted ``post_chars`` characters of text at a time, one signal after another."""
    from tests import corpus
    from tests.integration.collector_harness import Collector as PostingCollector
    from tests.integration.test_collector import EVERY_FIELD, _corpus_payloads

    lines = [(f"s{i}", line) for i, line in enumerate(corpus.secrets())]
    lines += [(f"b{i}", line) for i, line in enumerate(corpus.benign())]
    lines = lines[::every]
    text_mb = sum(len(line["text"].encode()) for _, line in lines) / 1e6
    payloads = dict(zip(("resourceSpans", "resourceLogs", "resourceMetrics"), _corpus_payloads(lines, [EVERY_FIELD] * len(lines)), strict=True))
    kwargs = {"config": config} if config else {}
    with PostingCollector(env={"ERRSCOPE_SAMPLE_PERCENT": "100"}, **kwargs) as collector:
        assert collector.proc is not None
        idle = _cpu_seconds(collector.proc.pid)
        for signal, key in (("traces", "resourceSpans"), ("logs", "resourceLogs"), ("metrics", "resourceMetrics")):
            items, chunk, size = payloads[key][key], [], 0
            for item, (_, line) in zip(items, lines, strict=True):
                chunk.append(item)
                size += len(line["text"])
                if size >= post_chars:
                    collector.post(signal, {key: chunk}, timeout_s=600)
                    chunk, size = [], 0
            if chunk:
                collector.post(signal, {key: chunk}, timeout_s=600)
        time.sleep(3)  # batch and tail-sampling flushes
        used = _cpu_seconds(collector.proc.pid) - idle
    return {"cpu_s": round(used, 2), "text_mb": round(text_mb, 3), "cpu_s_per_mb": round(used / text_mb, 1)}


def _failed_call(n: int) -> dict[str, str]:
    """The exception attributes of one real failure, as errscope records them: a tool whose upstream answered a
    truncated JSON body (``json.JSONDecodeError`` from the standard library's decoder, wrapped by the tool)."""
    import json

    from errscope._root_cause import describe

    def parse_order(body: str) -> dict[str, object]:
        return json.loads(body)

    def fetch_order(order_id: int, attempt: int = 0) -> dict[str, object]:
        body = f'{{"order_id": {order_id}, "status": "shipped", "items": [{{"sku": "A-{order_id % 97}"'
        return parse_order(body)

    def lookup_order(order_id: int) -> dict[str, object]:
        try:
            return fetch_order(order_id)
        except ValueError as exc:
            raise RuntimeError(f"order {order_id}: the order service answered malformed JSON") from exc

    def run_tool(name: str, arguments: dict[str, int]) -> dict[str, object]:
        return {"lookup_order": lookup_order}[name](**arguments)

    def call_tool(name: str, arguments: dict[str, int]) -> dict[str, object]:
        return run_tool(name, arguments)

    def handle_request(method: str, params: dict[str, object]) -> dict[str, object]:
        return call_tool(str(params["name"]), dict(params["arguments"]))  # type: ignore[call-overload]

    try:
        handle_request("tools/call", {"name": "lookup_order", "arguments": {"order_id": 10_000 + n}})
    except RuntimeError as exc:
        root = describe(exc)
    return {"exception.type": root.type, "exception.message": root.message, "exception.stacktrace": root.stacktrace}


def _failed_call_traces(n_traces: int) -> list[dict[str, object]]:
    """OTLP/JSON resourceSpans: ``n_traces`` traces of one SERVER span with ERROR status and its exception event."""
    from tests.integration.collector_harness import attr

    now = time.time_ns()
    resource = {"attributes": [attr("service.name", "orders-mcp")]}
    traces = []
    for n in range(n_traces):
        event = _failed_call(n)
        traces.append({"resource": resource, "scopeSpans": [{"scope": {"name": "errscope"}, "spans": [{
            "traceId": os.urandom(16).hex(), "spanId": os.urandom(8).hex(), "name": "tools/call lookup_order",
            "kind": 2, "startTimeUnixNano": str(now), "endTimeUnixNano": str(now + 1_000_000),
            "status": {"code": 2, "message": "upstream_unavailable"},
            "attributes": [attr(k, v) for k, v in {**SPAN_ATTRIBUTES, "errscope.outcome": "error"}.items()]
            + [attr("errscope.failure_class", "upstream_unavailable"), attr("errscope.error_ref", f"ERR-{n:08d}")],
            "events": [{"name": "exception", "timeUnixNano": str(now), "attributes": [
                attr(k, v) for k, v in event.items()]}],
        }]}]})  # fmt: skip
    return traces


def stacktrace_cpu(configs: list[Path | None], n_traces: int = 150, per_post: int = 10) -> dict[str, object]:
    """Collector CPU seconds per 1,000 failed-call traces (:func:`_failed_call_traces`) for each config (``None``: this
    one) and for this one without its scrubbing processors, one Collector after another on the same traces."""
    from tests.integration.collector_harness import Collector as PostingCollector

    traces = _failed_call_traces(n_traces)
    sizes = [len(a["value"]["stringValue"]) for t in traces for a in t["scopeSpans"][0]["spans"][0]["events"][0]
             ["attributes"] if a["key"] == "exception.stacktrace"]  # fmt: skip
    runs: list[tuple[str, Path | None, list[str]]] = [("no scrubbing", None, ["bench-sink.yaml", "bench-noscrub.yaml"])]
    runs += [(str(config or "this config"), config, ["bench-sink.yaml"]) for config in configs]
    result: dict[str, object] = {"traces": n_traces, "stacktrace_bytes_median": sorted(sizes)[len(sizes) // 2]}
    for name, config, overlays in runs:
        kwargs = {"config": config} if config else {}
        with PostingCollector(env={"ERRSCOPE_SAMPLE_PERCENT": "100"}, overlays=overlays, **kwargs) as collector:
            assert collector.proc is not None
            idle = _cpu_seconds(collector.proc.pid)
            for i in range(0, n_traces, per_post):
                collector.post("traces", {"resourceSpans": traces[i : i + per_post]}, timeout_s=600)
            time.sleep(2)  # tail sampling's decision wait (1 s) and the batch flush
            used = _cpu_seconds(collector.proc.pid) - idle
        result[name] = {"cpu_s": round(used, 2), "cpu_s_per_1000_traces": round(used / n_traces * 1000, 1)}
    return result


def _measure_tiers(gateways: int) -> dict[str, float]:
    """One agent routing telemetrygen's traces by trace id to ``gateways`` gateways."""
    telemetrygen = built("telemetrygen")
    env = {"ERRSCOPE_SAMPLE_PERCENT": "100", "ERRSCOPE_DECISION_WAIT": "1s", "GOMAXPROCS": "2"}
    with tempfile.TemporaryDirectory(prefix="errscope-bench-tiers-") as tmp:
        tiers = [stackrun.gateway(Path(tmp) / f"gateway-{i}", profile="bench-sink.yaml", env=dict(env))
                 for i in range(gateways)]
        agent = stackrun.agent(Path(tmp) / "agent", tiers, env={"GOMAXPROCS": "2"})
        try:
            for collector in (*tiers, agent):
                collector.start()
            elapsed = _load(telemetrygen, agent.otlp_grpc)
            accepted = agent.metric("otelcol_receiver_accepted_spans_total")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and _received(tiers) < accepted:
                time.sleep(0.5)
            received = _received(tiers)
            refused = agent.metric("otelcol_receiver_refused_spans_total")
        finally:
            for collector in (agent, *tiers):
                collector.stop()
    return {"gateways": gateways, "accepted": accepted, "received_by_gateways": received,
            "lost": accepted - received, "refused_at_agent": refused,
            "seconds": elapsed, "spans_per_s": accepted / elapsed}


def _received(gateways: list[Collector]) -> float:
    return sum(g.metric("otelcol_receiver_accepted_spans_total") for g in gateways)


def run_tiers() -> dict[str, object]:
    """Agent-to-gateway throughput for one and for three gateways, with the loss count (goal: 0)."""
    one, three = _measure_tiers(1), _measure_tiers(3)
    return {
        "agent_to_1_gateway_spans_per_s": round(one["spans_per_s"]),
        "agent_to_3_gateways_spans_per_s": round(three["spans_per_s"]),
        "lost_spans": one["lost"] + three["lost"],
        "goal": "lost_spans == 0",
        "detail": {"one": one, "three": three},
    }


if __name__ == "__main__":
    import json

    if sys.argv[1:2] == ["stacktraces"]:
        n = int(os.environ.get("ERRSCOPE_BENCH_TRACES", "150"))
        print(json.dumps(stacktrace_cpu([None, *(Path(p) for p in sys.argv[2:])], n_traces=n), indent=2))
    elif sys.argv[1:2] == ["corpus"]:
        every = int(os.environ.get("ERRSCOPE_BENCH_EVERY", "1"))
        result = {"this config": corpus_cpu(every=every)}
        for other in sys.argv[2:]:
            result[other] = corpus_cpu(Path(other), every=every)
        print(json.dumps(result, indent=2))
    else:
        print(json.dumps(run(), indent=2))
