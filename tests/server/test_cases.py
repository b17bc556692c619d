"""Server-side public cases (D01, D03, D06, D09, D11, D16) in every server style and both eras."""

from __future__ import annotations

import json
import re
import time

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from opentelemetry.trace import StatusCode

import errscope
from errscope import FailureClass
from errscope._refs import ERROR_REF_PATTERN
from errscope.testing import CapturedTelemetry
from tests.server.conftest import Served
from tests.servers import catalogue
from tests.servers.catalogue import BUILDERS

pytestmark = pytest.mark.anyio

REF = r"Ref (ERR-[0-9A-Z]{8})"


def text_of(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if hasattr(block, "text"))


def everything_recorded(served: Served) -> str:
    """Every sink's text in one blob: span names, status, attributes, events, log records, metric labels."""
    parts: list[str] = []
    for span in served.telemetry.spans():
        parts += [span.name, span.status.description or "", json.dumps(dict(span.attributes), default=str)]
        parts += [event.name + json.dumps(dict(event.attributes or {}), default=str) for event in span.events]
    for record in served.telemetry.log_records:
        parts.append(json.dumps({k: str(v) for k, v in record.__dict__.items()}, default=str))
        parts.append(record.getMessage())
    for point in served.telemetry.histogram_points("mcp.server.operation.duration"):
        parts.append(json.dumps(dict(point.attributes), default=str))
    return "\n".join(parts)


class TestD01UnknownTool:
    async def test_protocol_error_not_a_result(self, served: Served) -> None:
        """An unknown tool is JSON-RPC -32602 "Unknown tool: <name>", never an isError result."""
        outcome = await served.call("get_ordr", {"order_id": "A-1"})
        assert isinstance(outcome, MCPError)
        assert (outcome.code, outcome.message) == (-32602, "Unknown tool: get_ordr")
        assert outcome.data["io.errscope/failure_class"] == "not_found"

    async def test_span_records_code_as_caller_mistake(self, served: Served) -> None:
        """The span keeps the code and class but no ERROR status and no error.type.

        D01 asks for status ERROR and error.type=not_found; DESIGN.md follows semconv-genai PR #404
        (caller mistakes are not server errors) and keeps our class out of error.type.
        """
        await served.call("get_ordr", {"order_id": "A-1"})
        span = served.span()
        assert span.name == "tools/call"  # a client-chosen name is not a span name
        assert span.status.status_code is StatusCode.UNSET
        assert span.attributes["rpc.response.status_code"] == "-32602"
        assert "error.type" not in span.attributes
        assert span.attributes["errscope.failure_class"] == "not_found"
        assert span.attributes["errscope.channel"] == "protocol"

    async def test_metric_label_is_bounded(self, served: Served) -> None:
        """A tool name outside the registry is not a metric label value."""
        await served.call("get_ordr", {"order_id": "A-1"})
        labels = [dict(p.attributes) for p in served.telemetry.histogram_points("mcp.server.operation.duration")]
        tool_labels = {label.get("gen_ai.tool.name") for label in labels if label["mcp.method.name"] == "tools/call"}
        assert tool_labels == {"_OTHER"}


class TestD03FailuresAreErrors:
    async def test_permission_error(self, served: Served) -> None:
        """An escaped PermissionError is isError, permission_denied, with a do-not-retry note and a ref."""
        result = await served.call("read_registry_key", {"path": "HKLM\\SOFTWARE\\ExampleCorp"})
        assert isinstance(result, CallToolResult) and result.is_error
        text = text_of(result)
        ref = re.fullmatch(r"read_registry_key failed: permission denied\. Do not retry; ask the user to grant access\. " + REF, text)
        assert ref is not None, text
        span = served.span()
        assert (span.status.status_code, span.attributes["error.type"]) == (StatusCode.ERROR, "tool_error")
        assert span.attributes["errscope.failure_class"] == "permission_denied"
        assert span.attributes["errscope.error_ref"] == ref.group(1) == result.meta["io.errscope/error_ref"]

    @pytest.mark.parametrize("text", ["plain", "Error: something", "postgres://u:FAKE-X@h/db"])
    async def test_every_exception_is_iserror(self, served: Served, text: str) -> None:
        """Regression property: whatever a tool raises, the response is isError:true."""
        result = await served.call("leak", {"text": text})
        assert isinstance(result, CallToolResult) and result.is_error


class TestD06NoRawExceptionText:
    async def test_model_text(self, served: Served) -> None:
        """The model reads the class wording and a ref; no host, IP, user, password or driver."""
        result = await served.call("get_order", {"order_id": "A-100"})
        assert isinstance(result, CallToolResult)
        text = text_of(result)
        assert re.fullmatch(r"get_order failed: a backing service is unavailable\. .*" + REF, text), text
        for fragment in ("FAKE-PG-PASS-123", "svc", "db.internal", "10.0.0.5", "postgres", "fakedriver", "Operational"):
            assert fragment not in text

    async def test_span_and_log(self, served: Served) -> None:
        """Status description is the class; the log holds the scrubbed detail under the same ref."""
        result = await served.call("get_order", {"order_id": "A-100"})
        assert isinstance(result, CallToolResult)
        ref = result.meta["io.errscope/error_ref"]
        span = served.span()
        assert span.status.description == "upstream_unavailable"
        (record,) = served.telemetry.log_records
        assert getattr(record, "errscope.error_ref") == ref
        assert getattr(record, "exception.type") == "fakedriver.errors.OperationalError"  # fully qualified (semconv)
        detail = getattr(record, "exception.message")
        assert "password authentication failed" in detail and "db.internal.example" in detail
        recorded = everything_recorded(served)
        assert "FAKE-PG-PASS-123" not in recorded and "svc:" not in recorded


class TestD09NoPiiOnSpans:
    async def test_integrity_error(self, served: Served) -> None:
        """Class invalid_input; the field is named, the value is nowhere."""
        args = {"customer_id": "C-9", "email": "jane.FAKE@example.com", "ssn": "000-00-0000"}
        result = await served.call("update_customer", args)
        assert isinstance(result, CallToolResult)
        assert re.fullmatch(
            r"update_customer failed: a record with this email already exists\. Fix the arguments and call again\. " + REF,
            text_of(result),
        )
        assert served.span().attributes["errscope.failure_class"] == "invalid_input"
        recorded = everything_recorded(served)
        assert "jane.FAKE@example.com" not in recorded and "000-00-0000" not in recorded


class TestD11ContentCapture:
    ARGS = {"to": "pat.FAKE@example.com", "body": "Your reset code is 913-FAKE", "api_token": "tok-FAKE-77"}

    async def test_off_by_default(self, served: Served) -> None:
        """With capture off, no argument or result value appears anywhere; error status still recorded."""
        await served.call("send_email", self.ARGS)
        await served.call("send_email", {**self.ARGS, "to": "fail.FAKE@example.com"})
        spans = [s for s in served.telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
        assert [s.status.status_code for s in spans] == [StatusCode.UNSET, StatusCode.ERROR]
        recorded = everything_recorded(served)
        for value in ("pat.FAKE", "913-FAKE", "tok-FAKE-77", "queued for"):
            assert value not in recorded

    @pytest.mark.parametrize("served", [{"capture_content": True}], indirect=True)
    async def test_on_is_still_scrubbed(self, served: Served) -> None:
        """With capture on, arguments and results are recorded but secrets are masked."""
        await served.call("send_email", self.ARGS)
        span = served.span()
        captured = span.attributes["gen_ai.tool.call.arguments"]
        assert "reset code" in captured
        assert "tok-FAKE-77" not in captured and "913-FAKE" not in captured
        assert "queued for" in span.attributes["gen_ai.tool.call.result"]


class TestD16SchemaValidation:
    async def test_execution_error_from_schema(self, served: Served) -> None:
        """Schema violations are isError results built from the schema, never echoing values (SEP-1303)."""
        result = await served.call("schedule_meeting", {"start": "next tuesday", "duration_min": "ninety"})
        assert isinstance(result, CallToolResult) and result.is_error
        assert re.fullmatch(
            r"Invalid arguments for schedule_meeting: `duration_min` must be an integer from 1 to 480; "
            r"`start` must be an ISO-8601 date-time\. Fix the arguments and call again\. " + REF,
            text_of(result),
        ), text_of(result)
        span = served.span()
        assert span.attributes["errscope.failure_class"] == "invalid_input"
        assert "ninety" not in everything_recorded(served)

    async def test_string_for_number_is_rejected(self, served: Served) -> None:
        """"40" for an integer is refused in every style (MCPServer alone would coerce it)."""
        result = await served.call("schedule_meeting", {"start": "2026-12-01T10:00:00Z", "duration_min": "40"})
        assert isinstance(result, CallToolResult) and result.is_error
        assert "`duration_min` must be an integer from 1 to 480" in text_of(result)

    async def test_missing_argument(self, served: Served) -> None:
        """A missing argument is named as required."""
        result = await served.call("schedule_meeting", {"start": "2026-12-01T10:00:00Z"})
        assert isinstance(result, CallToolResult)
        assert "`duration_min` is required" in text_of(result)

    async def test_valid_call_succeeds(self, served: Served) -> None:
        """Valid arguments run the tool."""
        result = await served.call("schedule_meeting", {"start": "2026-12-01T10:00:00Z", "duration_min": 30})
        assert isinstance(result, CallToolResult) and not result.is_error


class TestBoundsAndOwnResults:
    async def test_100kb_message_is_bounded(self, served: Served) -> None:
        """A 100 KB exception message gives a short model text and bounded telemetry."""
        result = await served.call("big_failure", {"size": 100_000})
        assert isinstance(result, CallToolResult)
        assert len(text_of(result)) < 300
        (record,) = served.telemetry.log_records
        assert len(getattr(record, "exception.message")) <= 2048
        assert len(everything_recorded(served)) < 20_000

    async def test_tool_built_error_result(self, served: Served) -> None:
        """An isError result the tool built itself is kept, scrubbed, and given a ref; its text is read with the
        client's rules ("quota exceeded"), as a client or ``errscope proxy`` would read the same result."""
        result = await served.call("explicit_failure", {"text": "quota exceeded for postgres://admin:FAKE-S3cret@db:5432/x"})
        assert isinstance(result, CallToolResult) and result.is_error
        text = text_of(result)
        assert "FAKE-S3cret" not in text and "quota exceeded" in text
        assert ERROR_REF_PATTERN.search(text)
        assert served.span().attributes["errscope.failure_class"] == FailureClass.RATE_LIMITED


class TestCancellation:
    async def test_cancelled_call_ends_cancelled(self, served: Served) -> None:
        """A request the client abandons is cancelled: no response, span outcome cancelled, lock released."""
        released = catalogue.IN_FLIGHT["released"]
        with anyio.move_on_after(0.3):
            await served.call("export_report", {"seconds": 30})
        with anyio.fail_after(5):
            while catalogue.IN_FLIGHT["released"] == released:
                await anyio.sleep(0.01)
        assert catalogue.IN_FLIGHT["count"] == 0
        with anyio.fail_after(5):
            while not [s for s in served.telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "export_report"]:
                await anyio.sleep(0.01)
        span = served.span()
        assert span.attributes["errscope.outcome"] == "cancelled"
        assert "errscope.failure_class" not in span.attributes


def _sleep_sync(seconds: float) -> str:
    """A sync tool: MCPServer and FastMCP run it in a worker thread that a cancel cannot stop."""
    time.sleep(seconds)
    return "done"


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_cancelled_sync_tool_ends_cancelled(style: str, telemetry: CapturedTelemetry) -> None:
    """A sync tool runs on after notifications/cancelled and the SDK drops its answer: the span says cancelled."""
    server = BUILDERS[style]()
    (server.add_tool if style == "mcpserver" else server.tool)(_sleep_sync)
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:  # the legacy era sends notifications/cancelled in-process
        with anyio.move_on_after(0.3):
            await client.call_tool("_sleep_sync", {"seconds": 1.0})
        with anyio.fail_after(5):
            while not telemetry.spans("tools/call _sleep_sync"):
                await anyio.sleep(0.05)
    (span,) = telemetry.spans("tools/call _sleep_sync")
    assert span.attributes["errscope.outcome"] == "cancelled"
