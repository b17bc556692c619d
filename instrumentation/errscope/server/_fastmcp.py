"""Adapter for FastMCP 4 (``fastmcp.FastMCP``), with the guarantees of the ``mcp`` adapter.

FastMCP runs on the ``mcp`` SDK's low-level server (reference/mcp-sdk-2.3.md §6), so the same
:class:`~errscope.server._mcp.ErrscopeMiddleware` heads its ``_mcp_server.middleware`` chain: one
span, one metric point, cancellation, no ``str(e)`` anywhere. FastMCP's own spans are switched off
(``fastmcp.settings.telemetry_mode = "off"``, process-wide): they would double every span and put
``str(e)`` and the chained stack trace into status and events even with ``mask_error_details``.
The seam is a FastMCP middleware, innermost, whose ``on_call_tool`` sees the tool's exception as
the ``__cause__`` of FastMCP's ``ToolError``.

Stance on FastMCP's built-in middlewares (detected at instrument time, with a warning):
``ErrorHandlingMiddleware`` turns execution errors into protocol errors (-32603 with ``str(e)``),
crossing the channels; ``RetryMiddleware`` re-runs tools server-side whatever their
``idempotentHint``. errscope does not remove them, since that would silently change a server's
behaviour, but says what they break; drop them to keep errscope's guarantees.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any, Final

import fastmcp
import pydantic
from fastmcp import exceptions as fastmcp_exceptions
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from errscope._call import ToolCall, current_call
from errscope._classify import Classification, argument_problems, package_of, raised_in, register, tool_error_text
from errscope._tables import Table, expiring_table
from errscope._telemetry import ServerTelemetry
from errscope._vocabulary import FailureClass
from errscope.server._declare import declared
from errscope.server._mcp import ErrscopeMiddleware, _answer_malformed_frames
from errscope.server._seam import ToolInfo, ToolSeam, idempotent_hint

__all__ = ["ErrscopeToolMiddleware", "instrument_fastmcp", "uninstrument_fastmcp"]

_log = logging.getLogger("errscope")

_CHANNEL_CROSSING = ("ErrorHandlingMiddleware", "RetryMiddleware")
SCHEMA_TTL: Final = 1.0
"""Seconds a tool's looked-up schema is reused."""
_CACHE_LIMIT: Final = 1024


def _fastmcp_arguments_rejected(exc: BaseException) -> Classification:
    # FastMCP raises its ValidationError from the pydantic error of the arguments (FunctionTool._run):
    # its argument-validation seam, the one place a pydantic error is the caller's.
    if isinstance(exc.__cause__, pydantic.ValidationError):
        return argument_problems(exc.__cause__)
    return Classification(FailureClass.INVALID_INPUT)


# FastMCP wraps a tool's exception in ToolError(... ) from exc; a bare ToolError is the author's text.
register(fastmcp_exceptions.ToolError, tool_error_text)
register(fastmcp_exceptions.NotFoundError, FailureClass.NOT_FOUND)
register(fastmcp_exceptions.AuthorizationError, FailureClass.PERMISSION_DENIED)
register(fastmcp_exceptions.ValidationError, _fastmcp_arguments_rejected)


def _as_tool_result(result: CallToolResult) -> ToolResult:
    return ToolResult(
        content=list(result.content),
        structured_content=result.structured_content,
        meta=result.meta,
        is_error=result.is_error,
    )


class ErrscopeToolMiddleware(Middleware):
    """FastMCP middleware: routes every ``tools/call`` through errscope's seam.

    Tool schemas are looked up through ``FastMCP.get_tool`` (providers, transforms, visibility) and
    kept for :data:`SCHEMA_TTL` seconds: the lookup costs about as much as the call it guards. A
    miss is never kept: ``get_tool`` answers per session and per user.
    FastMCP still resolves the tool itself; if it no longer exists, its ``NotFoundError`` is
    answered as the unknown-tool protocol error.
    """

    def __init__(self, seam: ToolSeam) -> None:
        self.seam = seam
        self._schemas = expiring_table(Table.TOOL_SCHEMAS, maxsize=_CACHE_LIMIT, ttl=SCHEMA_TTL)

    async def _lookup(self, context: MiddlewareContext[Any], name: str) -> ToolInfo | None:
        cached: ToolInfo | None = self._schemas.get(name)
        if cached is not None:
            return cached
        server = context.fastmcp_context.fastmcp if context.fastmcp_context is not None else None
        tool = await server.get_tool(name) if server is not None else None
        if tool is None:
            # Not cached: FastMCP answers per session and per user (visibility, auth), so one
            # caller's "no such tool" is not another's. A found tool is re-resolved by FastMCP.
            return None
        info = ToolInfo(name, tool.parameters, idempotent_hint(tool.annotations), tool.output_schema,
                        package_of(getattr(tool, "fn", None)))
        self._schemas[name] = info
        return info

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        name = context.message.name
        call = current_call() or ToolCall(tool=name)
        info = await self._lookup(context, name)
        call.known = info is not None

        async def invoke() -> Any:
            try:
                return await call_next(context)
            except fastmcp_exceptions.NotFoundError as exc:
                if str(exc).startswith("Unknown tool"):  # gone since the schema was cached
                    self._schemas.pop(name, None)
                    raise self.seam.unknown_tool(call, name) from None
                raise
            except fastmcp_exceptions.ToolError as exc:
                if isinstance(exc.__cause__, MCPError) and raised_in(exc, "fastmcp"):
                    # FastMCP wraps every exception a tool raises in its ToolError, an MCPError too; the
                    # seam's rule decides instead (a tool's own MCPError keeps the protocol channel, e.g.
                    # -32042 URL elicitation: python-sdk #1768 / PR #1780, MCP 2025-11-25 Elicitation).
                    raise exc.__cause__ from None
                raise

        result = await self.seam.run(call, name, info, context.message.arguments, invoke)
        return _as_tool_result(result) if isinstance(result, CallToolResult) else result

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        """Declare the tools that honour errscope idempotency keys (``errscope.server._declare``)."""
        return [declared(tool, getattr(tool, "fn", None)) for tool in await call_next(context)]


_instrumented: weakref.WeakSet[Any] = weakref.WeakSet()
"""FastMCP apps errscope serves: the process-wide telemetry switch stays off while any remains."""
_mode_before: str | None = None
"""``fastmcp.settings.telemetry_mode`` as it was before errscope first switched it off."""


def _switch_native_telemetry_off(app: Any) -> None:
    global _mode_before
    if _mode_before is None:
        _mode_before = fastmcp.settings.telemetry_mode
    _instrumented.add(app)
    fastmcp.settings.telemetry_mode = "off"


def _restore_native_telemetry(app: Any) -> None:
    # The switch is process-wide: only the last app errscope serves may turn it back.
    global _mode_before
    if app not in _instrumented:
        return
    _instrumented.discard(app)
    if not _instrumented and _mode_before is not None:
        fastmcp.settings.telemetry_mode = _mode_before
        _mode_before = None


def instrument_fastmcp(app: Any, telemetry: ServerTelemetry, seam: ToolSeam) -> None:
    """Install errscope on a FastMCP app in place (idempotent)."""
    _switch_native_telemetry_off(app)
    lowlevel = app._mcp_server
    chain = lowlevel.middleware
    chain[:] = [m for m in chain if not isinstance(m, OpenTelemetryMiddleware | ErrscopeMiddleware)]
    chain.insert(0, ErrscopeMiddleware(telemetry))
    _answer_malformed_frames(lowlevel)
    app.middleware[:] = [m for m in app.middleware if not isinstance(m, ErrscopeToolMiddleware)]
    app.middleware.append(ErrscopeToolMiddleware(seam))
    for middleware in app.middleware:
        _warn_if_crossing(app, middleware)

    def add_middleware(middleware: Any) -> None:
        # errscope's seam stays the innermost middleware: one added after instrument() would otherwise sit between it
        # and the tool, and see (and re-run, or rewrite) the tool's own exception (RetryMiddleware ran a tool that
        # declares nothing once per retry).
        seams = [i for i, m in enumerate(app.middleware) if isinstance(m, ErrscopeToolMiddleware)]
        app.middleware.insert(seams[0] if seams else len(app.middleware), middleware)
        _warn_if_crossing(app, middleware)

    app.add_middleware = add_middleware


def _warn_if_crossing(app: Any, middleware: Any) -> None:
    if type(middleware).__name__ in _CHANNEL_CROSSING:
        _log.warning(
            "FastMCP %s undoes errscope's guarantees (it %s); remove it from %r",
            type(middleware).__name__,
            "turns tool errors into JSON-RPC errors carrying str(e)"
            if type(middleware).__name__ == "ErrorHandlingMiddleware"
            else "re-runs tools server-side regardless of idempotentHint",
            app.name,
        )


def uninstrument_fastmcp(app: Any) -> None:
    """Remove errscope from a FastMCP app; FastMCP's own telemetry mode returns with the last app."""
    app.middleware[:] = [m for m in app.middleware if not isinstance(m, ErrscopeToolMiddleware)]
    app.__dict__.pop("add_middleware", None)
    lowlevel = app._mcp_server
    lowlevel.middleware[:] = [m for m in lowlevel.middleware if not isinstance(m, ErrscopeMiddleware)]
    lowlevel.__dict__.pop("run", None)
    _restore_native_telemetry(app)
