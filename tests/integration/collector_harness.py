"""The real errscope Collector for tests (``scripts/stackrun.py``'s harness) and OTLP-JSON helpers.

The binary comes from scripts/build-collector.sh (built once per machine, cached); without Go the tests
that need it skip, or fail under ERRSCOPE_REQUIRE_STACK=1. Nothing here talks to anything but 127.0.0.1.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from scripts import stackrun
from scripts.stackrun import COLLECTOR_CONFIG as CONFIG
from scripts.stackrun import OVERLAYS, free_port
from tests.conftest import require

__all__ = ["CONFIG", "OVERLAYS", "Collector", "collector_binary", "free_port", "tool_binary"]


def collector_binary() -> str:
    """Path of the built Collector; skips (or fails under ERRSCOPE_REQUIRE_STACK=1) without Go."""
    return tool_binary("")


def tool_binary(name: str) -> str:
    """The Collector (``""``) or a helper such as ``telemetrygen``, built by scripts/build-collector.sh (cached)."""
    try:
        return stackrun.built(name)
    except stackrun.ToolMissing as exc:
        require(False, str(exc))
        raise


@dataclass
class Collector(stackrun.Collector):
    """:class:`scripts.stackrun.Collector` whose binary is found (or the test skipped) when it is made."""

    binary: str | None = field(default_factory=collector_binary)

    def post(self, signal: str, payload: dict[str, Any], timeout_s: float = 30) -> httpx.Response:
        """POST an OTLP/JSON ``payload`` of ``signal`` (``traces``, ``logs``, ``metrics``); raises on a non-2xx.

        The Collector answers once its processors have scrubbed the payload, CPU-bound: ``timeout_s`` is stretched by
        the machine's load per CPU (:func:`scripts.stackrun.load_factor`)."""
        timeout = timeout_s * stackrun.load_factor()
        response = httpx.post(f"{self.otlp_http}/v1/{signal}", json=payload, timeout=timeout)
        response.raise_for_status()
        return response


# --- OTLP JSON builders ------------------------------------------------------------------------------


def attr(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": any_value(value)}


def any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [attr(k, v) for k, v in value.items()]}}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def attributes_of(obj: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: plain(a.get("value", {})) for a in obj.get("attributes", [])}


def plain(value: dict[str, Any]) -> Any:
    if "stringValue" in value:
        return value["stringValue"]
    if "kvlistValue" in value:
        return {
            a["key"]: plain(a.get("value", {}))
            for a in value["kvlistValue"].get("values", [])
        }
    if "arrayValue" in value:
        return [plain(v) for v in value["arrayValue"].get("values", [])]
    for key in ("intValue", "doubleValue", "boolValue"):
        if key in value:
            return value[key]
    return None


def iter_spans(
    batches: list[dict[str, Any]],
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(resource, span) pairs of every span in file-exporter trace lines."""
    for batch in batches:
        for rs in batch.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for span in ss.get("spans", []):
                    yield rs.get("resource", {}), span


def iter_logs(
    batches: list[dict[str, Any]],
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    for batch in batches:
        for rl in batch.get("resourceLogs", []):
            for sl in rl.get("scopeLogs", []):
                for record in sl.get("logRecords", []):
                    yield rl.get("resource", {}), record


def iter_datapoints(
    batches: list[dict[str, Any]],
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    for batch in batches:
        for rm in batch.get("resourceMetrics", []):
            for sm in rm.get("scopeMetrics", []):
                for metric in sm.get("metrics", []):
                    for kind in ("gauge", "sum", "histogram"):
                        for dp in metric.get(kind, {}).get("dataPoints", []):
                            yield rm.get("resource", {}), dp


def wait_for(predicate: Any, timeout_s: float, interval_s: float = 0.2) -> bool:
    """Poll ``predicate`` until it is true (True) or the wait is over (False): ``timeout_s`` on an idle machine,
    stretched by its load per CPU (:func:`scripts.stackrun.load_factor`), since the Collector's work is CPU-bound."""
    start = time.monotonic()
    factor = stackrun.load_factor()
    while time.monotonic() < start + timeout_s * factor:
        if predicate():
            return True
        time.sleep(interval_s)
        factor = max(factor, stackrun.load_factor())
    return bool(predicate())
