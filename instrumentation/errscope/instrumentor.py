"""Zero-code instrumentation: ``opentelemetry-instrument python server.py`` gives errscope's spans,
metrics and logs without touching the server's code.

:class:`MCPInstrumentor` follows the OpenTelemetry contrib instrumentors (``BaseInstrumentor``,
registered under the ``opentelemetry_instrumentor`` entry point as ``errscope``):

- after :meth:`~MCPInstrumentor.instrument`, every ``mcp`` ``MCPServer``, low-level ``Server`` and
  ``fastmcp.FastMCP`` constructed is given :func:`errscope.instrument` (one server span, one metric
  point and one failure log per request, errors shaped and scrubbed), and every ``mcp.Client``'s
  ``call_tool`` records one errscope CLIENT span and ``mcp.client.operation.duration`` point with
  channel and class (the result the caller receives is unchanged);
- the SDK's own ``MCP send tools/call`` CLIENT span is left out of those calls (errscope's span is
  the one client span, and the trace context sent in ``params._meta`` is its), as the server side
  replaces the SDK's ``OpenTelemetryMiddleware``;
- :meth:`~MCPInstrumentor.uninstrument` restores the constructors and ``call_tool`` and removes
  errscope from the servers it instrumented;
- instrumenting twice is a no-op (``BaseInstrumentor`` warns); inside
  ``opentelemetry.instrumentation.utils.suppress_instrumentation()`` no errscope span is recorded.

Keyword arguments of ``instrument()``: ``tracer_provider``, ``meter_provider`` (the global ones by
default) and any other :func:`errscope.instrument` option (``validate_arguments``, ``capture_content``...).
"""

from __future__ import annotations

import contextlib
import functools
import time
import weakref
from collections.abc import Collection
from contextvars import ContextVar
from typing import Any, Final

from opentelemetry.instrumentation.instrumentor import BaseInstrumentor  # type: ignore[attr-defined]
from opentelemetry import trace
from opentelemetry.instrumentation.utils import is_instrumentation_enabled
from opentelemetry.trace import StatusCode

from errscope import _attributes as attr
from errscope._classify import class_for_jsonrpc_code
from errscope._messages import safe_name
from errscope._vocabulary import Channel, FailureClass, Outcome

__all__ = ["MCPInstrumentor"]

_INSTRUMENTS: Final = ("mcp >= 2.3, < 3",)
"""What ``instrumentation_dependencies()`` declares; FastMCP is instrumented when it is installed."""

# Only the outermost constructor instruments: MCPServer and FastMCP build a low-level Server inside.
_constructing: ContextVar[int] = ContextVar("errscope_constructing", default=0)
# Set while errscope's CLIENT span is current: the SDK's dispatcher then opens no span of its own for the call.
_client_span_open: ContextVar[bool] = ContextVar("errscope_client_span_open", default=False)


def _server_classes() -> list[type]:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

    classes: list[type] = [MCPServer, Server]
    try:
        from fastmcp import FastMCP
    except ImportError:
        return classes
    return [*classes, FastMCP]


class MCPInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """An OpenTelemetry instrumentor for MCP servers and clients built with ``mcp`` or FastMCP."""

    def instrumentation_dependencies(self) -> Collection[str]:
        return _INSTRUMENTS

    def _instrument(self, **kwargs: Any) -> None:
        from mcp import Client
        from mcp.shared import jsonrpc_dispatcher

        from errscope.server import instrument

        # Set here, not in __init__: BaseInstrumentor is a singleton, and MCPInstrumentor() runs __init__ again.
        self._originals: dict[type, Any] = {}
        self._servers: weakref.WeakSet[Any] = weakref.WeakSet()
        for klass in _server_classes():
            self._originals[klass] = klass.__dict__.get("__init__")  # None: inherited, restored by deleting ours
            klass.__init__ = self._wrap_init(klass.__init__, instrument, kwargs)  # type: ignore[misc]
        self._originals[Client] = Client.__dict__["call_tool"]
        Client.call_tool = _traced_call_tool(Client.__dict__["call_tool"], kwargs)  # type: ignore[method-assign]
        self._sdk_otel_span = jsonrpc_dispatcher.otel_span
        jsonrpc_dispatcher.otel_span = _without_sdk_tool_span(self._sdk_otel_span)

    def _wrap_init(self, original: Any, instrument: Any, options: dict[str, Any]) -> Any:
        servers = self._servers

        @functools.wraps(original)
        def __init__(server: Any, *args: Any, **kwargs: Any) -> None:
            depth = _constructing.get()
            token = _constructing.set(depth + 1)
            try:
                original(server, *args, **kwargs)
            finally:
                _constructing.reset(token)
            if depth == 0:
                instrument(server, **options)
                servers.add(server)

        return __init__

    def _uninstrument(self, **kwargs: Any) -> None:
        from mcp import Client
        from mcp.shared import jsonrpc_dispatcher

        from errscope.server import uninstrument

        for klass, original in self._originals.items():
            name = "call_tool" if klass is Client else "__init__"
            if original is None:
                delattr(klass, name)
            else:
                setattr(klass, name, original)
        self._originals.clear()
        jsonrpc_dispatcher.otel_span = self._sdk_otel_span
        for server in list(self._servers):
            uninstrument(server)


def _traced_call_tool(original: Any, options: dict[str, Any]) -> Any:
    from mcp.shared.exceptions import MCPError

    from errscope.client._telemetry import ClientTelemetry

    telemetry = ClientTelemetry(tracer_provider=options.get("tracer_provider"), meter_provider=options.get("meter_provider"))

    @functools.wraps(original)
    async def call_tool(client: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        if not is_instrumentation_enabled():
            return await original(client, name, *args, **kwargs)
        tool = safe_name(name)
        attributes: dict[str, Any] = {
            attr.MCP_METHOD_NAME: "tools/call",
            attr.GEN_AI_OPERATION_NAME: attr.EXECUTE_TOOL,
            attr.GEN_AI_TOOL_NAME: tool,
        }
        span = telemetry.start_span(f"tools/call {tool}", attributes=attributes)
        started = time.perf_counter()
        token = _client_span_open.set(True)
        try:
            with trace.use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
                result = await original(client, name, *args, **kwargs)
        except MCPError as exc:
            _fail(attributes, Channel.PROTOCOL, _protocol_class(exc, name), code=exc.code)
            raise
        except BaseException:
            attributes[attr.ERRSCOPE_OUTCOME] = Outcome.ERROR.value
            attributes[attr.ERROR_TYPE] = "_OTHER"
            raise
        else:
            if getattr(result, "is_error", False):
                _fail(attributes, Channel.EXECUTION, _result_class(result, name))
            return result
        finally:
            _client_span_open.reset(token)
            attributes.setdefault(attr.ERRSCOPE_OUTCOME, Outcome.OK.value)
            span.set_attributes(attributes)
            if attributes[attr.ERRSCOPE_OUTCOME] != Outcome.OK.value:
                span.set_status(StatusCode.ERROR, attributes.get(attr.ERRSCOPE_FAILURE_CLASS, "error"))
            span.end()
            telemetry.record_duration(time.perf_counter() - started, attributes)

    call_tool.__errscope__ = True  # type: ignore[attr-defined]
    return call_tool


def _without_sdk_tool_span(otel_span: Any) -> Any:
    """The SDK dispatcher's ``otel_span``, opening nothing for a ``tools/call`` errscope already spans.

    The dispatcher injects the current context into ``params._meta`` inside that span: with none
    opened, errscope's CLIENT span is what the server continues.
    """

    @functools.wraps(otel_span)
    def span(name: str, **kwargs: Any) -> Any:
        attributes = kwargs.get("attributes") or {}
        if _client_span_open.get() and attributes.get(attr.MCP_METHOD_NAME) == "tools/call":
            return contextlib.nullcontext(trace.INVALID_SPAN)
        return otel_span(name, **kwargs)

    return span


def _fail(attributes: dict[str, Any], channel: Channel, failure_class: FailureClass, *, code: int | None = None) -> None:
    attributes[attr.ERRSCOPE_OUTCOME] = Outcome.ERROR.value
    attributes[attr.ERRSCOPE_CHANNEL] = channel.value
    attributes[attr.ERRSCOPE_FAILURE_CLASS] = failure_class.value
    attributes[attr.ERROR_TYPE] = str(code) if code is not None else attr.TOOL_ERROR
    if code is not None:
        attributes[attr.RPC_RESPONSE_STATUS_CODE] = str(code)


def _protocol_class(exc: Any, tool: str) -> FailureClass:
    # What an errscope peer declared in the error's data, else the client's reading of the message, else the code.
    from errscope.client import _answer as answer

    data = exc.data if isinstance(exc.data, dict) else {}
    declared = answer.declared_class(data)
    if declared is not None:
        return declared
    reading = answer.read_text(exc.message or "", tool)
    if reading.unknown_tool or reading.arguments_rejected:
        return reading.failure_class
    return class_for_jsonrpc_code(exc.code)


def _result_class(result: Any, tool: str) -> FailureClass:
    # The client's rules for an isError result (ToolClient reads the same answer the same way).
    from errscope.client import _answer as answer

    declared = answer.declared_class(result.meta or {})
    if declared is not None:
        return declared
    return answer.read_text(answer.text_of(result.content, result.structured_content), tool).failure_class
