"""One catalogue of test tools, served in every server style (low-level Server, MCPServer, FastMCP).

The tools reproduce the public cases (../shared/cases/public-cases.md): each raises what a real
tool raises in that case. Secrets in them are fake (they contain FAKE).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Annotated, Any

import anyio
import httpx
from opentelemetry import baggage
from mcp_types import CallToolResult, TextContent
from pydantic import Field

import errscope

DSN = "postgresql://svc:FAKE-PG-PASS-123@db.internal.example:5432/orders"

IN_FLIGHT = {"count": 0, "released": 0}
"""Calls of ``export_report`` currently holding the fake lock, and how many released it."""


class OperationalError(Exception):
    """A DB-API (PEP 249) OperationalError, as a driver would define it."""

    __module__ = "fakedriver.errors"


class IntegrityError(Exception):
    """A DB-API (PEP 249) IntegrityError."""

    __module__ = "fakedriver.errors"


async def get_order(order_id: str) -> str:
    """Fetch an order by id."""
    if order_id == "A-100":  # D06
        raise OperationalError(
            f'connection to {DSN} failed: FATAL: password authentication failed for user "svc" (10.0.0.5)'
        )
    if order_id == "A-1":
        return "order A-1: 2 items, 40.00 EUR"
    raise errscope.NotFound(f"no order {order_id} in table orders")


async def list_orders() -> str:
    """List recent orders."""
    return "A-1"


async def read_registry_key(path: str) -> str:
    """Read a registry key (D03)."""
    raise PermissionError("[WinError 5] Access is denied")


async def update_customer(customer_id: str, email: str, ssn: str) -> str:
    """Update a customer record (D09)."""
    raise IntegrityError(f"duplicate key value violates unique constraint\nDETAIL:  Key (email)=({email}) already exists.")


async def send_email(to: str, body: str, api_token: str) -> str:
    """Send an email (D11)."""
    if "fail" in to:
        raise errscope.UpstreamUnavailable(f"smtp relay refused token {api_token}")
    return f"queued for {to}"


async def schedule_meeting(
    start: Annotated[datetime, Field(description="When the meeting starts")],
    duration_min: Annotated[int, Field(ge=1, le=480)],
) -> str:
    """Schedule a meeting (D16)."""
    return f"scheduled at {start.isoformat()} for {duration_min} min"


async def leak(text: str) -> str:
    """Fail with ``text`` as the exception message (the corpus goes through here)."""
    raise RuntimeError(text)


async def big_failure(size: int) -> str:
    """Fail with an exception message of ``size`` characters."""
    raise RuntimeError("x" * size)


async def export_report(seconds: float) -> str:
    """Hold a fake lock for ``seconds`` (D12); counts in-flight calls."""
    IN_FLIGHT["count"] += 1
    print(f"[export_report] start in_flight={IN_FLIGHT['count']}", file=sys.stderr, flush=True)
    try:
        await anyio.sleep(seconds)
        return "report ready"
    finally:
        IN_FLIGHT["count"] -= 1
        IN_FLIGHT["released"] += 1
        print(f"[export_report] released in_flight={IN_FLIGHT['count']}", file=sys.stderr, flush=True)


async def in_flight() -> str:
    """Report how many export_report calls hold the lock."""
    return f"{IN_FLIGHT['count']}"


async def explicit_failure(text: str) -> CallToolResult:
    """Return an isError result built by the tool itself."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


async def fetch_url(url: str) -> str:
    """GET a URL through httpx; HTTP errors are raised (and classified by status)."""
    async with httpx.AsyncClient() as client:
        response = await client.get(url, timeout=5)
        response.raise_for_status()
        return response.text


async def ledger_down() -> str:
    """A non-HTTP upstream: the database terminates the connection (SQLSTATE 57P01)."""
    errscope.record_upstream("postgresql", "57P01", "svc:FAKE-PW@ledger-db.internal:5432/ledger?sslmode=require")
    error = OperationalError("terminating connection due to administrator command")
    error.sqlstate = "57P01"  # type: ignore[attr-defined]
    raise error


async def baggage_seen() -> str:
    """Report the W3C baggage the tool runs with (to test the allow-list)."""
    return json.dumps(dict(baggage.get_all()), sort_keys=True)


TOOLS = [
    get_order,
    list_orders,
    read_registry_key,
    update_customer,
    send_email,
    schedule_meeting,
    leak,
    big_failure,
    export_report,
    in_flight,
    explicit_failure,
    fetch_url,
    ledger_down,
    baggage_seen,
]


def build_mcpserver(name: str = "catalogue") -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name)
    for tool in TOOLS:
        server.add_tool(tool)
    return server


def build_lowlevel(name: str = "catalogue") -> Any:
    """A low-level server whose handlers dispatch by name; it declares the same schemas, validates nothing."""
    from mcp.server.lowlevel.server import Server
    from mcp_types import ListToolsResult

    reference = build_mcpserver(name)
    functions = {tool.__name__: tool for tool in TOOLS}

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        # Same input schemas; no output schemas, since these handlers return text content only.
        tools = [tool.model_copy(update={"output_schema": None}) for tool in await reference.list_tools()]
        return ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        function = functions.get(params.name)
        if function is None:
            raise ValueError(f"Unknown tool: {params.name}")
        arguments = dict(params.arguments or {})
        if "start" in arguments and isinstance(arguments["start"], str):
            arguments["start"] = datetime.fromisoformat(arguments["start"])
        result = await function(**arguments)
        if isinstance(result, CallToolResult):
            return result
        return CallToolResult(content=[TextContent(type="text", text=str(result))])

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


def build_fastmcp(name: str = "catalogue") -> Any:
    from fastmcp import FastMCP

    app = FastMCP(name)
    for tool in TOOLS:
        app.tool(tool)
    return app


BUILDERS = {"lowlevel": build_lowlevel, "mcpserver": build_mcpserver, "fastmcp": build_fastmcp}
