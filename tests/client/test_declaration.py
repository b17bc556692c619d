"""errscope servers declare, in ``tools/list``, the tools that honour errscope idempotency keys."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

import errscope
from errscope._attributes import META_IDEMPOTENCY_KEY_HONOURED
from errscope.idempotency import Idempotency, declare_keys_honoured, honours_keys, idempotency_key_of, keys_honoured

pytestmark = pytest.mark.anyio

HONOURED = META_IDEMPOTENCY_KEY_HONOURED


class Payments:
    """A service object holding its Idempotency as an attribute (``self.idempotency.run``)."""

    def __init__(self) -> None:
        self.idempotency = Idempotency()


async def _listing(target: Any) -> dict[str, Any]:
    async with Client(target) as client:
        tools = (await client.list_tools()).tools
    return {tool.name: (tool.meta or {}).get(HONOURED) for tool in tools}


def _tools(prefix: str) -> list[Any]:
    """Marked tools (one marked under a ``functools.wraps`` decorator of the application's), a plain one,
    and one that uses an Idempotency unmarked (declared only once it has run)."""
    idem = Idempotency()
    payments = Payments()

    @keys_honoured
    async def refund(order_id: str, ctx: Any = None) -> str:
        async def act(headers: dict[str, str]) -> str:
            return order_id

        return await idem.run(idempotency_key_of(ctx), tool=f"{prefix}_refund", arguments={"o": order_id}, action=act)

    @_logged
    @keys_honoured
    async def charge(amount: int) -> str:
        return await payments.idempotency.run(None, tool=f"{prefix}_charge", arguments={}, action=_noop)

    def lookup(order_id: str) -> str:
        return order_id

    async def audit(order_id: str) -> str:
        return await payments.idempotency.run(None, tool=f"{prefix}_audit", arguments={}, action=_noop)

    names = ("refund", "charge", "lookup", "audit")
    tools = [refund, charge, lookup, audit]
    for name, fn in zip(names, tools, strict=True):
        fn.__name__ = f"{prefix}_{name}"
    return tools


async def _noop(headers: dict[str, str]) -> str:
    return "ok"


def _logged(fn: Any) -> Any:
    """An application's own decorator, as functools.wraps writes them."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        return await fn(*args, **kwargs)

    return wrapper


async def test_mcpserver_declares_tools_using_idempotency() -> None:
    """MCPServer: marked tools are declared before any call; a plain tool, an unmarked user of
    Idempotency that has not run yet, and an explicit False are not."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("decl")
    for fn in _tools("ms"):
        server.add_tool(fn)
    server.add_tool(lambda: "x", name="ms_optout", meta={HONOURED: False})
    errscope.instrument(server, capture_httpx=False)
    listing = await _listing(server)
    assert listing == {"ms_refund": True, "ms_charge": True, "ms_lookup": None, "ms_audit": None, "ms_optout": False}


async def test_fastmcp_declares_tools_using_idempotency() -> None:
    """FastMCP: the same rule through its list_tools middleware, and ``audit`` once it has run."""
    from fastmcp import FastMCP

    app = FastMCP("decl")
    for fn in _tools("fm"):
        app.tool(fn)
    errscope.instrument(app, capture_httpx=False)
    listing = await _listing(app._mcp_server)
    assert listing == {"fm_refund": True, "fm_charge": True, "fm_lookup": None, "fm_audit": None}
    async with Client(app._mcp_server) as client:
        await client.call_tool("fm_audit", {"order_id": "o-1"})
    assert (await _listing(app._mcp_server))["fm_audit"] is True


def test_methods_are_marked_through_their_function() -> None:
    """Marked in the class body, or a bound method marked afterwards (its function carries the mark)."""

    class Service:
        @keys_honoured
        async def refund(self) -> str:
            return "ok"

        async def charge(self) -> str:
            return "ok"

        async def lookup(self) -> str:
            return "ok"

    service = Service()
    keys_honoured(service.charge)
    assert honours_keys("m_refund", service.refund) and honours_keys("m_charge", Service().charge)
    assert not honours_keys("m_lookup", service.lookup)


async def test_lowlevel_server_declares_by_hand_and_by_use() -> None:
    """Low-level Server (one handler for all tools): names declared by hand, then names Idempotency.run has served."""
    from mcp.server.lowlevel.server import Server

    idem = Idempotency()
    names = ("ll_manual", "ll_used", "ll_plain")

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name=n, input_schema={"type": "object"}) for n in names])

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        text = await idem.run(None, tool=params.name, arguments={}, action=_noop)
        return CallToolResult(content=[TextContent(type="text", text=text)])

    server = Server("decl", on_list_tools=list_tools, on_call_tool=call_tool)
    errscope.instrument(server, capture_httpx=False)
    declare_keys_honoured("ll_manual")
    before = await _listing(server)
    async with Client(server) as client:
        await client.call_tool("ll_used", {})
    after = await _listing(server)
    assert before == {"ll_manual": True, "ll_used": None, "ll_plain": None}
    assert after == {"ll_manual": True, "ll_used": True, "ll_plain": None}
    assert honours_keys("ll_used") and not honours_keys("ll_plain")
