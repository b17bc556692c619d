"""Adapter for the ``mcp`` SDK (>= 2.3): the low-level ``Server`` and ``MCPServer``, both protocol eras.

Two pieces (reference/mcp-sdk-2.3.md §1.2):

- :class:`ErrscopeMiddleware` replaces the SDK's ``OpenTelemetryMiddleware`` at the head of
  ``Server.middleware``: one SERVER span and one duration point per request, cancellation
  recorded, and no ``str(e)`` in span status or, on the legacy era's ``code: 0`` path, on the wire.
- the seam that sees the tool's exception: ``MCPServer.call_tool`` (the SDK turns every exception
  into ``isError`` before middleware runs), or the ``tools/call`` handler of a low-level server.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping
from typing import Any, Final

import anyio
import pydantic
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import UnexpectedToolError
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, CallToolRequestParams, ListToolsResult, PaginatedRequestParams
from mcp_types.methods import SPEC_CLIENT_METHODS
from opentelemetry import context, trace

from errscope import _attributes as attr
from errscope._call import ToolCall, bind_call, current_call, unbind_call
from errscope._classify import Classification, FieldProblem, argument_problems, classify, package_of
from errscope._messages import safe_name
from errscope._scrub_values import scrub_value
from errscope._scrubbing import scrub
from errscope._telemetry import OTHER, ServerTelemetry, content_attribute
from errscope._vocabulary import Channel, FailureClass, Outcome
from errscope.server._declare import declare_honoured_keys, undeclare_honoured_keys
from errscope.server._frames import AnswerMalformedFrames, apply_request_id_rule_on_stdio
from errscope.server._seam import InvalidResult, ToolInfo, ToolSeam, idempotent_hint, protocol_error

__all__ = ["ErrscopeMiddleware", "instrument_mcp", "uninstrument_mcp"]

_REFRESH_INTERVAL: Final = 1.0
"""Seconds between registry refreshes a miss may trigger (unknown names must not cost a list each)."""
_MAX_REQUEST_ID: Final = 128
"""Characters of a JSON-RPC request id recorded on the span and the log record."""
_MAX_PAGES: Final = 100
"""Pages of a low-level server's tools/list read per refresh (a cursor loop must end)."""
_UNKNOWN_NAME: Final = {"prompts/get": ("prompt", "name"), "resources/read": ("resource", "uri")}
"""Methods whose not-found answer is -32602, with the word and the param naming what was asked for."""
_OUTPUT_CHECK: Final = FuncMetadata.convert_result.__code__
"""MCPServer's check of a tool's return value against its output model."""


@dataclasses.dataclass
class _InFlight:
    """A ``tools/call`` being served on a connection, and its outcome once it has one; ``done`` is made only when
    the same id arrives again (the success path of every call makes no event)."""

    done: anyio.Event | None = None
    result: HandlerResult = None
    error: BaseException | None = None


class ErrscopeMiddleware:
    """Server middleware: one span, one metric point and, on failure, one log record per request.

    A ``tools/call`` whose id is the id of one still running on the same connection is the same request sent again
    (a host or an HTTP layer re-sending it after a reconnect or its own timeout; MCP 2025-11-25, Basic > Requests: an id
    "MUST NOT have been previously used by the requestor within the same session"): it is answered with that
    request's outcome once it has one, and the tool does not run twice. An id reused after its request ended is a new
    request (hosts that number every request 1 exist).
    """

    def __init__(self, telemetry: ServerTelemetry) -> None:
        self.telemetry = telemetry
        self._in_flight: dict[tuple[int, type, Any], _InFlight] = {}

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        connection = getattr(ctx.session, "_connection", None)  # mcp 2.3 ServerSession: one per connection
        if ctx.request_id is None or ctx.method != "tools/call" or connection is None:
            return await self._serve(ctx, call_next)
        # Keyed by the connection object's identity, alive while its request runs; "5" and 5 are two ids.
        key = (id(connection), type(ctx.request_id), ctx.request_id)
        first = self._in_flight.get(key)
        if first is not None:
            logging.getLogger(__name__).warning(
                "tools/call id %s sent again while it runs: answered with its outcome", _request_id(ctx.request_id))
            if first.done is None:
                first.done = anyio.Event()
            await first.done.wait()
            if first.error is not None:
                raise first.error
            return first.result
        entry = self._in_flight[key] = _InFlight()
        try:
            entry.result = await self._serve(ctx, call_next)
            return entry.result
        except BaseException as exc:
            entry.error = exc
            raise
        finally:
            del self._in_flight[key]
            if entry.done is not None:
                entry.done.set()

    async def _serve(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.request_id is None:  # notifications carry no outcome of their own
            return await call_next(ctx)
        session = ctx.session
        ctx.session = _LogsScrubbed(session)  # type: ignore[assignment]  # the session built for this request
        params = ctx.params if type(ctx.params) is dict or isinstance(ctx.params, Mapping) else {}
        request_id = str(ctx.request_id)[:_MAX_REQUEST_ID] if type(ctx.request_id) is int else _request_id(ctx.request_id)
        # The method is the client's word: one the spec does not define is "_OTHER" on the span and the
        # metric (bounded cardinality, as for HTTP methods; stacklok/toolhive #5956).
        method = ctx.method if ctx.method in SPEC_CLIENT_METHODS else OTHER
        attributes: dict[str, Any] = {
            attr.MCP_METHOD_NAME: method,
            attr.JSONRPC_REQUEST_ID: request_id,
            attr.MCP_PROTOCOL_VERSION: ctx.protocol_version,
            attr.NETWORK_TRANSPORT: "pipe" if ctx.request is None else "tcp",
        }
        headers = None if ctx.request is None else _headers(ctx.request)
        if headers is not None and (session_id := headers.get("mcp-session-id")):
            attributes[attr.MCP_SESSION_ID] = session_id[:_MAX_REQUEST_ID]  # client-sent header: bounded
        tool: str | None = None
        if ctx.method == "tools/call":
            attributes[attr.GEN_AI_OPERATION_NAME] = attr.EXECUTE_TOOL
            name = params.get("name")
            if isinstance(name, str):
                tool = safe_name(name)
                attributes[attr.GEN_AI_TOOL_NAME] = tool
            if self.telemetry.capture_content:
                attributes[attr.GEN_AI_TOOL_CALL_ARGUMENTS] = content_attribute(params.get("arguments"))
        # A tools/call name is the client's word until the seam finds it in the registry: a request
        # refused before the seam runs (malformed params) must not name the span or a metric label.
        call = ToolCall(tool=tool, known=ctx.method != "tools/call", request_id=request_id)
        parent = self.telemetry.parent_context(ctx.meta, headers)
        span = self.telemetry.start(method, attributes, parent)
        token = bind_call(call)
        # One attach: the parent (with its allow-listed baggage, else the ambient context) plus the
        # span; the same context carries the duration point's exemplar.
        span_context = trace.set_span_in_context(span, parent)
        attached = context.attach(span_context)
        started = time.perf_counter()
        try:
            result = await call_next(ctx)
            if self.telemetry.capture_content and ctx.method == "tools/call":
                span.set_attribute(attr.GEN_AI_TOOL_CALL_RESULT, content_attribute(result))
            return result
        except MCPError as exc:
            if call.failed:  # the seam shaped it already
                raise
            wrapped = _wrapped_failure(exc)
            if wrapped is None:
                call.fail(Channel.PROTOCOL, classify(exc), code=exc.code, exception=exc)
                raise protocol_error(exc, call) from None  # raised outside the seam, e.g. by a resource handler
            classification = classify(wrapped)
            code, message = exc.code, exc.message
            if classification.failure_class is FailureClass.NOT_FOUND and ctx.method in _UNKNOWN_NAME:
                code = INVALID_PARAMS  # as below: the caller asked for what does not exist
            if _quotes(message, wrapped):
                kind, key = _UNKNOWN_NAME.get(ctx.method, ("", ""))
                message = "Internal error"
                if code == INVALID_PARAMS:
                    message = f"Unknown {kind}: {safe_name(str(params.get(key)))}"
            call.fail(Channel.PROTOCOL, classification, code=code, exception=exc)
            raise protocol_error(MCPError(code, message, data=exc.data), call) from None
        except pydantic.ValidationError:  # malformed params: the SDK answers -32602 itself
            call.fail(Channel.PROTOCOL, Classification(FailureClass.INVALID_INPUT), code=INVALID_PARAMS)
            raise
        except Exception as exc:
            classification = classify(exc)
            if classification.failure_class is FailureClass.NOT_FOUND and ctx.method in _UNKNOWN_NAME:
                # A handler saying the prompt or resource does not exist: the caller's mistake, -32602
                # like an unknown tool (MCP spec, Prompts/Resources > Error Handling), not an alert.
                call.fail(Channel.PROTOCOL, classification, code=INVALID_PARAMS, exception=exc)
                kind, key = _UNKNOWN_NAME[ctx.method]
                raise MCPError(INVALID_PARAMS, f"Unknown {kind}: {safe_name(str(params.get(key)))}") from None
            # Outside any tool: answer -32603 with the ref, never str(exc) (the legacy era's code 0 leaks it).
            call.fail(Channel.PROTOCOL, classification, code=INTERNAL_ERROR, exception=exc)
            raise MCPError(INTERNAL_ERROR, f"Internal error (Ref {call.error_ref})") from None
        except anyio.get_cancelled_exc_class():
            call.outcome = Outcome.CANCELLED
            raise
        except BaseException as exc:
            # KeyboardInterrupt, a SystemExit outside any tool (the seam answers a tool's), another
            # BaseException: the SDK lets it take the connection down and no answer is sent; the span
            # must still say the call failed.
            call.fail(Channel.PROTOCOL, Classification(FailureClass.UNKNOWN), exception=exc)
            raise
        finally:
            context.detach(attached)
            unbind_call(token)
            if call.outcome is not Outcome.CANCELLED and _cancel_requested(session):
                call.cancel()
            self.telemetry.finish(span, call, attributes, time.perf_counter() - started, span_context)


_FRAMEWORKS: Final = ("mcp.", "fastmcp.")


def _wrapped_failure(exc: MCPError) -> BaseException | None:
    """The exception an SDK or framework turned into ``exc``'s -32603, when it did: the first one in its cause or
    context chain that neither ``mcp`` nor ``fastmcp`` raised (MCPServer answers a resource template's unexpected
    exception as ``MCPError(-32603, str(UnexpectedResourceError))`` raised inside its ``except``; FastMCP as
    ``ResourceError(f"Error reading resource {uri!r}: {e}") from e``). ``None`` for any other code, and for an
    error a handler or the framework raised on purpose (an author's ``ResourceError``): its words are the answer."""
    if exc.code != INTERNAL_ERROR:
        return None
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 16:
        seen.add(id(current))
        if current is not exc and not type(current).__module__.startswith(_FRAMEWORKS):
            return current
        current = current.__cause__ or current.__context__
    return None


def _quotes(message: str, wrapped: BaseException) -> bool:
    """Whether ``message`` carries ``wrapped``'s own text (FastMCP's unmasked ``f"...: {e}"``): raw exception text
    that must not reach the peer (DESIGN.md: nothing raw crosses)."""
    try:
        text = str(wrapped).strip()
    except Exception:  # boundary: a foreign __str__
        return True
    return bool(text) and (text in message or text.splitlines()[0] in message)


def _request_id(request_id: Any) -> str:
    # The client picks the id (JSON-RPC 2.0 §4: any string or number): scrubbed and bounded like
    # any client-supplied text; ordinary ids (integers, UUIDs) come through unchanged. (An int id,
    # the common case, is turned into text in the middleware without this call.)
    if isinstance(request_id, int):
        return str(request_id)[:_MAX_REQUEST_ID]
    return scrub(str(request_id))[:_MAX_REQUEST_ID]


def _cancel_requested(session: Any) -> bool:
    """Whether the client cancelled this very request (``notifications/cancelled`` for its id).

    A sync tool runs on in its worker thread after a cancel and returns or fails; the SDK then drops
    the response, and only this says why. The flag is the dispatcher's own, on the request's
    dispatch context (mcp 2.3 ``BaseContext.cancel_requested``; the ``ServerSession`` built for
    the request keeps it private): it lives and dies with the request, so a cancel that arrives
    after the request ended, or one for a reused id, can never mark another request. ``session``
    is that ``ServerSession`` itself: read through :class:`_LogsScrubbed`, the private name would
    first miss on the wrapper (an ``AttributeError`` built and dropped on every request).
    """
    dispatch = getattr(session, "_request_outbound", None)
    event = getattr(dispatch, "cancel_requested", None)
    return isinstance(event, anyio.Event) and event.is_set()


class _LogsScrubbed:
    """A request's ``ServerSession`` whose log notifications (``notifications/message``) go out scrubbed.

    MCP 2025-11-25, Logging > Security: log messages MUST NOT contain credentials or secrets. A tool that logs
    its connection string before failing (``ctx.info(f"connecting to {dsn}")``) sends it to the host, which
    shows it to the user and often to the model (CherryHQ/cherry-studio PR #18670; tests/heldout_cases.md
    J111). The data is scrubbed as :func:`~errscope._scrub_values.scrub_value` does, and a dataclass such as
    FastMCP's ``LogData`` field by field. Everything else is the session's own.
    """

    __slots__ = ("_session",)

    def __init__(self, session: Any) -> None:
        self._session = session

    async def send_log_message(self, level: Any, data: Any, logger: str | None = None, related_request_id: Any = None) -> None:
        await self._session.send_log_message(level, _scrubbed_log_data(data), logger, related_request_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def _scrubbed_log_data(data: Any) -> Any:
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        fields = {f.name: scrub_value(getattr(data, f.name)) for f in dataclasses.fields(data) if f.init}
        return dataclasses.replace(data, **fields)
    return scrub_value(data)


def _headers(request: Any) -> Mapping[str, str] | None:
    headers = getattr(request, "headers", None)
    return headers if isinstance(headers, Mapping) else None


class _LowLevelRegistry:
    """Tool names and schemas of a low-level server, read from its own ``tools/list`` handler.

    The listing is read to its last page (MCP spec, Utilities > Pagination), at most
    :data:`_MAX_PAGES` pages. Misses that arrive while a read is in flight wait for it rather than
    find no registry and serve the call unchecked.
    """

    def __init__(self, server: Server[Any], package: str | None = None) -> None:
        self.server = server
        self.package = package  # the handler's: one function runs every tool
        self.tools: dict[str, ToolInfo] | None = None
        self.refreshed_at = float("-inf")
        self._refreshing = anyio.Lock()

    async def lookup(self, ctx: ServerRequestContext[Any, Any], name: str) -> ToolInfo | None:
        if self.tools is not None and name in self.tools:
            return self.tools[name]
        async with self._refreshing:
            if time.monotonic() - self.refreshed_at >= _REFRESH_INTERVAL:
                await self._refresh(ctx)
        if self.tools is None:  # no tools/list handler: nothing to check against
            return ToolInfo(name, package=self.package)
        return self.tools.get(name)

    async def _refresh(self, ctx: ServerRequestContext[Any, Any]) -> None:
        self.refreshed_at = time.monotonic()
        entry = self.server.get_request_handler("tools/list")
        if entry is None:
            return
        tools: dict[str, ToolInfo] = {}
        cursor: str | None = None
        try:
            for _ in range(_MAX_PAGES):
                listed = await entry.handler(ctx, None if cursor is None else PaginatedRequestParams(cursor=cursor))
                if not isinstance(listed, ListToolsResult):
                    return
                tools.update(
                    (tool.name, ToolInfo(tool.name, tool.input_schema, idempotent_hint(tool.annotations), tool.output_schema,
                                         self.package))
                    for tool in listed.tools
                )
                cursor = listed.next_cursor
                if not cursor:
                    break
        except Exception:  # a failing list must not turn every call into "unknown tool"
            logging.getLogger(__name__).warning("tools/list failed; tool calls are served unchecked")
            return
        self.tools = tools


def _instrument_lowlevel_handler(server: Server[Any], seam: ToolSeam) -> None:
    entry = server.get_request_handler("tools/call")
    if entry is None or getattr(entry.handler, "__errscope__", False):
        return
    original = entry.handler
    registry = _LowLevelRegistry(server, package_of(original))

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> Any:
        # Without the middleware (someone removed it) the seam still shapes errors; nothing is recorded.
        call = current_call() or ToolCall(tool=params.name)
        info = await registry.lookup(ctx, params.name)
        # Without a readable registry the call is served unchecked, but its name is unverified:
        # not a span name or a metric label value.
        call.known = info is not None and registry.tools is not None
        return await seam.run(call, params.name, info, params.arguments, lambda: original(ctx, params))

    call_tool.__errscope__ = True  # type: ignore[attr-defined]
    call_tool.__wrapped__ = original  # type: ignore[attr-defined]
    server.add_request_handler("tools/call", CallToolRequestParams, call_tool)


def _instrument_mcpserver_call_tool(server: MCPServer, seam: ToolSeam) -> None:
    original = server.call_tool
    if getattr(original, "__errscope__", False):
        return

    infos: dict[str, tuple[Any, ToolInfo]] = {}  # per tool, while the registry keeps the same Tool

    async def call_tool(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        call = current_call() or ToolCall(tool=name)  # detached: no middleware, nothing recorded
        tool = server._tool_manager.get_tool(name)  # the registry MCPServer itself dispatches on
        info: ToolInfo | None = None
        if tool is not None:
            cached = infos.get(name)
            if cached is not None and cached[0] is tool:
                info = cached[1]
            else:
                # No output_schema for the seam: MCPServer checks results against it itself (below).
                info = ToolInfo(name, tool.parameters, idempotent_hint(tool.annotations), package=package_of(tool.fn))
                infos[name] = tool, info
        call.known = info is not None

        async def invoke() -> Any:
            try:
                return await original(name, arguments, context)
            except UnexpectedToolError as exc:
                rejected = _output_rejected(exc)
                if rejected is None:
                    raise
                raise InvalidResult(_result_fields(rejected)) from exc

        return await seam.run(call, name, info, arguments, invoke)

    call_tool.__errscope__ = True  # type: ignore[attr-defined]
    server.call_tool = call_tool  # type: ignore[method-assign]


def _instrument_mcpserver_get_prompt(server: MCPServer) -> None:
    # MCPServer answers an unknown prompt, or one missing a required argument, with ValueError, hence
    # -32603 (an alert for a caller's typo); both are -32602 (MCP spec, Prompts > Error Handling).
    original = server.get_prompt
    if getattr(original, "__errscope__", False):
        return

    async def get_prompt(name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        prompt = server._prompt_manager.get_prompt(name)  # the registry MCPServer itself reads
        if prompt is None:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {safe_name(name)}")
        missing = [a.name for a in prompt.arguments or () if a.required and a.name not in (arguments or {})]
        if missing:
            raise MCPError(INVALID_PARAMS, f"Missing required arguments: {', '.join(map(safe_name, missing))}")
        return await original(name, arguments, context)

    get_prompt.__errscope__ = True  # type: ignore[attr-defined]
    server.get_prompt = get_prompt  # type: ignore[method-assign]


def _output_rejected(exc: UnexpectedToolError) -> pydantic.ValidationError | None:
    """The pydantic error of MCPServer's own output check, when that is what ``exc`` wraps.

    Decided by where it arose (a frame of ``FuncMetadata.convert_result``), not by its text: a
    ``ValidationError`` from the tool's body (upstream data) is wrapped the same way.
    """
    cause = exc.__cause__
    if not isinstance(cause, pydantic.ValidationError):
        return None
    tb = cause.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is _OUTPUT_CHECK:
            return cause
        tb = tb.tb_next
    return None


def _result_fields(exc: pydantic.ValidationError) -> tuple[FieldProblem, ...]:
    if any(not error["loc"] and error["input"] is None for error in exc.errors(include_url=False)):
        return (FieldProblem("structuredContent", "present"),)  # a CallToolResult without it
    return tuple(
        FieldProblem("structuredContent" if p.path == "arguments" else f"structuredContent.{p.path}", p.expected)
        for p in argument_problems(exc).fields
    )


def _answer_malformed_frames(lowlevel: Server[Any]) -> None:
    # Server.run serves stdio and in-memory streams (MCPServer.run("stdio") ends up here too).
    apply_request_id_rule_on_stdio()
    original = lowlevel.run
    if getattr(original, "__errscope__", False):
        return

    async def run(read_stream: Any, write_stream: Any, *args: Any, **kwargs: Any) -> None:
        await original(AnswerMalformedFrames(read_stream, write_stream), write_stream, *args, **kwargs)

    run.__errscope__ = True  # type: ignore[attr-defined]
    lowlevel.run = run  # type: ignore[method-assign]


def instrument_mcp(server: Server[Any] | MCPServer, telemetry: ServerTelemetry, seam: ToolSeam) -> None:
    """Install errscope on an ``mcp`` server in place (idempotent)."""
    lowlevel = server._lowlevel_server if isinstance(server, MCPServer) else server
    _answer_malformed_frames(lowlevel)
    chain = lowlevel.middleware
    chain[:] = [m for m in chain if not isinstance(m, OpenTelemetryMiddleware | ErrscopeMiddleware)]
    chain.insert(0, ErrscopeMiddleware(telemetry))
    if isinstance(server, MCPServer):
        _instrument_mcpserver_call_tool(server, seam)
        _instrument_mcpserver_get_prompt(server)
    else:
        _instrument_lowlevel_handler(server, seam)
    declare_honoured_keys(server)


def uninstrument_mcp(server: Server[Any] | MCPServer) -> None:
    """Remove errscope and restore the SDK's own telemetry middleware."""
    lowlevel = server._lowlevel_server if isinstance(server, MCPServer) else server
    chain = lowlevel.middleware
    chain[:] = [m for m in chain if not isinstance(m, ErrscopeMiddleware)]
    if not any(isinstance(m, OpenTelemetryMiddleware) for m in chain):
        chain.insert(0, OpenTelemetryMiddleware())
    lowlevel.__dict__.pop("run", None)
    undeclare_honoured_keys(server)
    if isinstance(server, MCPServer):
        server.__dict__.pop("call_tool", None)
        server.__dict__.pop("get_prompt", None)
    else:
        entry = server.get_request_handler("tools/call")
        if entry is not None and getattr(entry.handler, "__errscope__", False):
            server.add_request_handler("tools/call", CallToolRequestParams, entry.handler.__wrapped__)
