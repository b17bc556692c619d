"""``opentelemetry-instrument python server.py``: a server with no errscope line in it exports errscope's
span, metric and log to the real Collector (built by ``make test``)."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.integration.collector_harness import Collector
from tests.proxy.conftest import ROOT, free_port, serving
from tests.proxy.plain_server import SECRET

pytestmark = pytest.mark.stack

INSTRUMENT = Path(sys.executable).parent / "opentelemetry-instrument"


async def _call_forbidden(url: str) -> tuple[str, str, str]:
    async with Client(url) as client:
        result = await client.call_tool("forbidden", {})
    assert result.is_error and result.meta is not None
    return result.meta["io.errscope/error_ref"], result.meta["io.errscope/failure_class"], result.content[0].text


def _wait_for(collector: Collector, signal_name: str, needle: str, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = json.dumps(collector.read(signal_name))
        if needle in text:
            return text
        time.sleep(0.2)
    raise AssertionError(f"{needle!r} not in the Collector's {signal_name} after {timeout} s")


def _span_with_ref(batches: list[dict], ref: str) -> dict:
    for batch in batches:
        for resource in batch["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    attributes = {a["key"]: next(iter(a["value"].values())) for a in span.get("attributes", [])}
                    if attributes.get("errscope.error_ref") == ref:
                        return {"name": span["name"], "kind": span["kind"], **attributes}
    raise AssertionError(f"no span carries {ref}")


def test_zero_code_server_reaches_the_collector() -> None:
    """The span (class, ref), the duration metric and the failure log arrive; the planted secret does not."""
    with Collector(env={"ERRSCOPE_SAMPLE_PERCENT": "100"}) as collector:
        port = free_port()
        env = {
            "OTEL_SERVICE_NAME": "zero-code-plain",
            "OTEL_EXPORTER_OTLP_ENDPOINT": collector.otlp_http,
            "OTEL_TRACES_EXPORTER": "otlp_proto_http",
            "OTEL_METRICS_EXPORTER": "otlp_proto_http",
            "OTEL_LOGS_EXPORTER": "otlp_proto_http",
            "OTEL_METRIC_EXPORT_INTERVAL": "500",
            "OTEL_BSP_SCHEDULE_DELAY": "200",
            "OTEL_BLRP_SCHEDULE_DELAY": "200",
            "OTEL_PYTHON_LOGGING_AUTO_INSTRUMENTATION_ENABLED": "true",
            "PYTHONPATH": str(ROOT),
        }
        command = [str(INSTRUMENT), sys.executable, "-m", "tests.proxy.plain_server", "http", str(port)]
        with serving(command, port, env=env) as server:
            ref, failure_class, text = anyio.run(_call_forbidden, f"http://127.0.0.1:{port}/mcp")
            assert SECRET not in text and ref in text  # errscope shaped the answer: the server has no errscope line
            _wait_for(collector, "metrics", "mcp.server.operation.duration")
            server.send_signal(signal.SIGTERM)  # uvicorn exits cleanly; the SDK flushes at exit
            server.wait(15)
        spans = _wait_for(collector, "traces", ref)
        logs = _wait_for(collector, "logs", ref)
    span = _span_with_ref(json.loads(spans), ref)
    assert span["name"] == "tools/call forbidden" and span["kind"] == 2  # SERVER
    assert span["errscope.failure_class"] == failure_class and span["errscope.channel"] == "execution"
    assert "tool call failed" in logs
    assert SECRET not in spans + logs + json.dumps(collector.read("metrics"))
