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


# --- J460: a 429 whose Retry-After is longer than the call may take ------------------------------------------------------

async def test_j460_a_429_asking_for_longer_than_the_budget(telemetry: Any) -> None:
    """J460 (smg-project/smg PR #2441: "the first attempt and any replay share one deadline"; ComposioHQ/composio #3654:
    retries that fire on 429 and read timeouts). A gateway refuses the call with HTTP 429 and ``Retry-After: 8``; the
    client may wait out 10 s on its own (``max_rate_limit_wait``) but gives a logical call 3 s (``budget``). Waiting 8 s
    would overrun the call's budget: the call ends at once, not run (RFC 6585 §4), and the model is told how long to
    wait; the refused POST was the only one."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, refusing
    from tests.client.test_heldout_cases_4 import pages_server

    seen: list[bytes] = []
    server = pages_server()
    gate = refusing("create_page", 429, b"Too Many Requests", (b"retry-after", b"8"), (b"content-type", b"text/plain"),
                    seen=seen)
    policy = RetryPolicy(max_attempts=3, budget=3, max_rate_limit_wait=10, backoff_initial=0.05, jitter=0.0)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=policy, **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
            elapsed = time.monotonic() - started
    assert elapsed < 2.5 and len(seen) == 1, (elapsed, len(seen))
    assert result.failure_class is FailureClass.RATE_LIMITED and result.side_effect_possible is False, result
    assert "Wait about 8 s" in result.text and server.ran == [], (result.text, server.ran)


# --- J461, J462: what the server declares decides, and the model is told -------------------------------------------------

LEDGER_DOWN = "ledger service answered 504 Gateway Timeout"


def ledger_server() -> MCPServer:
    """Tools that each note their run, then fail with an upstream's 504 (an ``isError`` result: the tool ran, and its upstream may have acted), declared
    with the spec's hints as foreign servers declare them."""
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("ledger")
    ran: list[str] = []
    hints = {
        "append_entry": ToolAnnotations(idempotentHint=True),  # mis-declared: every run appends a line
        "create_website": ToolAnnotations(readOnlyHint=False, destructiveHint=False),
        "export_ledger": ToolAnnotations(readOnlyHint=True, destructiveHint=True),
        "purge_period": ToolAnnotations(destructiveHint=True, idempotentHint=True),
        "close_period": ToolAnnotations(readOnlyHint=False, idempotentHint=False),
    }
    def tool_body(name: str) -> Any:
        def body(period: str) -> str:
            ran.append(name)
            raise ToolError(LEDGER_DOWN)

        return body

    for name, annotations in hints.items():
        server.add_tool(tool_body(name), name=name, annotations=annotations)
    server.ran = ran  # type: ignore[attr-defined]
    return server


async def call_ledger(telemetry: Any, tool: str) -> tuple[Any, list[str]]:
    from tests.client.servers.app import serve

    server = ledger_server()
    async with serve(server.streamable_http_app(host="127.0.0.1")) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            result = await tc.call_tool(tool, {"period": "2026-11"})
    return result, server.ran  # type: ignore[attr-defined]


async def test_j461_a_tool_declared_idempotent_that_is_not(telemetry: Any) -> None:
    """J461 (PrimeIntellect-ai/verifiers PR #2154: retries gated on the server's ``readOnlyHint``/``idempotentHint``, so
    "mis-declared idempotent/read-only tools could be executed twice"; hostinger/api-mcp-server #68: write tools re-sent
    byte for byte). ``append_entry`` is declared ``idempotentHint: true`` but appends on every run, then fails with its
    upstream's 504. The client trusts the declaration (it is all it has: MCP, Tools > ToolAnnotations) and repeats the
    call, so the server ran it three times; the model is told it was sent three times on the server's declaration,
    not only that "it may have taken effect"."""
    result, ran = await call_ledger(telemetry, "append_entry")
    assert ran == ["append_entry"] * 3 and result.attempts == 3, (ran, result)
    assert result.side_effect_possible is True and "may have taken effect" in result.text, result.text
    assert "sent 3 times" in result.text and "idempotentHint" in result.text, result.text
    assert result.text.endswith(f"Ref {result.error_ref}."), result.text


@pytest.mark.parametrize(("tool", "runs"), [
    ("create_website", 1),
    ("export_ledger", 3),
    ("purge_period", 3),
    ("close_period", 1),
])
async def test_j462_hint_combinations(telemetry: Any, tool: str, runs: int) -> None:
    """J462 (hostinger/api-mcp-server #68: a write declared ``readOnlyHint: false, destructiveHint: false``; MCP 2025-11-25,
    Tools > ToolAnnotations: ``destructiveHint`` and ``idempotentHint`` are meaningful only when ``readOnlyHint`` is
    false, and ``destructiveHint`` says nothing about a repeat; smg-project/smg PR #2441: replay only what declares
    ``idempotentHint`` or ``readOnlyHint``). A write that is not destructive is still not safe to repeat; a read-only
    tool also marked destructive is (the read-only promise governs); a destructive idempotent tool is; an explicit
    ``idempotentHint: false`` is not. A call run once says nothing of being sent more than once."""
    result, ran = await call_ledger(telemetry, tool)
    assert ran == [tool] * runs and result.attempts == runs, (ran, result)
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and "Ref ERR-" in result.text, result
    assert ("sent 3 times" in result.text) is (runs == 3), result.text


# --- J463: a cancel racing the result -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("hints", "runs"), [(None, 1), (ToolAnnotations(readOnlyHint=True), 2)], ids=["write", "read-only"])
async def test_j463_a_cancel_racing_the_result(telemetry: Any, hints: ToolAnnotations | None, runs: int) -> None:
    """J463 (modelcontextprotocol/python-sdk: a sync tool keeps running in its worker thread after
    ``notifications/cancelled``; MCP, Cancellation: the receiver "MAY ignore" a cancel that arrives after it finished,
    and the sender SHOULD ignore a response that arrives after it; mcheemaa/mistri PR #26: a call whose answer was lost
    is not replayable). The client's idle timer fires while ``post_message`` finishes its work: the cancel races the
    result and the work is done. Timed out, may have taken effect; a write is not sent again, a read-only tool is."""
    from tests.client.servers.app import serve

    server = MCPServer("chat")
    ran: list[str] = []

    def post_message(channel: str) -> str:
        time.sleep(0.9)
        ran.append(channel)
        return "posted"

    server.add_tool(post_message, name="post_message", annotations=hints)
    policy = RetryPolicy(max_attempts=2, backoff_initial=0.05, backoff_max=0.1, jitter=0.0)
    async with serve(server.streamable_http_app(host="127.0.0.1")) as base:
        async with ToolClient(base + "/mcp", timeout=0.6, retry=policy, **telemetry.providers) as tc:
            result = await tc.call_tool("post_message", {"channel": "#ops"})
        await anyio.sleep(1.2)  # the worker threads finish what they started
    assert ran == ["#ops"] * runs and result.attempts == runs, (ran, result)
    assert result.outcome is Outcome.TIMEOUT and result.side_effect_possible is not False, result
