"""Client telemetry: one CLIENT span per attempt, the duration metric, and trace propagation."""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from mcp import Client
from opentelemetry import baggage, context, trace

from errscope import Outcome
from errscope._attributes import (
    ERRSCOPE_ATTEMPT,
    ERRSCOPE_ERROR_REF,
    ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT,
    ERRSCOPE_LATE_RESPONSE_ELAPSED,
    ERRSCOPE_LATE_RESPONSES,
    ERRSCOPE_OUTCOME,
    ERRSCOPE_RETRY,
    EXECUTE_TOOL,
    GEN_AI_OPERATION_NAME,
    GEN_AI_TOOL_NAME,
    JSONRPC_REQUEST_ID,
    MCP_CLIENT_OPERATION_DURATION,
    MCP_METHOD_NAME,
    MCP_PROTOCOL_VERSION,
    METRIC_ATTRIBUTES,
    NETWORK_TRANSPORT,
)
from errscope.client import RetryPolicy, ToolClient
from tests.client.conftest import stdio
from tests.client.helpers import scripted_server
from tests.client.servers.app import ToolServer, serve

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
def sdk_spans(telemetry: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Route the mcp SDK's own tracer to the test's provider (no global provider is touched)."""
    from mcp.shared import _otel

    from errscope.client._telemetry import _SuppressingTracer, install_sdk_span_suppression

    install_sdk_span_suppression()
    assert isinstance(_otel._tracer, _SuppressingTracer)
    monkeypatch.setattr(_otel._tracer, "_errscope_inner", telemetry.tracer_provider.get_tracer("mcp-python-sdk"))
    return telemetry


class TestSpans:
    """Span shape per attempt."""

    async def test_one_client_span_with_semconv_attributes(self, telemetry: Any) -> None:
        """A successful call: one CLIENT span, semconv and errscope attributes, status unset."""
        async with ToolClient(stdio("plain_server.py"), timeout=5, **telemetry.providers) as tc:
            result = await tc.call_tool("echo", {"text": "hi"})
        (span,) = telemetry.spans("tools/call echo")
        attrs = dict(span.attributes or {})
        assert span.kind is trace.SpanKind.CLIENT and span.status.status_code.name == "UNSET"
        assert attrs[MCP_METHOD_NAME] == "tools/call"
        assert (attrs[GEN_AI_TOOL_NAME], attrs[GEN_AI_OPERATION_NAME]) == ("echo", EXECUTE_TOOL)
        assert attrs[JSONRPC_REQUEST_ID] == str(result.request_ids[0])
        assert attrs[NETWORK_TRANSPORT] == "pipe"
        assert attrs[MCP_PROTOCOL_VERSION] == "2026-07-28"
        assert (attrs[ERRSCOPE_ATTEMPT], attrs[ERRSCOPE_RETRY], attrs[ERRSCOPE_OUTCOME]) == (1, False, "ok")
        assert "errscope.channel" not in attrs and "errscope.failure_class" not in attrs

    async def test_a_tool_name_the_model_made_up_is_scrubbed_on_the_span(self, telemetry: Any) -> None:
        """The model's tool name is its own words: span name and gen_ai.tool.name carry it scrubbed."""
        secret = "ghp_FAKE0123456789abcdefghijklmnopqrstuv"
        async with ToolClient(stdio("plain_server.py"), timeout=5, **telemetry.providers) as tc:
            await tc.call_tool(f"echo?token={secret}", {})
        spans = telemetry.spans()
        assert spans and not [s for s in spans if secret in s.name or secret in str(dict(s.attributes or {}))]
        assert any(dict(s.attributes or {}).get(GEN_AI_TOOL_NAME, "").startswith("echo?token=") for s in spans)

    async def test_retries_are_separate_linked_spans(self, tmp_path: Any, telemetry: Any) -> None:
        """Each automatic retry is its own span, numbered, linked to the earlier attempts."""
        params = scripted_server(tmp_path, [{"isError": True, "text": "503 Service Unavailable"}], idempotent=True)
        retry = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.02, jitter=0.01)
        async with ToolClient(params, timeout=2, retry=retry, **telemetry.providers) as tc:
            result = await tc.call_tool("scripted", {})
        spans = sorted(telemetry.spans("tools/call scripted"), key=lambda s: s.start_time or 0)
        assert result.attempts == 3 and len(spans) == 3
        assert [dict(s.attributes or {})[ERRSCOPE_ATTEMPT] for s in spans] == [1, 2, 3]
        assert [dict(s.attributes or {})[ERRSCOPE_RETRY] for s in spans] == [False, True, True]
        assert [len(s.links) for s in spans] == [0, 1, 2]
        assert spans[2].links[0].context.span_id == spans[0].context.span_id
        assert {s.status.description for s in spans} == {"upstream_unavailable"}
        assert len(set(result.request_ids)) == 3

    async def test_a_call_repeated_with_its_key_links_to_it_only_if_it_failed(self, telemetry: Any) -> None:
        """The model retries a call that failed with its key: that call's span links to the failed one.
        A call that succeeded is not retried, so it is not kept for linking (no table write on success)."""
        async with ToolClient(stdio("plain_server.py"), timeout=5, **telemetry.providers) as tc:
            failed = await tc.call_tool("add", {"a": "one", "b": 2})
            failed_again = await tc.call_tool("add", {"a": "one", "b": 2}, idempotency_key=failed.idempotency_key)
            done = await tc.call_tool("add", {"a": 1, "b": 2})
            done_again = await tc.call_tool("add", {"a": 1, "b": 2}, idempotency_key=done.idempotency_key)
        assert not failed.ok and not failed_again.ok and done.ok and done_again.ok
        spans = sorted(telemetry.spans("tools/call add"), key=lambda s: s.start_time or 0)
        assert [len(s.links) for s in spans] == [0, 1, 0, 0]
        assert spans[1].links[0].context.span_id == spans[0].context.span_id

    async def test_duration_metric_has_only_bounded_labels(self, tmp_path: Any, telemetry: Any) -> None:
        """One point per attempt; labels are a subset of METRIC_ATTRIBUTES; unknown tools are no label."""
        params = scripted_server(tmp_path, [{"error": {"code": -32602, "message": "Unknown tool: nope"}}, {"text": "ok"}])
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            await tc.call_tool("nope", {})
            await tc.call_tool("scripted", {})
        points = telemetry.histogram_points(MCP_CLIENT_OPERATION_DURATION)
        assert sum(p.count for p in points) == 2
        for point in points:
            assert set(point.attributes) <= METRIC_ATTRIBUTES
        assert {p.attributes.get(GEN_AI_TOOL_NAME) for p in points} == {None, "scripted"}
        assert list(points[0].explicit_bounds)[:3] == [0.01, 0.02, 0.05]

    async def test_sdk_client_span_is_suppressed_only_for_errscope_calls(self, sdk_spans: Any) -> None:
        """Calls through errscope produce no "MCP send" span; a bare mcp.Client still does."""
        async with ToolClient(stdio("plain_server.py"), timeout=5, **sdk_spans.providers) as tc:
            await tc.call_tool("echo", {"text": "a"})
        assert [s.name for s in sdk_spans.spans() if s.name.startswith("MCP send tools/call")] == []
        assert len(sdk_spans.spans("tools/call echo")) == 1
        async with Client(stdio("plain_server.py")) as bare:
            await bare.call_tool("echo", {"text": "b"})
        assert "MCP send tools/call echo" in [s.name for s in sdk_spans.spans()]


class TestPropagation:
    """Trace context and baggage in params._meta and HTTP headers."""

    async def test_meta_carries_our_span(self, foreign: Any, telemetry: Any) -> None:
        """The wire traceparent names the attempt's CLIENT span; no baggage crosses by default."""
        params, log = foreign("d24")
        token = context.attach(baggage.set_baggage("tenant.id", "acme-FAKE"))
        try:
            async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
                await tc.call_tool("echo", {"text": "x"})
        finally:
            context.detach(token)
        (call,) = log.received("tools/call")
        meta = call["params"]["_meta"]
        (span,) = telemetry.spans("tools/call echo")
        ctx = span.context
        assert meta["traceparent"].startswith(f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-")
        assert "baggage" not in meta

    async def test_callers_traceparent_is_kept_and_baggage_allow_listed(self, foreign: Any, telemetry: Any) -> None:
        """A caller's traceparent goes out verbatim (our span joins its trace); only allowed baggage crosses."""
        params, log = foreign("d24")
        caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        ctx = baggage.set_baggage("tenant.id", "acme")
        ctx = baggage.set_baggage("user.email", "pat.FAKE@example.com", ctx)
        token = context.attach(ctx)
        try:
            async with ToolClient(params, timeout=2, baggage_allow={"tenant.id"}, **telemetry.providers) as tc:
                await tc.call_tool("echo", {"text": "x"}, meta={"traceparent": caller, "tracestate": "v=1"})
        finally:
            context.detach(token)
        meta = log.received("tools/call")[0]["params"]["_meta"]
        assert (meta["traceparent"], meta["tracestate"]) == (caller, "v=1")
        assert meta["baggage"] == "tenant.id=acme"
        (span,) = telemetry.spans("tools/call echo")
        assert f"{span.context.trace_id:032x}" == "0af7651916cd43dd8448eb211c80319c"
        assert span.parent is not None and f"{span.parent.span_id:016x}" == "b7ad6b7169203331"

    async def test_http_headers_mirror_meta_and_server_parents_on_us(self, telemetry: Any) -> None:
        """On streamable HTTP the headers carry the same traceparent; the server span is our child."""
        seen: list[str] = []
        rig = ToolServer("http://127.0.0.1:9/", telemetry.providers)
        app = rig.build().streamable_http_app()

        async def recording(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                headers = dict(scope["headers"])
                if b"traceparent" in headers:
                    seen.append(headers[b"traceparent"].decode())
            await app(scope, receive, send)

        async with serve(recording) as base:
            async with ToolClient(base + "/mcp", timeout=5, **telemetry.providers) as tc:
                result = await tc.call_tool("echo", {"text": "over http"})
        assert result.outcome is Outcome.OK
        client = [s for s in telemetry.spans("tools/call echo") if s.kind is trace.SpanKind.CLIENT][0]
        server = [s for s in telemetry.spans("tools/call echo") if s.kind is trace.SpanKind.SERVER][0]
        expected = f"00-{client.context.trace_id:032x}-{client.context.span_id:016x}-"
        assert any(header.startswith(expected) for header in seen)
        assert server.parent is not None and server.parent.span_id == client.context.span_id
        assert dict(client.attributes or {})[NETWORK_TRANSPORT] == "tcp"


def _counter_total(telemetry: Any, name: str) -> float:
    data = telemetry.reader.get_metrics_data()
    return sum(
        point.value
        for rm in (data.resource_metrics if data else ())
        for sm in rm.scope_metrics
        for metric in sm.metrics
        if metric.name == name
        for point in metric.data.data_points
    )


def _late_server(tmp_path: Any, seconds: float) -> Any:
    """A foreign stdio server that ignores cancellation and answers every tools/call after ``seconds``."""
    import sys

    from mcp.client.stdio import StdioServerParameters

    script = tmp_path / "late.py"
    script.write_text(
        "import json, sys, time\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m.get('method') == 'initialize':\n"
        "        r = {'protocolVersion': '2025-11-25', 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'late', 'version': '0'}}\n"
        "    elif m.get('method') == 'tools/list':\n"
        "        r = {'tools': [{'name': 'slow', 'inputSchema': {'type': 'object'}}]}\n"
        "    elif m.get('method') == 'tools/call':\n"
        f"        time.sleep({seconds})\n"
        "        r = {'content': [{'type': 'text', 'text': 'late'}], 'isError': False}\n"
        "    elif 'id' in m:\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'error': {'code': -32601, 'message': 'nope'}}), flush=True); continue\n"
        "    else:\n"
        "        continue\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n"
    )
    return StdioServerParameters(command=sys.executable, args=[str(script)])


class TestLateResponse:
    """A response that arrives after the timeout is never raised or re-sent, and always recorded."""

    async def test_late_answer_lands_on_the_open_span(self, tmp_path: Any, telemetry: Any) -> None:
        """Within the grace period: event late_response with its timing, and the counter."""
        async with ToolClient(_late_server(tmp_path, 0.5), timeout=0.2, late_response_grace=1.0, **telemetry.providers) as tc:
            result = await tc.call_tool("slow", {})
            await anyio.sleep(0.8)
        assert result.outcome is Outcome.TIMEOUT
        (span,) = telemetry.spans("tools/call slow")
        (event,) = [e for e in span.events if e.name == "late_response"]
        attributes = dict(event.attributes or {})
        assert attributes[ERRSCOPE_LATE_RESPONSE_ELAPSED] >= 0.5
        assert 0.2 <= attributes[ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT] < attributes[ERRSCOPE_LATE_RESPONSE_ELAPSED]
        assert attributes[ERRSCOPE_ERROR_REF] == result.error_ref
        assert _counter_total(telemetry, ERRSCOPE_LATE_RESPONSES) == 1

    async def test_late_answer_after_the_span_is_a_log_record_explain_shows(self, tmp_path: Any) -> None:
        """After the span closed: an errscope log record with ref and request id, exported as OTLP-JSON and
        shown by ``errscope explain`` for the timed-out ref."""
        from errscope._explain import find_chains, render
        from errscope._otlp_json import load
        from errscope._setup import configure_telemetry

        out = tmp_path / "telemetry"
        exported = configure_telemetry("late-test", output_dir=out, set_global=False)
        try:
            async with ToolClient(
                _late_server(tmp_path, 1.5),
                timeout=1,
                late_response_grace=0,
                tracer_provider=exported.tracer_provider,
                meter_provider=exported.meter_provider,
            ) as tc:
                result = await tc.call_tool("slow", {})
                await anyio.sleep(1.0)
        finally:
            exported.shutdown()
        assert result.outcome is Outcome.TIMEOUT and result.error_ref
        telemetry = load(out)
        (record,) = [r for r in telemetry.logs if str(r.body).startswith("late response")]
        assert record.get(ERRSCOPE_ERROR_REF) == result.error_ref
        assert record.get(JSONRPC_REQUEST_ID) == str(result.request_ids[0])
        assert 0.3 <= record.get(ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT) < record.get(ERRSCOPE_LATE_RESPONSE_ELAPSED)
        (chain,) = find_chains(telemetry, result.error_ref)
        text = render(chain)
        assert re.search(r"late response: slow finished at 1\.\d s, 0\.\d s after the client gave up", text), text


class TestShownToTheModel:
    """What the model was handed for a failed call is on record, in the call's trace, for ``errscope explain``."""

    async def test_a_failed_call_logs_its_model_text_and_explain_starts_from_it(self, tmp_path: Any) -> None:
        from errscope._explain import MODEL_TEXT, find_chains, render
        from errscope._otlp_json import load
        from errscope._setup import configure_telemetry

        out = tmp_path / "telemetry"
        exported = configure_telemetry("host-test", output_dir=out, set_global=False)
        try:
            async with ToolClient(stdio("plain_server.py"), timeout=5, tracer_provider=exported.tracer_provider,
                                  meter_provider=exported.meter_provider) as tc:
                ok = await tc.call_tool("echo", {"text": "fine"})
                bad = await tc.call_tool("add", {"a": "one", "b": 2})
        finally:
            exported.shutdown()
        assert ok.ok and not bad.ok and bad.error_ref
        telemetry = load(out)
        (record,) = [r for r in telemetry.logs if r.get(MODEL_TEXT)]  # the success wrote none
        assert record.get(MODEL_TEXT) == bad.text
        assert record.get(ERRSCOPE_ERROR_REF) == bad.error_ref
        assert record.get(JSONRPC_REQUEST_ID) == ",".join(str(i) for i in bad.request_ids)
        (attempt,) = [s for s in telemetry.spans if s.get(ERRSCOPE_ERROR_REF) == bad.error_ref]
        assert record.trace_id == attempt.trace_id and record.span_id == attempt.span_id
        (chain,) = find_chains(telemetry, bad.error_ref)
        shown = render(chain).split("2. tool span")[0]
        assert bad.text in shown, shown


class TestTransportFactory:
    """Any ``mcp`` transport works, given as a factory so sessions can be re-opened."""

    async def test_in_memory_transport_with_an_instrumented_server(self, telemetry: Any) -> None:
        """ToolClient over InMemoryTransport: JSON-RPC framing, server span parented on the client span."""
        from mcp.client._memory import InMemoryTransport

        rig = ToolServer("http://127.0.0.1:9/", telemetry.providers)
        server = rig.build()
        async with ToolClient(lambda: InMemoryTransport(server), timeout=5, **telemetry.providers) as tc:
            ok = await tc.call_tool("echo", {"text": "in memory"})
            bad = await tc.call_tool("echo", {})
        assert ok.text == "in memory" and bad.failure_class is not None
        client = [s for s in telemetry.spans("tools/call echo") if s.kind is trace.SpanKind.CLIENT]
        server_spans = [s for s in telemetry.spans("tools/call echo") if s.kind is trace.SpanKind.SERVER]
        assert len(client) == len(server_spans) == 2
        assert {s.parent.span_id for s in server_spans if s.parent} == {c.context.span_id for c in client}
        assert NETWORK_TRANSPORT not in dict(client[0].attributes or {})
