"""In-process harness: every server style, both protocol eras, real SDK client, in-memory telemetry."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

import errscope
from errscope.testing import CapturedTelemetry
from tests.servers.catalogue import BUILDERS

STYLES = ["lowlevel", "mcpserver", "fastmcp"]
ERAS = ["legacy", "2026-07-28"]


@dataclass
class Served:
    """An instrumented server, its captured telemetry, and a connected SDK client."""

    server: Any
    telemetry: CapturedTelemetry
    client: Client

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult | MCPError:
        """Call a tool; a JSON-RPC error comes back as the raised ``MCPError`` instead of raising."""
        try:
            return await self.client.call_tool(name, arguments or {})
        except MCPError as exc:
            return exc

    def span(self, request_id: str | None = None) -> Any:
        """The one tools/call span (of ``request_id`` when given)."""
        spans = [
            s
            for s in self.telemetry.spans()
            if s.attributes.get("mcp.method.name") == "tools/call"
            and (request_id is None or s.attributes.get("jsonrpc.request.id") == request_id)
        ]
        assert len(spans) == 1, [s.name for s in spans]
        return spans[0]


@pytest.fixture(params=STYLES)
def style(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def telemetry() -> Iterator[CapturedTelemetry]:
    with CapturedTelemetry.installed() as captured:
        yield captured


@pytest.fixture
async def served(style: str, era: str, telemetry: CapturedTelemetry, request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    options = getattr(request, "param", {}) or {}
    server = BUILDERS[style]()
    errscope.instrument(server, **telemetry.providers, **options)
    target = server._mcp_server if style == "fastmcp" else server  # FastMCP's own mcp-level Server
    async with Client(target, mode=era) as client:  # type: ignore[arg-type]
        yield Served(server, telemetry, client)
