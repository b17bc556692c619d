"""A stdio MCP server whose tools declare typed, constrained arguments: ``python py_validation_server.py STYLE``.

STYLE is ``mcpserver`` (the ``mcp`` 2.x SDK's ``MCPServer``), ``fastmcp`` (any installed FastMCP major), or, with
``mcp`` 1.x, ``mcp1-fastmcp`` (its bundled FastMCP) and ``mcp1-lowlevel`` (its low-level ``Server``, which checks
arguments against the JSON Schema with ``jsonschema``; the 2.x low-level ``Server`` checks none).

It runs under whichever interpreter has that SDK (also the throwaway venvs holding older FastMCP majors), so it
imports nothing from errscope or the tests. The tools mirror ``tests/npm/servers/ts_failing_server.mjs``, so every
SDK rejects the same bad calls in its own words.
"""

from __future__ import annotations

import sys
from typing import Annotated, Literal

from pydantic import BaseModel, Field

OrderId = Annotated[str, Field(pattern=r"^ORD-\d{4}$")]
Weight = Annotated[float, Field(gt=0, le=30)]


class Address(BaseModel):
    city: str
    zip: Annotated[str, Field(pattern=r"^\d{5}$")]


class Item(BaseModel):
    sku: str
    qty: Annotated[int, Field(ge=1)]


def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


def create_label(order_id: OrderId, weight_kg: Weight, service: Literal["ground", "express"], email: str = "") -> str:
    """Create a shipping label."""
    return f"label for {order_id}"


def ship(address: Address, items: list[Item]) -> str:
    """Ship items to an address."""
    return f"shipping {len(items)} items"


TOOLS = (add, create_label, ship)


def fastmcp() -> None:
    from fastmcp import FastMCP

    server = FastMCP("py-validation-fastmcp")
    for tool in TOOLS:
        server.tool(tool)
    server.run()


def mcpserver() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("py-validation-mcpserver")
    for tool in TOOLS:
        server.add_tool(tool)
    server.run("stdio")


def mcp1_fastmcp() -> None:
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("py-validation-mcp1-fastmcp")
    for tool in TOOLS:
        server.add_tool(tool)
    server.run("stdio")


def mcp1_lowlevel() -> None:
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from pydantic import TypeAdapter

    functions = {tool.__name__: tool for tool in TOOLS}
    server = Server("py-validation-mcp1-lowlevel")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name=n, inputSchema=TypeAdapter(f).json_schema()) for n, f in functions.items()]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, object]) -> list[types.TextContent]:
        if name not in functions:
            raise ValueError(f"Unknown tool: {name}")
        return [types.TextContent(type="text", text=functions[name](**arguments))]  # type: ignore[operator]

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    styles = {"fastmcp": fastmcp, "mcpserver": mcpserver, "mcp1-fastmcp": mcp1_fastmcp, "mcp1-lowlevel": mcp1_lowlevel}
    styles[sys.argv[1]]()
