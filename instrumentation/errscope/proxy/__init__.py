"""``errscope proxy``: the error architecture in front of an MCP server errscope cannot instrument.

Three arrangements (README, "Servers you don't own"):

- stdio to stdio: the host runs the proxy as its server command, the proxy runs the real server;
- streamable HTTP to streamable HTTP: ``--listen`` in front of ``--upstream``;
- stdio to streamable HTTP: a local stdio host in front of a remote server.

Every JSON-RPC message is relayed in both directions, in order, with its id; only the answers to
``tools/call`` change (see :mod:`errscope.proxy._calls`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from urllib.parse import urlsplit

from errscope._scrubbing import scrub
from errscope._telemetry import ServerTelemetry
from errscope.proxy._calls import Calls
from errscope.proxy._http import HttpRelay
from errscope.proxy._stdio import ChildServer, HttpServer, serve_stdio

__all__ = ["HttpRelay", "serve_http", "serve_stdio_to_http", "serve_stdio_to_stdio"]


async def serve_stdio_to_stdio(command: Sequence[str], telemetry: ServerTelemetry | None = None) -> None:
    """Relay this process's stdio to a child running ``command`` until stdin closes."""
    await serve_stdio(ChildServer(list(command)), Calls(telemetry or ServerTelemetry(), transport="pipe"))


async def serve_stdio_to_http(upstream: str, telemetry: ServerTelemetry | None = None) -> None:
    """Relay this process's stdio to the streamable HTTP server at ``upstream`` until stdin closes."""
    calls = Calls(telemetry or ServerTelemetry(), transport="pipe", upstream_address=HttpRelay.address(upstream))
    await serve_stdio(HttpServer(upstream), calls)


async def serve_http(
    upstream: str, host: str, port: int, telemetry: ServerTelemetry | None = None, *, ready: asyncio.Event | None = None
) -> None:
    """Serve streamable HTTP on ``host:port`` in front of ``upstream`` until cancelled.

    The bound address is logged on ``errscope.proxy`` (``port`` 0 picks a free one).
    """
    calls = Calls(telemetry or ServerTelemetry(), transport="tcp", upstream_address=HttpRelay.address(upstream))
    relay = HttpRelay(upstream, calls)
    server = await relay.serve(host, port)
    bound = server.sockets[0].getsockname()
    # The upstream's userinfo and secret query parameters stay out of the host's log.
    # The address a host connects to: the relay keeps each request's path, so the upstream's path is the endpoint.
    path = urlsplit(upstream).path or "/"
    host = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    logging.getLogger("errscope.proxy").warning("listening on http://%s:%d%s, relaying to %s", host, bound[1], path, scrub(upstream))
    if ready is not None:
        ready.set()
    try:
        await server.serve_forever()
    finally:
        server.close()
        relay.close()
        calls.abandon_all()  # calls in flight when the proxy stops are recorded, not lost
        calls.flush()  # the telemetry of the calls answered last
