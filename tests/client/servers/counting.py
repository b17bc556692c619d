"""A server errscope did not instrument, counting every tool invocation in a file of its own.

Run: ``counting.py stdio mcp|fastmcp COUNTER`` or ``counting.py http PORT mcp|fastmcp COUNTER``.
``mcp`` is a plain ``MCPServer`` (mcp SDK); ``fastmcp`` is FastMCP 4 with its
``ErrorHandlingMiddleware`` (which turns tool exceptions into JSON-RPC errors: -32603, or -32000 for a
``TimeoutError``).

Every tool first appends one line (``{"tool", "id"}``) to COUNTER: that is the side effect, counted
by the server, never by the client. Then it does what ``fail`` says while this ``id`` has been seen
at most ``fail_times`` times (always when ``fail_times`` is 0), else returns ``"done <n>"``:

- ``""``: nothing;
- ``"raise:<text>"``: raise the framework's ``ToolError(text)`` (an ``isError`` result on mcp);
- ``"protocol:<code>:<text>"``: raise the SDK's ``MCPError(code, text)`` (a JSON-RPC error on mcp);
- ``"timeout:<text>"``: raise ``TimeoutError(text)``;
- ``"sleep:<seconds>"``: sleep, then answer;
- ``"exit"``: the process dies mid-call (``os._exit``).

Tools (same body, different annotations): ``send`` (none), ``send_hinted`` (idempotentHint),
``read_report`` (readOnlyHint), ``wipe`` (destructiveHint), ``wipe_idempotent`` (destructiveHint +
idempotentHint), ``send_not_idempotent`` (readOnlyHint false, idempotentHint false), and
``send_flipping`` (idempotentHint starts true; its first call flips it to false and sends
``notifications/tools/list_changed`` before failing).
"""

# No ``from __future__ import annotations``: the SDK resolves the ``Context`` annotation of
# ``send_flipping`` at registration time.
import json
import os
import sys
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError
from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations, ToolListChangedNotification

TRANSPORT, FLAVOUR, COUNTER = sys.argv[1], sys.argv[-2], sys.argv[-1]


def tool_error(text: str) -> Exception:
    if FLAVOUR == "fastmcp":
        from fastmcp.exceptions import ToolError
    else:
        from mcp.server.mcpserver.exceptions import ToolError
    return ToolError(text)


def record(tool: str, call_id: str) -> int:
    """Append this invocation; return how many times ``call_id`` has now been seen."""
    with open(COUNTER, "a", encoding="utf-8") as out:
        out.write(json.dumps({"tool": tool, "id": call_id}) + "\n")
        out.flush()
        os.fsync(out.fileno())
    with open(COUNTER, encoding="utf-8") as read:
        return sum(1 for line in read if json.loads(line)["id"] == call_id)


async def act(tool: str, call_id: str, fail: str, fail_times: int) -> str:
    seen = record(tool, call_id)
    if fail and (fail_times == 0 or seen <= fail_times):
        kind, _, rest = fail.partition(":")
        if kind == "raise":
            raise tool_error(rest)
        if kind == "protocol":
            code, _, text = rest.partition(":")
            raise MCPError(int(code), text)
        if kind == "timeout":
            raise TimeoutError(rest)
        if kind == "sleep":
            await anyio.sleep(float(rest))
        if kind == "exit":
            os._exit(3)
    return f"done {seen}"


ANNOTATIONS: dict[str, ToolAnnotations | None] = {
    "send": None,
    "send_hinted": ToolAnnotations(idempotentHint=True),
    "read_report": ToolAnnotations(readOnlyHint=True),
    "wipe": ToolAnnotations(destructiveHint=True),
    "wipe_idempotent": ToolAnnotations(destructiveHint=True, idempotentHint=True),
    "send_not_idempotent": ToolAnnotations(readOnlyHint=False, idempotentHint=False),
}


def tool_body(name: str) -> Any:
    async def body(id: str, fail: str = "", fail_times: int = 0) -> str:  # noqa: A002 - the wire's name
        return await act(name, id, fail, fail_times)

    body.__name__ = name
    body.__doc__ = f"Record one invocation ({name}), then fail or answer as asked."
    return body


def build_mcp() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("counting", log_level="WARNING")
    for name, annotations in ANNOTATIONS.items():
        server.add_tool(tool_body(name), name=name, annotations=annotations)

    async def send_flipping(id: str, ctx: Context, fail: str = "", fail_times: int = 0) -> str:  # noqa: A002
        """Record one invocation; the first one declares this tool not idempotent any more."""
        if record("send_flipping", id) == 1:
            server.remove_tool("send_flipping")
            server.add_tool(send_flipping, name="send_flipping", annotations=ToolAnnotations(idempotentHint=False))
            # On this call's stream, so it reaches the client before the failure on every transport (on
            # streamable HTTP an unrelated notification takes the GET stream, unordered with this answer).
            await ctx.request_context.session.send_notification(ToolListChangedNotification(), related_request_id=ctx.request_id)
        raise tool_error("mail relay answered 503 Service Unavailable")

    server.add_tool(send_flipping, name="send_flipping", annotations=ToolAnnotations(idempotentHint=True))
    return server


def build_fastmcp() -> Any:
    from fastmcp import FastMCP
    from fastmcp.server.middleware.error_handling import ErrorHandlingMiddleware

    server = FastMCP("counting")
    server.add_middleware(ErrorHandlingMiddleware())
    for name, annotations in ANNOTATIONS.items():
        server.tool(tool_body(name), name=name, annotations=annotations)
    return server


def main() -> None:
    server = build_mcp() if FLAVOUR == "mcp" else build_fastmcp()
    if TRANSPORT == "http":
        port = int(sys.argv[2])
        if FLAVOUR == "mcp":
            server.run("streamable-http", host="127.0.0.1", port=port)
        else:
            server.run(transport="http", host="127.0.0.1", port=port, path="/mcp", show_banner=False)
    elif FLAVOUR == "mcp":
        server.run("stdio")
    else:
        server.run(transport="stdio", show_banner=False)


if __name__ == "__main__":
    main()
