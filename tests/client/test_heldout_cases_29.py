"""Client side of tests/heldout_cases.md, twenty-ninth round (J459-J463): retries that re-run side effects, on foreign
ground. A call whose answer was lost after the server had it (a session that ended under a resumed stream, a gateway's
504, a cancel racing the result), a 429 asking for a wait longer than the call may take, and servers whose declarations
(``readOnlyHint``, ``destructiveHint``, ``idempotentHint``) decide whether a repeat is allowed.

Servers are real ``MCPServer``s on 127.0.0.1 over streamable HTTP (2025-11-25 era where sessions and resumption exist).
Each tool appends to its server's own ``ran`` list before it answers: the counts below are the upstream's, never
errscope's.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

from errscope import FailureClass, Outcome
from errscope.client import RetryPolicy, ToolClient
from tests.client.test_heldout_cases_3 import MemoryEventStore

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.05, backoff_max=0.1, jitter=0.0)
"""Automatic retries with waits short enough for a test; whether a repeat is allowed is unchanged."""


# --- J459: a session that ended under a resumed stream ------------------------------------------------------------------

class FailingOver:
    """Two instances of one MCP server behind a load balancer without sticky sessions (one ASGI app on one port).
    ``fail_over()`` drains the first: every later request goes to the second, which has never seen the first's
    sessions and answers them as the SDK does, HTTP 404 "Session not found" (MCP, Transports > Session Management)."""

    def __init__(self, first: MCPServer, second: MCPServer) -> None:
        self.apps = [first.streamable_http_app(host="127.0.0.1", event_store=MemoryEventStore(), retry_interval=100),
                     second.streamable_http_app(host="127.0.0.1", event_store=MemoryEventStore(), retry_interval=100)]
        self.live = 0
        self.resumed: list[int] = []
        """The instance each ``Last-Event-ID`` GET reached."""

    def fail_over(self) -> None:
        self.live = 1

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await receive()
            async with contextlib.AsyncExitStack() as stack:
                for app in self.apps:
                    await stack.enter_async_context(app.router.lifespan_context(app))
                await send({"type": "lifespan.startup.complete"})
                await receive()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] == "http" and scope["method"] == "GET" and any(k == b"last-event-id" for k, _ in scope["headers"]):
            self.resumed.append(self.live)
        await self.apps[self.live](scope, receive, send)


def orders_instance(ran: list[str], balancer: list[FailingOver], *, first: bool) -> MCPServer:
    """One instance of an orders server: ``place_order`` (no hints: a write) and ``set_shipping_address``
    (``idempotentHint``). On the first instance a call notes its run, closes its SSE stream (SEP-1699: the client
    resumes it with ``Last-Event-ID``) and the instance is drained before it answers."""
    server = MCPServer("orders")

    async def run(name: str, ctx: Context) -> str:
        ran.append(name)
        if first:
            await ctx.close_sse_stream()
            balancer[0].fail_over()
            await anyio.sleep(0.5)
        return f"{name} done"

    @server.tool()
    async def place_order(sku: str, ctx: Context) -> str:
        return await run("place_order", ctx)

    @server.tool(annotations=ToolAnnotations(idempotentHint=True, readOnlyHint=False))
    async def set_shipping_address(order: str, address: str, ctx: Context) -> str:
        return await run("set_shipping_address", ctx)

    return server


@pytest.mark.parametrize(("tool", "arguments", "runs"), [
    ("place_order", {"sku": "FAKE-SKU-1"}, 1),
    ("set_shipping_address", {"order": "O-1", "address": "1 Main St"}, 2),
], ids=["write", "idempotent"])
async def test_j459_a_session_gone_under_a_resumed_stream(telemetry: Any, tool: str, arguments: dict[str, Any],
                                                          runs: int) -> None:
    """J459 (modelcontextprotocol/typescript-sdk #2499 and PRs #2509, #2809: a resumed stream of a long request that a
    load balancer's idle timeout or a server restart cuts; tya5/reyn PR #2600 and smg-project/smg PR #2441: a client
    that reconnects and re-issues a call it lost after the server ran it double-executes a non-idempotent tool). The
    server took the call, ran the tool and closed its stream; the client's ``Last-Event-ID`` GET reached an instance
    that does not know the session (404). The 404 answers the GET, not the POST that carried the call: the call was
    delivered and may have run. A write is not sent again (it ran once) and the model is told to check; a tool the
    server declares idempotent is sent again on a new session and answers."""
    from tests.client.servers.app import serve

    ran: list[str] = []
    balancer: list[FailingOver] = []
    balancer.append(FailingOver(orders_instance(ran, balancer, first=True), orders_instance(ran, balancer, first=False)))
    async with serve(balancer[0]) as base:
        async with ToolClient(base + "/mcp", timeout=8, retry=FAST_RETRY, mode="legacy", **telemetry.providers) as tc:
            result = await tc.call_tool(tool, arguments)
    assert balancer[0].resumed and balancer[0].resumed[0] == 1, balancer[0].resumed
    assert ran == [tool] * runs, (ran, result)
    if runs == 1:
        assert result.outcome is Outcome.ERROR and result.side_effect_possible is True, result
        assert "not run" not in result.text and "Ref ERR-" in result.text, result.text
    else:
        assert (result.outcome, result.text, result.attempts) == (Outcome.OK, f"{tool} done", 2), result
