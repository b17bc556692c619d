"""A plain ``mcp`` MCPServer over stdio or streamable HTTP, used until ``errscope.instrument`` lands.

Tools: echo, slow (sleeps, reports progress), fail (isError), add (typed args).
Run: python plain_server.py [stdio|http PORT]
"""

from __future__ import annotations

import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("plain")
IN_FLIGHT = 0


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
async def slow(seconds: float, ctx: Context, progress_every: float = 0.0) -> str:
    """Sleep, optionally reporting progress."""
    global IN_FLIGHT
    IN_FLIGHT += 1
    try:
        elapsed = 0.0
        step = progress_every or seconds
        while elapsed < seconds:
            await anyio.sleep(min(step, seconds - elapsed))
            elapsed += step
            if progress_every:
                await ctx.report_progress(elapsed, seconds)
        return f"slept {seconds}"
    finally:
        IN_FLIGHT -= 1


@server.tool()
def in_flight() -> int:
    """How many slow calls are running."""
    return IN_FLIGHT


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
