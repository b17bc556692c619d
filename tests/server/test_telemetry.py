"""Span design: parenting and links, baggage allow-list, upstream capture, metric points, log records."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from mcp import Client
from mcp_types import CallToolResult
from opentelemetry.trace import SpanKind

import errscope
from errscope.testing import CapturedTelemetry
from tests.server.conftest import Served
from tests.servers.catalogue import BUILDERS

pytestmark = pytest.mark.anyio

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


class _Upstream(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        status = int(self.path.rsplit("/", 1)[-1])
        body = json.dumps({"error": "nope", "api_key": "FAKE-UPSTREAM-KEY-123"}).encode()
        self.send_response(status)
        if status == 429:
            self.send_header("Retry-After", "7")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://user:FAKE-URL-PW@127.0.0.1:{server.server_port}"
    server.shutdown()


class TestParenting:
    async def test_meta_traceparent_is_the_parent(self, served: Served) -> None:
        """The server span joins the caller's trace from params._meta (SEP-414)."""
        await served.client.call_tool("list_orders", {}, meta={"traceparent": TRACEPARENT})
        span = served.span()
        assert format(span.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
        assert format(span.parent.span_id, "016x") == "b7ad6b7169203331" and span.parent.is_remote

    async def test_garbage_traceparent_starts_a_new_trace(self, served: Served) -> None:
        """A malformed carrier never breaks the call; the span is a new root."""
        result = await served.client.call_tool("list_orders", {}, meta={"traceparent": "garbage"})
        assert not result.is_error and served.span().parent is None

    @pytest.mark.parametrize("served", [{"baggage_allowlist": ["tenant.id"]}], indirect=True)
    async def test_baggage_allowlist(self, served: Served) -> None:
        """Only allow-listed baggage reaches the tool."""
        meta = {"traceparent": TRACEPARENT, "baggage": "tenant.id=acme,session.secret=FAKE-BAGGAGE"}
        result = await served.client.call_tool("baggage_seen", {}, meta=meta)
        assert json.loads(result.content[0].text) == {"tenant.id": "acme"}


class TestUpstreamCapture:
    @pytest.mark.parametrize(("status", "failure_class"), [(404, "not_found"), (429, "rate_limited"), (503, "upstream_unavailable")])
    async def test_http_status_on_the_tool_span(self, served: Served, upstream: str, status: int, failure_class: str) -> None:
        """An httpx call is a child CLIENT span; its status and host:port land on the tool span."""
        result = await served.call("fetch_url", {"url": f"{upstream}/orders/{status}"})
        assert isinstance(result, CallToolResult) and result.is_error
        tool_span = served.span()
        port = upstream.rsplit(":", 1)[-1]
        assert tool_span.attributes["errscope.failure_class"] == failure_class
        assert tool_span.attributes["errscope.upstream.status"] == str(status)
        assert tool_span.attributes["errscope.upstream.system"] == "http"
        assert tool_span.attributes["errscope.upstream.address"] == f"127.0.0.1:{port}"
        children = [s for s in served.telemetry.spans() if s.parent and s.parent.span_id == tool_span.context.span_id]
        assert [s.kind for s in children] == [SpanKind.CLIENT]
        assert children[0].attributes["http.response.status_code"] == status  # stable names, no opt-in needed
        assert children[0].attributes["server.address"] == "127.0.0.1"
        recorded = json.dumps([dict(s.attributes) for s in served.telemetry.spans()])
        assert "FAKE-URL-PW" not in recorded and "FAKE-UPSTREAM-KEY" not in recorded
        if status == 429:
            assert tool_span.attributes["errscope.retry_after"] == 7.0
            assert "Wait about 7 s" in result.content[0].text

    async def test_non_http_upstream(self, served: Served) -> None:
        """record_upstream() puts system, status and a clean host:port on the span."""
        await served.call("ledger_down", {})
        attributes = served.span().attributes
        assert attributes["errscope.failure_class"] == "upstream_unavailable"
        assert attributes["errscope.upstream.status"] == "57P01"
        assert attributes["errscope.upstream.system"] == "postgresql"
        assert attributes["errscope.upstream.address"] == "ledger-db.internal:5432"


class TestMetric:
    async def test_one_point_per_call_with_bounded_labels(self, served: Served) -> None:
        """mcp.server.operation.duration: seconds, convention buckets, closed label sets only."""
        await served.call("read_registry_key", {"path": "HKLM"})
        await served.call("list_orders", {})
        points = [
            p for p in served.telemetry.histogram_points("mcp.server.operation.duration")
            if p.attributes["mcp.method.name"] == "tools/call"
        ]
        by_tool = {p.attributes["gen_ai.tool.name"]: p for p in points}
        assert list(by_tool["read_registry_key"].explicit_bounds) == [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
        failed = dict(by_tool["read_registry_key"].attributes)
        assert failed["errscope.failure_class"] == "permission_denied" and failed["error.type"] == "tool_error"
        assert "errscope.error_ref" not in failed and "jsonrpc.request.id" not in failed
        assert set(failed) <= errscope._attributes.METRIC_ATTRIBUTES
        assert by_tool["list_orders"].attributes["errscope.outcome"] == "ok"
        assert 0 < by_tool["list_orders"].sum < 5


async def test_uninstrument_restores_the_sdk() -> None:
    """uninstrument() removes errscope and gives the SDK its own middleware back."""
    with CapturedTelemetry.installed() as telemetry:
        server = BUILDERS["mcpserver"]()
        errscope.instrument(server, **telemetry.providers)
        errscope.uninstrument(server)
        assert [type(m).__name__ for m in server.middleware][0] == "OpenTelemetryMiddleware"
        async with Client(server) as client:
            result = await client.call_tool("read_registry_key", {"path": "HKLM"})
        assert "Ref ERR-" not in result.content[0].text
        assert telemetry.spans() == []
