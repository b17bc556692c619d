"""structlog processors: error ref and trace context on every record, every value scrubbed."""

from __future__ import annotations

from opentelemetry.sdk.trace import TracerProvider

from errscope._call import ToolCall, bind_call, unbind_call
from errscope._refs import ERROR_REF_PATTERN
from errscope.processors import add_error_ref, add_trace_context, scrub_values


class TestAddErrorRef:
    def test_inside_a_call(self) -> None:
        """Inside a tool call, the call's ref is added."""
        call = ToolCall(tool="t")
        token = bind_call(call)
        try:
            assert add_error_ref(None, "info", {"event": "x"}) == {"event": "x", "errscope.error_ref": call.error_ref}
        finally:
            unbind_call(token)

    def test_one_ref_per_call(self) -> None:
        """The ref is drawn on first read and kept: every line of a call and its answer quote the same one."""
        call = ToolCall(tool="t")
        token = bind_call(call)
        try:
            logged = add_error_ref(None, "info", {"event": "x"})["errscope.error_ref"]
        finally:
            unbind_call(token)
        assert ERROR_REF_PATTERN.fullmatch(logged)
        assert call.error_ref == logged
        assert ToolCall(tool="t").error_ref != logged  # 40 random bits per call

    def test_outside_a_call(self) -> None:
        """Outside a tool call nothing is added."""
        assert add_error_ref(None, "info", {"event": "x"}) == {"event": "x"}


class TestAddTraceContext:
    def test_ids_of_the_current_span(self) -> None:
        """trace_id and span_id are the current span's, lowercase hex."""
        tracer = TracerProvider().get_tracer("t")
        with tracer.start_as_current_span("s") as span:
            event = add_trace_context(None, "info", {"event": "x"})
        context = span.get_span_context()
        assert event == {"event": "x", "trace_id": format(context.trace_id, "032x"), "span_id": format(context.span_id, "016x")}


class TestScrubValues:
    def test_values_scrubbed_ids_kept(self) -> None:
        """Secrets in any value (nested too) are masked; ids and closed-set values are kept."""
        event = {
            "event": "connect failed",
            "dsn": "postgresql://svc:FAKE-PG-PASS@db:5432/x",
            "nested": {"headers": ["Authorization: Bearer FAKEtokenFAKEtoken1234567890"]},
            "trace_id": "0af7651916cd43dd8448eb211c80319c",
            "errscope.error_ref": "ERR-7K3M9QXZ",
            "exc": RuntimeError("password=FAKE-hunter2"),
        }
        scrubbed = scrub_values(None, "error", dict(event))
        text = repr(scrubbed)
        assert "FAKE-PG-PASS" not in text and "FAKEtoken" not in text and "hunter2" not in text
        assert scrubbed["trace_id"] == event["trace_id"] and scrubbed["errscope.error_ref"] == "ERR-7K3M9QXZ"
        assert scrubbed["exc"].startswith("RuntimeError: password=")
