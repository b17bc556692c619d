"""Server side of tests/heldout_cases.md, thirteenth round (J257-J261): a root cause behind a prompt's or a resource's
own exception, and one a tool only logged.

A prompt and a resource that fetch from an upstream on 127.0.0.1 that refuses the connection, and re-raise the failure as
their own ``ValueError`` (``raise ... from exc``), as helpers that "validate" what they loaded do. The class comes from
the chain (the refused connection), not from the ``ValueError`` on top: the host is not told its arguments were wrong.
A tool that catches the failure, logs it with its traceback and answers a bare ``isError`` (J259): the logged exception
is the root cause; one that answers a bare ``isError`` after its upstream's failing status (J261): that status is.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``; the real SDK client in process.
"""

from __future__ import annotations

import logging
import re

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

import errscope
from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HOST, HttpUpstream, closed_port
from tests.server.test_heldout_cases import REF, text_of
from tests.server.test_heldout_cases_9 import ping
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


def load_ticket(ticket_id: str) -> str:
    """Fetch a ticket from the tracker; a failure is re-raised as the helper's own ``ValueError``."""
    try:
        response = httpx.get(f"http://{HOST}:{closed_port()}/tickets/{ticket_id}", timeout=5)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise ValueError(f"could not load ticket {ticket_id}") from exc
    return response.text


def span_for(telemetry: CapturedTelemetry, method: str) -> dict:
    (span,) = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == method]
    return dict(span.attributes)


@pytest.mark.parametrize("style", STYLES)
async def test_j257_a_prompt_whose_upstream_refused(style: str, telemetry: CapturedTelemetry) -> None:
    """J257 (MCP 2025-11-25, Prompts > Error Handling: "Internal errors: -32603"; -32602 is for an invalid prompt name or
    missing arguments). A prompt template that loads the ticket it summarises; the tracker refuses the connection and
    the helper re-raises it as ``ValueError(...) from exc``. The span's class is ``upstream_unavailable`` (the chain's
    root), the answer is no "invalid params" for arguments that were fine, it quotes a ref the span carries, and the
    connection still serves a tool call."""
    server = BUILDERS[style]()

    @server.prompt()
    def summarize_ticket(ticket_id: str) -> str:
        """Summarise a support ticket."""
        return f"Summarise this ticket:\n{load_ticket(ticket_id)}"

    (server.tool if style == "fastmcp" else server.add_tool)(ping)
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.get_prompt("summarize_ticket", {"ticket_id": "T-1"})
        after = await client.call_tool("ping", {})
    attributes = span_for(telemetry, "prompts/get")
    assert attributes.get(ERRSCOPE_FAILURE_CLASS) == "upstream_unavailable", attributes
    assert raised.value.code != -32602, (raised.value.code, raised.value.message)
    ref = re.search(REF, raised.value.message)
    assert ref and attributes.get("errscope.error_ref") == ref.group(0)[4:], (raised.value.message, attributes)
    assert text_of(after) == "pong"


@pytest.mark.parametrize("style", STYLES)
async def test_j258_a_resource_whose_upstream_refused(style: str, telemetry: CapturedTelemetry) -> None:
    """J258 (MCP 2025-11-25, Resources > Error Handling: -32002 is for a resource not found, -32603 for internal errors).
    A resource template ``tickets://{id}`` whose tracker refuses the connection, re-raised as ``ValueError ... from``:
    ``upstream_unavailable`` on the span, never "not found" (-32002) nor invalid params (-32602), a ref in the
    answer, and the connection still serves a tool call."""
    server = BUILDERS[style]()

    @server.resource("tickets://{ticket_id}")
    def ticket(ticket_id: str) -> str:
        return load_ticket(ticket_id)

    (server.tool if style == "fastmcp" else server.add_tool)(ping)
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource("tickets://T-1")
        after = await client.call_tool("ping", {})
    attributes = span_for(telemetry, "resources/read")
    assert attributes.get(ERRSCOPE_FAILURE_CLASS) == "upstream_unavailable", attributes
    assert raised.value.code not in (-32002, -32602), (raised.value.code, raised.value.message)
    ref = re.search(REF, raised.value.message)
    assert ref and attributes.get("errscope.error_ref") == ref.group(0)[4:], (raised.value.message, attributes)
    assert text_of(after) == "pong"


def _quiet_logger(name: str) -> logging.Logger:
    """A logger whose configuration drops every record: a ``NullHandler`` and no propagation."""
    quiet = logging.getLogger(name)
    quiet.handlers[:] = [logging.NullHandler()]
    quiet.propagate = False
    return quiet


@pytest.mark.parametrize("logger_name", ["acme.tools", "acme.quiet"])
@pytest.mark.parametrize("style", STYLES)
async def test_j259_an_exception_caught_logged_and_told_as_a_bare_error(
    style: str, logger_name: str, telemetry: CapturedTelemetry
) -> None:
    """J259 (the pattern across public MCP servers: ``except Exception: logger.exception("..."); return
    CallToolResult(isError=True, content=[TextContent(text="Failed to create the issue.")])``; the root cause is only
    in the log line, the model and the span read a sentence that names none). A tool catches a refused connection,
    logs it with its traceback and answers a bare ``isError``. The span's class is ``upstream_unavailable`` with the
    exception event of the ``httpx.ConnectError`` it logged, even when the application's logging configuration drops
    that record (``acme.quiet``: a ``NullHandler``, no propagation); the model's text is the tool's, with the ref."""
    log = _quiet_logger(logger_name) if logger_name == "acme.quiet" else logging.getLogger(logger_name)
    server = BUILDERS[style]()

    def create_issue(title: str) -> CallToolResult:
        """Open an issue in the tracker."""
        try:
            load_ticket(title)
        except ValueError:
            log.exception("create_issue failed")
            return CallToolResult(content=[TextContent(type="text", text="Failed to create the issue.")], is_error=True)
        return CallToolResult(content=[TextContent(type="text", text="created")])

    (server.tool if style == "fastmcp" else server.add_tool)(create_issue)
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        result = await client.call_tool("create_issue", {"title": "T-1"})
    assert result.is_error and text_of(result).startswith("Failed to create the issue."), text_of(result)
    (span,) = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "create_issue"]
    assert span.attributes.get(ERRSCOPE_FAILURE_CLASS) == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get("error.type") == "tool_error", dict(span.attributes)
    events = [dict(e.attributes or {}) for e in span.events if e.name == "exception"]
    assert events and "ConnectError" in events[0].get("exception.type", ""), events
    ref = re.search(REF, text_of(result))
    assert ref and span.attributes.get("errscope.error_ref") == ref.group(0)[4:]


@pytest.mark.parametrize("style", STYLES)
async def test_j259_a_warning_without_a_traceback_is_no_root_cause(style: str, telemetry: CapturedTelemetry) -> None:
    """J259's guard: a tool that logs only a warning line (no traceback) before its bare ``isError`` gave errscope
    nothing to read: the class stays ``unknown`` and the span has no exception event."""
    log = logging.getLogger("acme.tools")
    server = BUILDERS[style]()

    def create_issue(title: str) -> CallToolResult:
        """Open an issue in the tracker."""
        try:
            load_ticket(title)
        except ValueError as exc:
            log.warning("create_issue failed: %s", exc)
            return CallToolResult(content=[TextContent(type="text", text="Failed to create the issue.")], is_error=True)
        return CallToolResult(content=[TextContent(type="text", text="created")])

    (server.tool if style == "fastmcp" else server.add_tool)(create_issue)
    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        await client.call_tool("create_issue", {"title": "T-1"})
    (span,) = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "create_issue"]
    assert span.attributes.get(ERRSCOPE_FAILURE_CLASS) == "unknown", dict(span.attributes)
    assert not [e for e in span.events if e.name == "exception"]


@pytest.mark.parametrize(("status", "expected"), [
    (503, "upstream_unavailable"), (429, "rate_limited"), (404, "not_found"), (403, "permission_denied"), (200, "unknown"),
])
@pytest.mark.parametrize("style", STYLES)
async def test_j261_a_bare_error_after_an_upstream_status(
    style: str, status: int, expected: str, telemetry: CapturedTelemetry
) -> None:
    """J261 (the same pattern as J259 without the log line: ``if r.status_code >= 400: return CallToolResult(isError=True,
    content=[TextContent(text="Failed to create the issue.")])``). The tool's text names no cause, but the upstream's
    answer during the call was recorded (httpx's hooks: ``errscope.upstream.status`` on the span): its status decides
    the class by RFC 9110's table, as it would had the tool raised ``raise_for_status()``. A 200 before a bare error
    says nothing: ``unknown``."""
    server = BUILDERS[style]()
    with HttpUpstream() as upstream:
        base = upstream.scripted(status, '{"error": "scripted"}')

        def create_issue(title: str) -> CallToolResult:
            """Open an issue in the tracker."""
            response = httpx.post(f"{base}/issues", json={"title": title}, timeout=5)
            if response.status_code >= 400 or title == "T-fail":
                return CallToolResult(content=[TextContent(type="text", text="Failed to create the issue.")], is_error=True)
            return CallToolResult(content=[TextContent(type="text", text="created")])

        (server.tool if style == "fastmcp" else server.add_tool)(create_issue)
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target, mode="legacy") as client:
            result = await client.call_tool("create_issue", {"title": "T-fail"})
    assert result.is_error and text_of(result).startswith("Failed to create the issue."), text_of(result)
    (span,) = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "create_issue"]
    assert span.attributes.get(ERRSCOPE_FAILURE_CLASS) == expected, dict(span.attributes)
    assert span.attributes.get("error.type") == "tool_error", dict(span.attributes)
