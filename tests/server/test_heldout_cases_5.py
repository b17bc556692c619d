"""Server side of tests/heldout_cases.md, fifth round (J105, J111-J114): non-ASCII exception text, a log notification sent
by a failing tool, an exception in ``completion/complete``, and a tool whose own request to the client (sampling,
elicitation) is refused or times out.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, spoken to in process by the real SDK client (with
its real sampling, elicitation and logging callbacks) in the protocol eras each case belongs to.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from fastmcp import Context as FastMCPContext
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

import errscope
from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope.testing import CapturedTelemetry
from tests.server.test_heldout_cases import everything_recorded, text_of
from tests.server.test_heldout_cases_4 import tool_spans
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

DSN = "postgresql://svc:FAKE-PG-PW-5@db.internal.example:5432/ledger"


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j105_a_non_ascii_exception_message(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """J105 (MemPalace/mempalace #929: non-ASCII input ended in "-32000 Internal tool error"; yjacquin/fast-mcp #124: ``"\\xE2"
    on US-ASCII`` from the JSON generator). A tool's exception naming a title in Polish, Japanese and an emoji answers
    ``isError`` with a ref and its class, in valid text with no escapes or mojibake; the span's status is the class."""
    server = BUILDERS[style]()

    @server.tool()
    async def open_note(title: str) -> str:
        """Open a note by its title."""
        raise FileNotFoundError(f"no note titled «{title}»")

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:
        result = await client.call_tool("open_note", {"title": "Łódź – 東京 🚆"})
    text = text_of(result)
    assert result.is_error and "ERR-" in text, text
    text.encode("utf-8")  # valid: no lone surrogate
    assert "\\u" not in text and "Ã" not in text and "Å" not in text, text
    [span] = tool_spans(telemetry)
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "not_found"
    assert span.status.description == "not_found"


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j111_a_log_notification_holding_a_credential(style: str, telemetry: CapturedTelemetry) -> None:
    """J111 (CherryHQ/cherry-studio PR #18670: a host displayed a server's raw ``notifications/message``, credentials
    included; MCP 2025-11-25, Logging > Security: log messages MUST NOT contain credentials). A tool logs its connection
    string through the MCP logging channel and then fails: the client receives the log line without the password, and
    the answer is ``isError`` with a ref."""
    server = BUILDERS[style]()

    async def log_then_fail(ctx: Any) -> str:
        await ctx.info(f"connecting to {DSN}")
        raise ConnectionRefusedError(f"could not connect to {DSN}")

    if style == "fastmcp":  # each framework finds the context parameter by its own Context type

        @server.tool()
        async def sync_ledger(month: str, ctx: FastMCPContext) -> str:
            """Copy a month of the ledger from the primary database."""
            return await log_then_fail(ctx)
    else:

        @server.tool()
        async def sync_ledger(month: str, ctx: Context) -> str:
            """Copy a month of the ledger from the primary database."""
            return await log_then_fail(ctx)

    errscope.instrument(server, **telemetry.providers)
    messages: list[Any] = []

    async def on_log(params: Any) -> None:
        messages.append(params.data)

    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy", logging_callback=on_log) as client:
        result = await client.call_tool("sync_ledger", {"month": "2026-03"})
        await anyio.sleep(0.05)  # the notification is delivered before the answer; let the callback run
    assert result.is_error and "ERR-" in text_of(result)
    assert messages, "the log notification never arrived"
    for message in messages:
        assert "FAKE-PG-PW-5" not in str(message) and "svc:" not in str(message), message


async def test_j112_an_exception_in_completion_complete(telemetry: CapturedTelemetry) -> None:
    """J112 (modelcontextprotocol/java-sdk #991: completion errors shown on every keystroke; modelcontextprotocol/ruby-sdk
    PR #402). A completion handler fails with a store URL holding a password: the JSON-RPC error holds neither password
    nor host, and a ``completion/complete`` SERVER span records the failure with no secret in any telemetry."""
    from mcp_types import PromptReference

    server = MCPServer("reviews")

    @server.prompt()
    def review_order(order_id: str) -> str:
        """Review an order."""
        return f"Review order {order_id}."

    @server.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> Any:
        raise ConnectionError("suggestion store down: redis://:FAKE-REDIS-PW-6@cache.internal.example:6379")

    errscope.instrument(server, **telemetry.providers)
    for era in ("legacy", "2026-07-28"):
        async with Client(server, mode=era) as client:
            with pytest.raises(MCPError) as raised:
                await client.complete(PromptReference(type="ref/prompt", name="review_order"), {"name": "order_id", "value": "A-"})
        assert raised.value.code == -32603, (era, raised.value.code)
        for fragment in ("FAKE-REDIS-PW-6", "cache.internal.example"):
            assert fragment not in raised.value.message and fragment not in str(raised.value.data), (era, fragment)
    spans = [s for s in telemetry.spans() if (s.attributes or {}).get("mcp.method.name") == "completion/complete"]
    assert len(spans) == 2 and all(s.status.status_code.name == "ERROR" for s in spans), [s.name for s in spans]
    assert "FAKE-REDIS-PW-6" not in everything_recorded(telemetry)


@pytest.mark.parametrize("refusal", ["no sampling support", "user declined"])
async def test_j113_sampling_refused_by_the_client_inside_a_tool(refusal: str, telemetry: CapturedTelemetry) -> None:
    """J113 (PrefectHQ/fastmcp #2162: "The user has denied permission to call this method"; mcp-use/mcp-use #863:
    "-32600: Sampling not supported"; modelcontextprotocol/typescript-sdk #738: ``sampling/createMessage`` → -32601). The
    client's refusal of the tool's own ``sampling/createMessage`` is the tool's failure: ``isError`` with a ref, never a
    JSON-RPC error for ``tools/call`` itself (a -32601 would tell the host that ``tools/call`` does not exist)."""
    from mcp_types import ErrorData, SamplingMessage, TextContent

    server = MCPServer("digest")

    @server.tool()
    async def summarise(text: str, ctx: Context) -> str:
        """Summarise a text with the host's model."""
        answer = await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarise: {text}"))], max_tokens=50)
        return str(answer.content)

    @server.tool()
    def ping() -> str:
        return "pong"

    errscope.instrument(server, **telemetry.providers)
    options: dict[str, Any] = {}
    if refusal == "user declined":

        async def decline(context: Any, params: Any) -> ErrorData:
            return ErrorData(code=-1, message="User rejected sampling request")

        options["sampling_callback"] = decline
    async with Client(server, mode="legacy", **options) as client:
        try:
            result = await client.call_tool("summarise", {"text": "a long report"})
        except MCPError as exc:
            pytest.fail(f"tools/call answered a JSON-RPC error {exc.code} {exc.message!r} for the client's refusal")
        after = await client.call_tool("ping", {})
    assert result.is_error and "ERR-" in text_of(result), text_of(result)
    assert text_of(after) == "pong"


async def test_j114_a_nested_request_that_times_out_inside_a_tool(telemetry: CapturedTelemetry) -> None:
    """J114 (modelcontextprotocol/modelcontextprotocol #907: a server's request to the client from inside a tool ended in
    "MCP error -32001: Request timed out"). The tool's own elicitation is not answered within its 0.2 s: the tool failed
    (``isError`` with a ref, class ``upstream_unavailable``); its -32001 is not the answer to ``tools/call``, which a host
    reads as its own timeout."""
    from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult

    server = MCPServer("files")

    @server.tool()
    async def confirm_delete(path: str, ctx: Context) -> str:
        """Delete a file once the user confirms."""
        request = ElicitRequest(params=ElicitRequestFormParams(
            message=f"Delete {path}?", requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}}))
        answer = await ctx.session.send_request(request, ElicitResult, request_read_timeout_seconds=0.2)
        return f"deleted {path}" if answer.action == "accept" else "kept"

    async def slow_user(context: Any, params: Any) -> ElicitResult:
        await anyio.sleep(2)
        return ElicitResult(action="accept", content={"ok": True})

    errscope.instrument(server, **telemetry.providers)
    async with Client(server, mode="legacy", elicitation_callback=slow_user) as client:
        try:
            result = await client.call_tool("confirm_delete", {"path": "/tmp/FAKE-report.csv"})
        except MCPError as exc:
            pytest.fail(f"tools/call answered a JSON-RPC error {exc.code} {exc.message!r} for the tool's own timeout")
    assert result.is_error and "ERR-" in text_of(result), text_of(result)
    assert [s.attributes.get(ERRSCOPE_FAILURE_CLASS) for s in tool_spans(telemetry)] == ["upstream_unavailable"]
