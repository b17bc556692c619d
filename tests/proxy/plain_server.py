"""A plain Python ``MCPServer`` without errscope, with tools that fail each way.

``python -m tests.proxy.plain_server stdio`` or ``... http PORT``. ``SECRET`` is planted in the
failure texts: it must reach neither the host nor any telemetry through the proxy.
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

SECRET = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
"""A Stripe-shaped live key: the scrubber's pattern source must catch it wherever it appears."""

server = MCPServer("plain")


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


@server.tool()
def pid() -> int:
    """The server's process id (tests kill it)."""
    return os.getpid()


@server.tool()
def slow(seconds: float) -> str:
    """Sleep, then answer; a line in ``$PLAIN_SERVER_STARTED`` says the call is running (tests wait for it)."""
    if started := os.environ.get("PLAIN_SERVER_STARTED"):
        with open(started, "a") as log:
            log.write("started\n")
    time.sleep(seconds)
    return "done"


@server.tool()
def read_note(name: str) -> str:
    """Read a note from the notes folder (none exists: the OS's FileNotFoundError names the path, and the tool passes
    its words on, as a ``ToolError``: MCPServer masks any other exception)."""
    try:
        with open(f"/srv/errscope-notes/{name}.txt") as note:
            return note.read()
    except OSError as exc:
        raise ToolError(f"cannot read note: {exc}") from exc


@server.tool()
def crash() -> str:
    """A bug: the SDK puts the exception text, secret and all, into an isError result."""
    raise RuntimeError(f"db connect failed for postgres://admin:{SECRET}@10.0.0.5:5432/orders\n  File \"/srv/app.py\", line 3")


@server.tool()
def forbidden() -> str:
    """An upstream said 403."""
    raise ToolError(f"GitHub API 403 Forbidden: token {SECRET} lacks repo:write")


@server.tool()
def rate_limited() -> CallToolResult:
    """A result the tool built itself, with isError."""
    return CallToolResult(content=[TextContent(type="text", text="429 Too Many Requests, retry after 30s")], is_error=True)


@server.tool()
def refused() -> str:
    """A protocol-channel error with the secret in its message and data."""
    raise MCPError(-32050, f"backend refused: api_key={SECRET}", data={"trace": f"at handler (/srv/x.js:1:2) {SECRET}"})


@server.resource("notes://{name}")
def note(name: str) -> str:
    """A note from the notes database: its driver's words pass on as a ``ResourceError`` (MCPServer masks any other
    exception), which MCPServer sends as the message of a JSON-RPC -32603."""
    raise ResourceError(f"cannot read note {name}: connection to postgres://notes:{SECRET}@10.0.0.7:5432/notes refused")


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        import uvicorn

        uvicorn.run(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
