"""An errscope-instrumented server whose tools fail deep inside real libraries, for the on-call walk through hops.

Run: ``python -m tests.oncall.deep_server STYLE UPSTREAM_URL OUT_DIR [PORT]`` (``STYLE`` ``mcpserver`` or ``fastmcp``;
stdio, or streamable HTTP on ``127.0.0.1:PORT/mcp`` when a port is given).
Telemetry goes to OTLP-JSON files in ``OUT_DIR``. Every tool calls ``UPSTREAM_URL`` (a real HTTP listener answering
``/status/<code>``) with httpx and lets the failure out inside a wrapper real code puts around it:

- ``sync_ledger``: two requests in an anyio task group, one answered 503: an ``ExceptionGroup``, re-raised by the tool
  as its own ``RuntimeError`` ``from`` the group;
- ``get_rates``: tenacity retrying a 429 twice, then its ``RetryError`` (the last attempt only in its future);
- ``charge``: an ``asyncio.TaskGroup`` whose one task got a 404, handled by an ``except*`` that raises
  ``LookupError`` (the group only in ``__context__``).
"""

from __future__ import annotations

import asyncio
import sys

import anyio
import httpx
import tenacity

import errscope
from errscope._setup import configure_telemetry

UPSTREAM = ""
"""The upstream's base URL (``main`` sets it from the command line)."""
SECRET = "sk_live_FAKEdeepServer00000000000000"
"""Not a credential: planted in the tools' own messages; tests assert it reaches neither the host nor telemetry."""


async def _get(http: httpx.AsyncClient, path: str) -> str:
    response = await http.get(path)
    response.raise_for_status()
    return response.text


async def sync_ledger() -> str:
    """Sync the ledger from its two shards."""
    try:
        async with httpx.AsyncClient(base_url=UPSTREAM) as http, anyio.create_task_group() as group:
            group.start_soon(_get, http, "/status/200")
            group.start_soon(_get, http, "/status/503")
    except BaseExceptionGroup as failed:
        raise RuntimeError(f"ledger sync failed (key {SECRET})") from failed
    return "synced"


async def get_rates() -> str:
    """Today's exchange rates."""

    @tenacity.retry(stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_fixed(0.05))
    async def fetch() -> str:
        async with httpx.AsyncClient(base_url=UPSTREAM) as http:
            return await _get(http, "/status/429")

    return await fetch()


async def charge(order_id: str) -> str:
    """Charge an order."""
    try:
        async with httpx.AsyncClient(base_url=UPSTREAM) as http, asyncio.TaskGroup() as group:
            group.create_task(_get(http, "/status/404"))
    except* httpx.HTTPStatusError:
        raise LookupError(f"order {order_id} has no payment (key {SECRET})")
    return "charged"


TOOLS = (sync_ledger, get_rates, charge)


def _server(style: str) -> object:
    if style == "fastmcp":
        from fastmcp import FastMCP

        app = FastMCP("deep")
        for tool in TOOLS:
            app.tool(tool)
        return app
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("deep")
    for tool in TOOLS:
        server.tool()(tool)
    return server


def main() -> None:
    global UPSTREAM
    style, UPSTREAM, out = sys.argv[1], sys.argv[2], sys.argv[3]
    server = _server(style)
    telemetry = configure_telemetry(f"deep-{style}", output_dir=out)
    errscope.instrument(server, **telemetry.providers)
    try:
        if len(sys.argv) == 4:
            server.run("stdio")  # type: ignore[attr-defined]
        else:
            import uvicorn

            app = server.http_app(path="/mcp") if style == "fastmcp" else server.streamable_http_app(host="127.0.0.1")  # type: ignore[attr-defined]
            uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[4]), log_level="warning", timeout_graceful_shutdown=1)
    finally:
        telemetry.shutdown()


if __name__ == "__main__":
    main()
