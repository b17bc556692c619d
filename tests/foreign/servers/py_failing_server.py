"""A stdio MCP server on a Python SDK we did not write, whose tools fail every way: ``py_failing_server.py STYLE``.

STYLE is ``mcp1`` (the ``mcp`` 1.x SDK's bundled ``mcp.server.fastmcp.FastMCP``, what most Python servers in the
wild still run) or ``fastmcp`` (the standalone FastMCP package, 2.x here). It runs under the throwaway venvs that
``scripts/tools.sh`` builds, so it imports nothing from errscope or the tests. The tools mirror
``tests/npm/servers/ts_failing_server.mjs``: arguments the SDK rejects (type, missing, enum, pattern, bound), a
tool raising (with a fake secret and a Python traceback in its words), a tool reporting its own failure, a quota,
a tool that never answers in time and one that kills the server.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Annotated, Literal

import anyio
from pydantic import Field

# Not a credential: tests assert it never reaches the model text or telemetry.
FAKE_SECRET = "sk_live_51FAKEerrscopeTestKey0000000000000000"


def add(a: float, b: float) -> str:
    """Add two numbers."""
    return f"{a + b:g}"


def create_label(
    order_id: Annotated[str, Field(pattern=r"^ORD-\d{4}$")],
    weight_kg: Annotated[float, Field(gt=0, le=30)],
    service: Literal["ground", "express"],
) -> str:
    """Create a shipping label."""
    return f"label for {order_id}"


def find_order(order_id: str) -> str:
    """Look an order up; the tool reports the missing order itself."""
    raise _tool_error(f"Order {order_id} not found (404)")


def charge_card(amount: float) -> str:
    """Charge a card through the payments API, which refuses the connection."""
    raise ConnectionRefusedError(111, f"payments API refused the connection; sent Authorization: Bearer {FAKE_SECRET}")


def export_report(month: str) -> str:
    """Fail the way careless servers do: the whole traceback, secret included, in the error text."""
    try:
        {"token": FAKE_SECRET}["rows"]
    except KeyError:
        raise RuntimeError(f"export of {month} failed (token {FAKE_SECRET}):\n{traceback.format_exc()}") from None
    return "unreachable"


def search(query: str) -> str:
    """Search, with a quota the caller has used up."""
    raise _tool_error("429 Too Many Requests: rate limit exceeded, retry after 2 seconds")


async def sleep(seconds: float) -> str:
    """Wait ``seconds`` (longer than the caller waits) without answering."""
    await anyio.sleep(seconds)
    return f"slept {seconds:g} s"


def explode() -> str:
    """Kill the whole server process mid-call, as a native crash or the OOM killer would."""
    os._exit(3)


TOOLS = (add, create_label, find_order, charge_card, export_report, search, sleep, explode)


def _tool_error(message: str) -> Exception:
    """The SDK's own "this tool failed" exception, which it sends as an ``isError`` result."""
    if sys.argv[1] == "fastmcp":
        from fastmcp.exceptions import ToolError
    else:
        from mcp.server.fastmcp.exceptions import ToolError
    return ToolError(message)


def main(style: str) -> None:
    if style == "fastmcp":
        from fastmcp import FastMCP
    else:
        from mcp.server.fastmcp import FastMCP  # type: ignore[no-redef]
    server = FastMCP(f"py-failing-{style}")
    for tool in TOOLS:
        server.add_tool(tool) if style == "mcp1" else server.tool(tool)
    server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1])
