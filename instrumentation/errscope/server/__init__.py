"""Server adapters: ``errscope.instrument(server)`` for ``mcp`` (low-level ``Server``, ``MCPServer``)
and FastMCP 4 (``fastmcp.FastMCP``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from errscope._telemetry import ServerTelemetry
from errscope._upstream import instrument_httpx
from errscope.server._seam import ToolSeam

__all__ = ["instrument", "uninstrument"]


def _is_fastmcp(server: Any) -> bool:
    return any(klass.__module__.startswith("fastmcp") and klass.__name__ == "FastMCP" for klass in type(server).__mro__)


def instrument(
    server: Any,
    *,
    tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
    validate_arguments: bool = True,
    capture_httpx: bool = True,
    baggage_allowlist: Sequence[str] = (),
    capture_content: bool = False,
) -> Any:
    """Give ``server`` errscope's error architecture and telemetry, in place; returns ``server``.

    Args:
        server: an ``mcp.server.lowlevel.Server``, ``mcp.server.mcpserver.MCPServer`` or ``fastmcp.FastMCP``.
        tracer_provider: defaults to the global provider (the application configures the SDK).
        meter_provider: defaults to the global provider.
        validate_arguments: check arguments against each tool's ``inputSchema`` before it runs
            (SEP-1303: a violation is an ``isError`` result with a schema-derived hint).
        capture_httpx: instrument httpx so upstream HTTP calls become child CLIENT spans whose
            status lands on the tool span.
        baggage_allowlist: W3C baggage keys accepted from the caller; others are dropped.
        capture_content: record tool arguments and results on the span (scrubbed, bounded);
            off by default (D11: content is opt-in).

    Raises:
        TypeError: ``server`` is none of the supported kinds.
    """
    telemetry = ServerTelemetry(
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
        baggage_allowlist=baggage_allowlist,
        capture_content=capture_content,
    )
    seam = ToolSeam(validate_arguments=validate_arguments)
    if _is_fastmcp(server):
        from errscope.server._fastmcp import instrument_fastmcp

        instrument_fastmcp(server, telemetry, seam)
    else:
        from mcp.server.lowlevel.server import Server
        from mcp.server.mcpserver import MCPServer

        if not isinstance(server, Server | MCPServer):
            raise TypeError(f"errscope.instrument() takes an mcp Server, MCPServer or FastMCP app, not {type(server).__name__}")
        from errscope.server._mcp import instrument_mcp

        instrument_mcp(server, telemetry, seam)
    if capture_httpx:
        instrument_httpx(tracer_provider=tracer_provider, meter_provider=meter_provider)
    return server


def uninstrument(server: Any) -> None:
    """Remove errscope from ``server`` and restore the framework's own telemetry."""
    if _is_fastmcp(server):
        from errscope.server._fastmcp import uninstrument_fastmcp

        uninstrument_fastmcp(server)
    else:
        from errscope.server._mcp import uninstrument_mcp

        uninstrument_mcp(server)
    logging.getLogger(__name__).debug("errscope removed from %s", type(server).__name__)
