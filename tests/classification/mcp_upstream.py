"""A plain MCP server (no errscope) that a tool's downstream ``mcp.Client`` talks to in the corpus.

``python -m tests.classification.mcp_upstream stdio|http [PORT] [--crash-on-start]``. Tools:
``echo``; ``stall`` sleeps far past any client timeout; ``crash`` kills the process mid-call.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer


def build() -> MCPServer:
    server = MCPServer("corpus-upstream")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    @server.tool()
    async def stall() -> str:
        await anyio.sleep(60)
        return "late"

    @server.tool()
    async def crash() -> str:
        os._exit(3)  # the process dies with the request in flight

    return server


def main() -> None:
    if "--crash-on-start" in sys.argv:
        sys.exit(3)
    server = build()
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        import uvicorn

        uvicorn.run(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=int(sys.argv[2]),
                    log_level="warning")


if __name__ == "__main__":
    main()
