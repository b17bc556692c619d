"""A stdio MCP server whose tools declare typed, constrained arguments: ``python py_validation_server.py STYLE``.

STYLE is ``mcpserver`` (the ``mcp`` SDK's ``MCPServer``) or ``fastmcp`` (any installed FastMCP major); the
SDK's low-level ``Server`` validates no arguments, so it has no message of its own to collect. It runs with whichever interpreter has that SDK, also a
throwaway venv holding an older FastMCP, so it imports nothing from errscope or the tests. The tools mirror
``tests/npm/servers/ts_failing_server.mjs`` so every SDK rejects the same bad calls in its own words.
"""

from __future__ import annotations

import sys
from typing import Annotated, Literal

from pydantic import Field

OrderId = Annotated[str, Field(pattern=r"^ORD-\d{4}$")]
Weight = Annotated[float, Field(gt=0, le=30)]


def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


def create_label(order_id: OrderId, weight_kg: Weight, service: Literal["ground", "express"], email: str = "") -> str:
    """Create a shipping label."""
    return f"label for {order_id}"


def fastmcp() -> None:
    from fastmcp import FastMCP

    server = FastMCP("py-validation-fastmcp")
    server.tool(add)
    server.tool(create_label)
    server.run()


def mcpserver() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("py-validation-mcpserver")
    server.add_tool(add)
    server.add_tool(create_label)
    server.run("stdio")


if __name__ == "__main__":
    {"fastmcp": fastmcp, "mcpserver": mcpserver}[sys.argv[1]]()
