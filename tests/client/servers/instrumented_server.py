"""An errscope-instrumented ``MCPServer`` over stdio (or streamable HTTP): the lead's adapter end to end.

Tools raise the errscope exception family so the client sees the server's class, ref and retry
advice in the result's ``_meta``. Run: python instrumented_server.py [stdio|http PORT]
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

import errscope

server = MCPServer("orders")


@server.tool()
def get_order(order_id: str) -> str:
    """Look an order up."""
    if order_id == "A-1":
        return "order A-1: 2 items"
    raise errscope.NotFound(f"order {order_id} missing", public_message=f"order {order_id} does not exist")


@server.tool(annotations=ToolAnnotations(idempotentHint=True))
def list_orders() -> str:
    """List orders."""
    raise errscope.RateLimited("upstream 429", retry_after=0.2)


@server.tool()
def refund(order_id: str) -> str:
    """Refund an order (the upstream is down)."""
    raise ConnectionError("could not connect to postgresql://svc:FAKE-PG-PASS-123@db.internal.example:5432/orders")


errscope.instrument(server, capture_httpx=False)

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
