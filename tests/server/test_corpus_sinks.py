"""The whole secret corpus through a real tool failure: no sink receives it unscrubbed."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from mcp.shared.exceptions import MCPError

from errscope._refs import ERROR_REF_PATTERN
from tests import corpus
from tests.conftest import require
from tests.server.conftest import Served
from tests.servers.catalogue import TOOLS

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def secret_lines() -> list[dict[str, str]]:
    require(corpus.corpus_dir() is not None, "the shared secret corpus is not available")
    return corpus.secrets()


def _sinks_by_ref(served: Served) -> dict[str, list[str]]:
    """Each sink item (span name, status, attribute, event, log field), grouped by the call's error ref.

    Items are checked one by one: the scoring rule counts a run of the secret as leaked when it
    occurs more often than in the original text, and two sinks each repeating the same harmless
    context word would otherwise add up to a false leak.
    """
    by_ref: dict[str, list[str]] = defaultdict(list)
    for span in served.telemetry.spans():
        ref = span.attributes.get("errscope.error_ref")
        events = [event.name + json.dumps(dict(event.attributes or {}), default=str) for event in span.events]
        by_ref[str(ref)] += [span.name, span.status.description or "", *map(str, span.attributes.values()), *events]
    for record in served.telemetry.log_records:
        ref = getattr(record, "errscope.error_ref", None)
        # String fields only: timestamps, thread and process ids are random digits, not sinks of text.
        by_ref[str(ref)] += [v for k, v in record.__dict__.items() if isinstance(v, str) and k not in _RANDOM_ID_KEYS]
        by_ref[str(ref)].append(record.getMessage())
    return {ref: [_without_random_ids(part) for part in parts] for ref, parts in by_ref.items()}


_RANDOM_ID_KEYS = ("trace_id", "span_id", "otelTraceID", "otelSpanID")


def _without_random_ids(text: str) -> str:
    """Drop error refs: random characters can by chance repeat 5 characters of a long secret."""
    return ERROR_REF_PATTERN.sub("ERR-ref", text)


async def test_corpus_reaches_no_sink(served: Served, secret_lines: list[dict[str, str]]) -> None:
    """Each corpus line as an exception message and as a tool name: wire, spans, logs, metrics stay clean."""
    calls: list[tuple[dict[str, str], str, str]] = []  # (line, wire answer, error ref)
    for line in secret_lines:
        result = await served.call("leak", {"text": line["text"]})
        assert not isinstance(result, MCPError) and result.is_error
        calls.append((line, result.model_dump_json(), result.meta["io.errscope/error_ref"]))
        unknown = await served.call(line["text"], {})
        assert isinstance(unknown, MCPError) and unknown.code == -32602
        calls.append((line, json.dumps({"message": unknown.message, "data": unknown.data}), unknown.data["io.errscope/error_ref"]))
    sinks = _sinks_by_ref(served)
    wire_leaks = sorted(
        {line["format"] for line, wire, _ in calls if corpus.leaked(line["secret"], _without_random_ids(wire), line["text"])}
    )
    assert wire_leaks == []
    sink_leaks = sorted(
        {line["format"] for line, _, ref in calls for item in sinks[ref] if corpus.leaked(line["secret"], item, line["text"])}
    )
    assert sink_leaks == []
    allowed_tools = {tool.__name__ for tool in TOOLS} | {"_OTHER", None}
    labels = [dict(p.attributes) for p in served.telemetry.histogram_points("mcp.server.operation.duration")]
    assert {label.get("gen_ai.tool.name") for label in labels} <= allowed_tools
