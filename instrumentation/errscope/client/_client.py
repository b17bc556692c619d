"""``ToolClient``: calls tools through ``mcp.Client`` and returns, for every call, what to hand the
model plus the structured facts (channel, class, ref, outcome, retry advice, attempts).

The SDK has no client middleware, so errscope owns the connection: it wraps the transport with a
:class:`~errscope.client._wire.WireTap`, runs the ``mcp.Client`` in a task of its own (so a lost
session can be re-opened from any caller's task), and drives each attempt itself:

1. breaker check (per server; only transport failures count);
2. one CLIENT span, trace keys into ``params._meta``, idempotency key into ``_meta``;
3. the call with no SDK timeout, under errscope's idle timer + hard ceiling (progress resets the
   idle timer); when a timer fires the SDK sends exactly one ``notifications/cancelled``;
4. the outcome classified once: from the server's ``_meta`` when it is an errscope server, from
   the JSON-RPC code, from the text of a foreign result, or from how a local failure arose;
5. the retry policy decides, by class, whether another attempt goes out.

Nothing raised by a misbehaving server (garbage frames, a closed stream, wrong ids, unreadable
results) escapes :meth:`ToolClient.call_tool`; each becomes an honest note. Only the host's own
cancellation propagates.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.abc
from mcp import Client
from mcp.client._transport import Transport
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    REQUEST_TIMEOUT,  # the SDK's local timeout code (never a peer's when no error frame arrived)
    CallToolResult,
    TextContent,
    Tool,
)
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import Link, Span, StatusCode, TracerProvider

from errscope._attributes import (
    ERROR_TYPE,
    ERRSCOPE_ATTEMPT,
    ERRSCOPE_CHANNEL,
    ERRSCOPE_ERROR_REF,
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_IDEMPOTENCY_KEY_HASH,
    ERRSCOPE_OUTCOME,
    ERRSCOPE_RETRY,
    ERRSCOPE_RETRY_AFTER,
    EXECUTE_TOOL,
    GEN_AI_OPERATION_NAME,
    GEN_AI_TOOL_NAME,
    JSONRPC_REQUEST_ID,
    MCP_METHOD_NAME,
    MCP_PROTOCOL_VERSION,
    MCP_SESSION_ID,
    META_ERROR_REF,
    META_FAILURE_CLASS,
    META_IDEMPOTENCY_KEY,
    META_RETRY_AFTER,
    NETWORK_TRANSPORT,
    RPC_RESPONSE_STATUS_CODE,
    SERVER_ADDRESS,
    SERVER_PORT,
    TOOL_ERROR,
)
from errscope._classify import class_for_jsonrpc_code, delay_seconds
from errscope._messages import safe_name
from errscope._refs import ERROR_REF_PATTERN, new_error_ref
from errscope._vocabulary import Channel, FailureClass, Outcome
from errscope.client._breaker import CircuitBreaker
from errscope.client._catalog import ToolCatalog
from errscope.client._deadline import CallDeadline, TimeoutKind, TimeoutPolicy
from errscope.client._invalid_params import (
    declared_arguments,
    invalid_params_note,
    is_argument_rejection,
    unknown_tool_name,
)
from errscope.client._keys import key_hash, new_idempotency_key
from errscope.client._result import ADVICE, ToolCallResult
from errscope.client._retry import RetryPolicy
from errscope.client._telemetry import ClientTelemetry, caller_parent, install_sdk_span_suppression, trace_meta
from errscope.client._text import classify_text, retry_after_from_text, safe_excerpt
from errscope.client._wire import CURRENT_ATTEMPT, WireAttempt, WireTap

__all__ = ["ConnectionState", "ProbeResult", "ToolClient"]

logger = logging.getLogger("errscope.client")
"""Records name exception types only: a traceback would carry the peer's own (unscrubbed) text."""


ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]

# error.type values for failures with no JSON-RPC code (semconv: low cardinality, documented).
ERROR_TYPE_TIMEOUT = "timeout"
ERROR_TYPE_CONNECTION = "connection_error"
ERROR_TYPE_CIRCUIT_OPEN = "circuit_open"
ERROR_TYPE_UNREADABLE = "_OTHER"
_MAX_LISTED = 20
"""Tool names of a server's list named to the model in one unknown-tool note."""


class ConnectionState(StrEnum):
    """What the host may show about a server: a request-scoped error never changes it (case D24)."""

    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    CIRCUIT_OPEN = "circuit_open"


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """The outcome of a discovery request (``resources/list``, ``prompts/list``): request-scoped only."""

    method: str
    ok: bool
    sent: bool
    code: int | None = None
    items: tuple[Any, ...] = ()


@dataclass(slots=True, eq=False)
class _Connection:
    tap: WireTap
    ready: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    client: Client | None = None
    error: BaseException | None = None

    @property
    def alive(self) -> bool:
        return self.client is not None and not self.done.is_set() and not self.tap.closed


@dataclass(slots=True)
class _Target:
    display: str
    transport: str | None
    address: str | None
    port: int | None


def _describe(server: object) -> _Target:
    if isinstance(server, str):
        parts = urlsplit(server)
        host = parts.hostname or ""
        port = parts.port
        netloc = f"[{host}]" if ":" in host else host
        if port is not None:
            netloc = f"{netloc}:{port}"
        return _Target(f"{parts.scheme}://{netloc}{parts.path}", "tcp", host or None, port)
    if isinstance(server, StdioServerParameters):
        return _Target(os.path.basename(server.command), "pipe", None, None)
    return _Target("the tool server", None, None, None)


def _text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def _http_client_with_trace_headers(max_connections: int, session: dict[str, str]) -> Any:
    """An httpx2 client (the SDK's timeouts) that mirrors ``_meta`` trace keys into W3C headers and
    remembers the server's ``Mcp-Session-Id`` (2025-era sessions) in ``session["id"]``."""
    import json

    import httpx2
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    async def copy_trace_headers(request: Any) -> None:
        try:
            body = json.loads(request.content or b"null")
        except (ValueError, RuntimeError, TypeError):
            return
        meta = body.get("params", {}).get("_meta") if isinstance(body, dict) else None
        if not isinstance(meta, dict):
            return
        for key in ("traceparent", "tracestate", "baggage"):
            if isinstance(meta.get(key), str):
                request.headers[key] = meta[key]

    async def remember_session(response: Any) -> None:
        value = response.headers.get("mcp-session-id")
        if value:
            session["id"] = value

    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        limits=httpx2.Limits(max_connections=max_connections, max_keepalive_connections=min(20, max_connections)),
        event_hooks={"request": [copy_trace_headers], "response": [remember_session]},
    )


class ToolClient:
    """Call MCP tools with honest notes for the model and one span per attempt.

    Args:
        server: a streamable HTTP URL, ``StdioServerParameters``, or any ``mcp`` ``Transport``
            factory (a zero-argument callable returning a fresh transport, so sessions can be
            re-opened).
        timeout: idle timeout in seconds, or a :class:`TimeoutPolicy` (idle + hard ceiling).
        retry: the class-driven :class:`RetryPolicy`; ``None`` disables automatic retries.
        breaker: the server's :class:`CircuitBreaker` (a fresh one by default).
        idempotency_keys: attach a fresh key to every logical call (default ``True``).
        idempotency_meta_key: the ``_meta`` name of the key (default ``io.errscope/idempotency_key``).
        baggage_allow: baggage keys that may cross to the server; none by default.
        connect_timeout: seconds allowed to open a session.
        late_response_grace: seconds a timed-out attempt's span stays open to record a late answer.
        mode: ``mcp.Client`` protocol mode (``auto``, ``legacy`` or a modern version).
        tracer_provider, meter_provider: OpenTelemetry providers; the global ones by default.
        client_options: extra keyword arguments for ``mcp.Client``.
        http_max_connections: connection pool size on streamable HTTP (one request holds one).
    """

    def __init__(
        self,
        server: str | StdioServerParameters | Callable[[], Transport],
        *,
        timeout: float | TimeoutPolicy = 30.0,
        retry: RetryPolicy | None = RetryPolicy(),  # noqa: B008 - frozen dataclass
        breaker: CircuitBreaker | None = None,
        idempotency_keys: bool = True,
        idempotency_meta_key: str = META_IDEMPOTENCY_KEY,
        baggage_allow: Iterable[str] = (),
        connect_timeout: float = 10.0,
        late_response_grace: float = 1.0,
        mode: str = "auto",
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        client_options: Mapping[str, Any] | None = None,
        http_max_connections: int = 100,
    ) -> None:
        self._server = server
        self.target = _describe(server)
        self.timeout = timeout if isinstance(timeout, TimeoutPolicy) else TimeoutPolicy(idle=float(timeout))
        self.retry = retry if retry is not None else RetryPolicy(max_attempts=1)
        self.breaker = breaker if breaker is not None else CircuitBreaker()
        self.idempotency_keys = idempotency_keys
        self.idempotency_meta_key = idempotency_meta_key
        self.baggage_allow = frozenset(baggage_allow)
        self.connect_timeout = connect_timeout
        self.late_response_grace = late_response_grace
        self.mode = mode
        self.client_options = dict(client_options or {})
        self.http_max_connections = http_max_connections
        self.catalog = ToolCatalog()
        self.telemetry = ClientTelemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
        self._conn: _Connection | None = None
        self._conn_lock = anyio.Lock()
        self._tg: anyio.abc.TaskGroup | None = None
        self._stack: AsyncExitStack | None = None
        self.taps: list[WireTap] = []
        self._key_links: OrderedDict[str, list[Link]] = OrderedDict()
        self._session: dict[str, str] = {}
        install_sdk_span_suppression()

    # -- lifecycle --------------------------------------------------------------------------------
    async def __aenter__(self) -> ToolClient:
        self._stack = AsyncExitStack()
        self._tg = await self._stack.enter_async_context(anyio.create_task_group())
        await self._ensure_connected()  # a failure here is reported by the first call, not raised
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._stack is not None and self._tg is not None
        self._tg.cancel_scope.cancel()
        if self._conn is not None:
            self._conn.scope.cancel()
        await self._stack.aclose()
        self._tg = None

    @property
    def state(self) -> ConnectionState:
        """Connection state as a host would display it."""
        if not self.breaker.would_allow():
            return ConnectionState.CIRCUIT_OPEN
        if self._conn is not None and self._conn.alive:
            return ConnectionState.CONNECTED
        return ConnectionState.DISCONNECTED

    @property
    def tap(self) -> WireTap | None:
        """The current connection's wire tap (tests read the wire through it)."""
        return self._conn.tap if self._conn is not None else None

    @property
    def protocol_version(self) -> str | None:
        conn = self._conn
        if conn is None or conn.client is None:
            return None
        try:
            return conn.client.protocol_version
        except Exception:  # boundary: not negotiated yet
            return None

    def _transport(self, stack: AsyncExitStack) -> Transport:
        server = self._server
        if isinstance(server, str):
            self._session = {}
            http = _http_client_with_trace_headers(self.http_max_connections, self._session)
            stack.push_async_callback(http.aclose)
            return streamable_http_client(server, http_client=http)
        if isinstance(server, StdioServerParameters):
            return stdio_client(server, errlog=open(os.devnull, "w"))  # noqa: SIM115 - owned by the transport
        return server()

    async def _run_connection(self, conn: _Connection) -> None:
        try:
            with conn.scope:
                async with AsyncExitStack() as stack, Client(
                    conn.tap.wrap(self._transport(stack)),
                    mode=self.mode,
                    cache=None,
                    message_handler=self._on_message,
                    **self.client_options,
                ) as client:
                    conn.client = client
                    conn.ready.set()
                    await anyio.sleep_forever()
        except Exception as exc:  # boundary: whatever the transport raised, the connection is gone
            conn.error = exc
            logger.debug("errscope client connection ended: %s", type(exc).__name__)
        finally:
            conn.client = None if not conn.ready.is_set() else conn.client
            conn.done.set()
            conn.ready.set()

    async def _ensure_connected(self) -> _Connection | None:
        async with self._conn_lock:
            conn = self._conn
            if conn is not None and conn.alive:
                return conn
            if conn is not None:
                conn.scope.cancel()
            assert self._tg is not None, "use ToolClient as an async context manager"
            conn = _Connection(tap=WireTap())
            self.taps.append(conn.tap)
            self._conn = conn
            self._tg.start_soon(self._run_connection, conn)
            with anyio.move_on_after(self.connect_timeout):
                await conn.ready.wait()
            if not conn.alive:
                conn.scope.cancel()
                return None
            await self._initial_listing(conn)
            return conn

    async def _initial_listing(self, conn: _Connection) -> None:
        assert conn.client is not None
        caps = conn.client.server_capabilities
        if caps.tools is None:
            return
        try:
            with anyio.fail_after(self.timeout.idle):
                await self.catalog.refresh(lambda: self._fetch_tools(conn))
        except Exception as exc:  # boundary: a broken listing leaves the catalog empty; calls still go out
            logger.debug("initial tools/list failed (%s)", type(exc).__qualname__)

    async def _fetch_tools(self, conn: _Connection) -> Sequence[Tool]:
        assert conn.client is not None
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(100):
            page = await conn.client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    async def _on_message(self, message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if method == "notifications/tools/list_changed":
            self.catalog.mark_stale()
            if self._tg is not None:
                self._tg.start_soon(self._refresh_stale)
        await anyio.lowlevel.checkpoint()

    async def _refresh_stale(self) -> None:
        conn = self._conn
        if conn is None or not conn.alive:
            return
        try:
            await self.catalog.refresh_if_stale(lambda: self._traced_fetch(conn, links=()))
        except Exception as exc:  # boundary: the next unknown-tool error re-lists again
            logger.debug("tools/list refresh after list_changed failed (%s)", type(exc).__qualname__)

    async def _traced_fetch(self, conn: _Connection, *, links: Sequence[Link]) -> Sequence[Tool]:
        span = self.telemetry.start_span("tools/list", attributes={MCP_METHOD_NAME: "tools/list"}, links=links)
        try:
            with trace.use_span(span, end_on_exit=False):
                return await self._fetch_tools(conn)
        except MCPError as exc:
            span.set_attributes({ERROR_TYPE: str(exc.code), RPC_RESPONSE_STATUS_CODE: str(exc.code)})
            span.set_status(StatusCode.ERROR)
            raise
        finally:
            span.end()

    # -- discovery ---------------------------------------------------------------------------------
    async def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        """The tools the model may call (cached; ``refresh=True`` re-lists now)."""
        conn = await self._ensure_connected()
        if conn is not None and (refresh or not self.catalog.listed or self.catalog.stale):
            try:
                await self.catalog.refresh(lambda: self._traced_fetch(conn, links=()))
            except Exception as exc:  # boundary: keep the last good listing
                logger.debug("tools/list failed (%s)", type(exc).__qualname__)
        return [t for name in self.catalog.names if (t := self.catalog.get(name)) is not None]

    async def probe(self, method: str, *, force: bool = False) -> ProbeResult:
        """Send a discovery request (``resources/list``, ``prompts/list``, ``resources/templates/list``).

        Without ``force`` nothing is sent for a capability the server did not advertise. An error
        reply is request-scoped: it is recorded on this request's span only, never changes
        :attr:`state`, and never triggers a tool-list refresh (case D24).
        """
        conn = await self._ensure_connected()
        if conn is None or conn.client is None:
            return ProbeResult(method, ok=False, sent=False)
        client = conn.client
        caps = client.server_capabilities
        calls: dict[str, tuple[Any, Callable[[], Awaitable[Any]], str]] = {
            "resources/list": (caps.resources, client.list_resources, "resources"),
            "resources/templates/list": (caps.resources, client.list_resource_templates, "resource_templates"),
            "prompts/list": (caps.prompts, client.list_prompts, "prompts"),
        }
        if method not in calls:
            raise ValueError(f"unsupported probe method {method!r}")
        advertised, call, attr = calls[method]
        if advertised is None and not force:
            return ProbeResult(method, ok=False, sent=False)
        span = self.telemetry.start_span(method, attributes={MCP_METHOD_NAME: method})
        try:
            with trace.use_span(span, end_on_exit=False), anyio.fail_after(self.timeout.idle):
                result = await call()
            return ProbeResult(method, ok=True, sent=True, items=tuple(getattr(result, attr, ())))
        except MCPError as exc:
            span.set_attributes({ERROR_TYPE: str(exc.code), RPC_RESPONSE_STATUS_CODE: str(exc.code)})
            span.set_status(StatusCode.ERROR)
            return ProbeResult(method, ok=False, sent=True, code=exc.code)
        except Exception as exc:  # boundary: timeout or unreadable reply; still request-scoped
            span.set_attribute(ERROR_TYPE, ERROR_TYPE_TIMEOUT if isinstance(exc, TimeoutError) else "_OTHER")
            span.set_status(StatusCode.ERROR)
            return ProbeResult(method, ok=False, sent=True)
        finally:
            span.end()

    # -- calls ---------------------------------------------------------------------------------------
    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str | None = None,
        timeout: float | TimeoutPolicy | None = None,
        meta: Mapping[str, Any] | None = None,
        progress_callback: ProgressFn | None = None,
        timeout_hint: str | None = None,
    ) -> ToolCallResult:
        """Call ``name`` and return what to hand the model plus the facts; never raises for server faults.

        Args:
            name: the tool.
            arguments: its arguments.
            idempotency_key: reuse a previous call's key (``previous.idempotency_key``) when the model
                asks to retry it; a new key is minted otherwise.
            timeout: this call's idle timeout or :class:`TimeoutPolicy`.
            meta: extra ``_meta`` for the request; a ``traceparent`` here is sent verbatim.
            progress_callback: also called for every progress notification of this call.
            timeout_hint: what to check before retrying, added to the note if the call times out
                (e.g. "'etl-nightly' may already exist; list clusters before creating again.").
        """
        policy = self.timeout
        if timeout is not None:
            policy = timeout if isinstance(timeout, TimeoutPolicy) else TimeoutPolicy(idle=float(timeout))
        key = idempotency_key or (new_idempotency_key() if self.idempotency_keys else None)
        call = _LogicalCall(
            owner=self,
            tool=name,
            arguments=dict(arguments or {}),
            key=key,
            policy=policy,
            caller_meta=dict(meta or {}),
            progress_callback=progress_callback,
            timeout_hint=timeout_hint,
        )
        if key is not None and idempotency_key is not None:
            call.links.extend(self._key_links.get(key, ()))  # a model-initiated retry links to the first call
        idempotent = key is not None or self.catalog.is_idempotent(name)
        result, count = await self.retry.run(call.attempt, idempotent=idempotent)
        if call.appeared:
            # The tool appeared after re-listing: one more attempt, never a loop.
            result = await call.attempt(count + 1)
            count += 1
        if key is not None:
            self._key_links[key] = call.links[-8:]
            self._key_links.move_to_end(key)
            while len(self._key_links) > 1024:
                self._key_links.popitem(last=False)
        return replace(result, attempts=count, idempotency_key=key, request_ids=tuple(call.request_ids))


@dataclass(slots=True, eq=False)
class _LogicalCall:
    owner: ToolClient
    tool: str
    arguments: dict[str, Any]
    key: str | None
    policy: TimeoutPolicy
    caller_meta: dict[str, Any]
    progress_callback: ProgressFn | None
    timeout_hint: str | None = None
    links: list[Link] = field(default_factory=list)
    request_ids: list[Any] = field(default_factory=list)
    unknown_tool: bool = False
    refreshed: bool = False
    appeared: bool = False

    # -- one attempt ---------------------------------------------------------------------------------
    async def attempt(self, number: int) -> ToolCallResult:
        owner = self.owner
        attributes: dict[str, Any] = {
            MCP_METHOD_NAME: "tools/call",
            GEN_AI_TOOL_NAME: self.tool,
            GEN_AI_OPERATION_NAME: EXECUTE_TOOL,
            ERRSCOPE_ATTEMPT: number,
            ERRSCOPE_RETRY: number > 1,
        }
        if owner.target.transport:
            attributes[NETWORK_TRANSPORT] = owner.target.transport
        if owner.target.address:
            attributes[SERVER_ADDRESS] = owner.target.address
        if owner.target.port is not None:
            attributes[SERVER_PORT] = owner.target.port
        if self.key is not None:
            attributes[ERRSCOPE_IDEMPOTENCY_KEY_HASH] = key_hash(self.key)
        span = owner.telemetry.start_span(
            f"tools/call {self.tool}",
            attributes=attributes,
            links=list(self.links),
            parent=caller_parent(self.caller_meta),
        )
        self.links.append(Link(span.get_span_context(), {ERRSCOPE_ATTEMPT: number}))
        started = anyio.current_time()
        wire = WireAttempt(trace_meta=trace_meta(span, caller_meta=self.caller_meta, baggage_allow=owner.baggage_allow))
        end_span_now = True
        try:
            result = await self._attempt_on_wire(span, wire, attributes)
        except BaseException:
            # The host cancelled us (or we are shutting down): record it and let it propagate.
            self._finish_span(span, attributes, outcome=Outcome.CANCELLED, started=started)
            owner.breaker.release()
            raise
        if result.outcome is Outcome.TIMEOUT and owner.late_response_grace > 0 and owner._tg is not None:
            end_span_now = False
        self._finish_span(span, attributes, result=result, started=started, end=end_span_now)
        if not end_span_now:
            assert owner._tg is not None
            owner._tg.start_soon(_end_after, span, owner.late_response_grace)
        return result

    async def _attempt_on_wire(self, span: Span, wire: WireAttempt, attributes: dict[str, Any]) -> ToolCallResult:
        owner = self.owner
        if not owner.breaker.allow():
            attributes[ERROR_TYPE] = ERROR_TYPE_CIRCUIT_OPEN
            return self._local_failure(f"Tool server {owner.target.display} is unreachable (too many recent failures).")
        conn = await owner._ensure_connected()
        if conn is None or conn.client is None:
            owner.breaker.record_failure()
            attributes[ERROR_TYPE] = ERROR_TYPE_CONNECTION
            return self._local_failure(f"Tool server {owner.target.display} is unavailable.")
        if owner.catalog.stale:
            await owner._refresh_stale()
        version = owner.protocol_version
        if version:
            attributes[MCP_PROTOCOL_VERSION] = version
            span.set_attribute(MCP_PROTOCOL_VERSION, version)
        if "id" in owner._session:
            span.set_attribute(MCP_SESSION_ID, owner._session["id"])

        meta = {k: v for k, v in self.caller_meta.items() if k not in ("traceparent", "tracestate", "baggage")}
        if self.key is not None:
            meta[owner.idempotency_meta_key] = self.key
        deadline = CallDeadline(self.policy)
        wire.on_late = lambda: span.add_event("late_response") if span.is_recording() else None
        wire.reason_for_cancel = deadline.cancel_reason
        wire_events: list[str] = []
        user_progress = self.progress_callback

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            deadline.touch()
            if user_progress is not None:
                await user_progress(progress, total, message)

        token = CURRENT_ATTEMPT.set(wire)
        ctx_token = otel_context.attach(trace.set_span_in_context(span))
        conn.tap.listeners.append(wire_events.append)
        try:
            with deadline.scope:
                raw = await conn.client.call_tool(
                    self.tool,
                    self.arguments,
                    read_timeout_seconds=None,
                    progress_callback=on_progress,
                    meta=meta or None,  # type: ignore[arg-type]
                )
            deadline.finish()
            error: BaseException | None = None
        except MCPError as exc:
            deadline.finish()
            raw, error = None, exc
        except Exception as exc:  # boundary: a malformed or unexpected reply must not crash the host
            deadline.finish()
            raw, error = None, exc
        finally:
            # Also on the host's own cancellation: the SDK has written its cancel by now.
            otel_context.detach(ctx_token)
            CURRENT_ATTEMPT.reset(token)
            conn.tap.forget(wire)
            if wire_events.append in conn.tap.listeners:
                conn.tap.listeners.remove(wire_events.append)
            if wire.request_id is not None:
                self.request_ids.append(wire.request_id)
                attributes[JSONRPC_REQUEST_ID] = str(wire.request_id)
                span.set_attribute(JSONRPC_REQUEST_ID, str(wire.request_id))
            for _ in range(wire.cancels_sent):
                span.add_event("cancel_sent", {"reason": wire.cancel_reason or "caller cancelled"})
            for event in wire_events:
                span.add_event(event)

        fired = deadline.fired
        if fired is not None:
            owner.breaker.record_failure()
            attributes[ERROR_TYPE] = ERROR_TYPE_TIMEOUT
            return self._timeout(fired, deadline)
        if raw is not None:
            owner.breaker.record_success()
            shaped = self._from_result(raw, attributes)
            if shaped is None:
                return await self._unknown_tool(span, ref=None, channel=Channel.EXECUTION, result=raw)
            return shaped
        assert error is not None
        if isinstance(error, MCPError) and wire.error_frame:
            owner.breaker.record_success()  # the server answered
            return await self._from_protocol_error(error, span, attributes)
        if isinstance(error, MCPError) and error.code == REQUEST_TIMEOUT and not conn.tap.closed:
            # The SDK's own timer (a Client-level read_timeout_seconds): it already sent the cancel.
            owner.breaker.record_failure()
            attributes[ERROR_TYPE] = ERROR_TYPE_TIMEOUT
            sdk_timeout = _float(owner.client_options.get("read_timeout_seconds"))
            return self._timeout(TimeoutKind.IDLE, deadline, seconds=sdk_timeout)
        if isinstance(error, MCPError) or conn.tap.closed:
            # No error frame for our id: the SDK raised it locally (connection closed, -32000 band).
            owner.breaker.record_failure()
            attributes[ERROR_TYPE] = ERROR_TYPE_CONNECTION
            if wire.request_id is None:
                return self._local_failure(f"Tool server {owner.target.display} is unavailable.")
            return self._local_failure(
                f"The connection to the tool server was lost while {self.tool} was running. It may or may not "
                "have taken effect; check before calling again.",
                channel=None,
            )
        owner.breaker.record_success()
        attributes[ERROR_TYPE] = ERROR_TYPE_UNREADABLE
        return self._fail(
            None,
            FailureClass.UNKNOWN,
            f"{self.tool} returned a reply the client could not read.",
        )

    # -- shaping the outcome ---------------------------------------------------------------------------
    def _fail(
        self,
        channel: Channel | None,
        cls: FailureClass,
        head: str,
        *,
        ref: str | None = None,
        retry_after: float | None = None,
        advice: str | None = None,
        result: CallToolResult | None = None,
        outcome: Outcome = Outcome.ERROR,
    ) -> ToolCallResult:
        ref = ref or new_error_ref()
        if advice is None:
            advice = ADVICE[cls]
            if cls is FailureClass.RATE_LIMITED and retry_after is not None:
                advice = f"Wait about {_seconds(retry_after)} before calling again."
        text = " ".join(part for part in (head.strip(), advice.strip(), f"Ref {ref}.") if part)
        retryable = cls in (FailureClass.RATE_LIMITED, FailureClass.UPSTREAM_UNAVAILABLE)
        return ToolCallResult(
            tool=self.tool,
            text=text,
            outcome=outcome,
            channel=channel,
            failure_class=cls,
            error_ref=ref,
            retryable=retryable,
            retry_after=retry_after,
            result=result,
        )

    def _local_failure(self, head: str, *, channel: Channel | None = None) -> ToolCallResult:
        return self._fail(channel, FailureClass.UPSTREAM_UNAVAILABLE, head, advice="")

    def _timeout(self, fired: TimeoutKind, deadline: CallDeadline, *, seconds: float | None = None) -> ToolCallResult:
        if fired is TimeoutKind.CEILING:
            head = f"{self.tool} did not finish within the {_seconds(self.policy.hard_ceiling)} limit and was cancelled."
        else:
            idle = seconds if seconds is not None else self.policy.idle
            head = f"{self.tool} did not finish within {_seconds(idle)} and was cancelled."
        if self.timeout_hint:
            head += " The request may have been accepted: " + safe_excerpt(self.timeout_hint, limit=200).rstrip(".") + "."
        else:
            head += " Part of the work may already have been done; check before retrying."
        return self._fail(None, FailureClass.UPSTREAM_UNAVAILABLE, head, advice="", outcome=Outcome.TIMEOUT)

    def _from_result(self, raw: CallToolResult, attributes: dict[str, Any]) -> ToolCallResult | None:
        text = _text_of(raw)
        if not raw.is_error:
            return ToolCallResult(tool=self.tool, text=text, outcome=Outcome.OK, result=raw)
        attributes[ERROR_TYPE] = TOOL_ERROR
        meta = raw.meta or {}
        server_class = _as_class(meta.get(META_FAILURE_CLASS))
        if server_class is not None:
            # An errscope server already classified, scrubbed and shaped the text.
            cls = server_class
            retry_after = delay_seconds(_float(meta.get(META_RETRY_AFTER)))
            ref = _ref_of(meta)
            shaped = ref is not None and ref in text  # the server already wrote the model's text
            head = safe_excerpt(text, limit=300 if shaped else 240) or f"{self.tool} failed"
            if ref and ref in head:
                head = head.replace(f"Ref {ref}", "").replace(ref, "")
            head = head.rstrip(" .") + "."
            advice = "" if shaped else None
            return self._fail(Channel.EXECUTION, cls, head, ref=ref, retry_after=retry_after, result=raw, advice=advice)
        if unknown_tool_name(text) is not None:
            # D01: a foreign SDK wrapped its own unknown-tool protocol error into an isError result.
            return None  # handled by the caller as an unknown tool
        listed = self.owner.catalog.get(self.tool)
        if is_argument_rejection(text, declared_arguments(listed.input_schema if listed else None)):
            # Most SDKs (TS 1.2x+/2.x, mcp, FastMCP) answer bad arguments with an isError result, not -32602.
            note = invalid_params_note(self.tool, text, self.arguments)
            return self._fail(Channel.EXECUTION, FailureClass.INVALID_INPUT, note, advice="", result=raw)
        cls = classify_text(text)
        retry_after = retry_after_from_text(text) if cls is FailureClass.RATE_LIMITED else None
        excerpt = safe_excerpt(text)
        head = f"{self.tool} failed: {excerpt}." if excerpt else f"{self.tool} failed."
        return self._fail(Channel.EXECUTION, cls, head, retry_after=retry_after, result=raw)

    async def _from_protocol_error(self, error: MCPError, span: Span, attributes: dict[str, Any]) -> ToolCallResult:
        code = error.code
        attributes[ERROR_TYPE] = str(code)
        attributes[RPC_RESPONSE_STATUS_CODE] = str(code)
        data = error.data if isinstance(error.data, dict) else {}
        ref = _ref_of(data)
        message = error.message or ""
        named = unknown_tool_name(message)
        catalog = self.owner.catalog
        was_known = self.tool in catalog
        unknown = code == METHOD_NOT_FOUND or named is not None or (
            code == INVALID_PARAMS and catalog.listed and not was_known
        )
        if unknown:
            return await self._unknown_tool(span, ref=ref, channel=Channel.PROTOCOL)
        if code == INVALID_PARAMS:
            note = invalid_params_note(self.tool, message, self.arguments)
            return self._fail(Channel.PROTOCOL, FailureClass.INVALID_INPUT, note, ref=ref, advice="")
        return self._other_protocol_error(code, message, data, ref)

    async def _unknown_tool(
        self, span: Span, *, ref: str | None, channel: Channel, result: CallToolResult | None = None
    ) -> ToolCallResult:
        """Re-list once (never a loop), then say the tool is gone and which tools exist."""
        catalog = self.owner.catalog
        listed_before = self.tool in catalog
        was_known = listed_before or self.tool in catalog.retired
        self.unknown_tool = True
        if not self.refreshed:
            self.refreshed = True
            conn = self.owner._conn
            if conn is not None and conn.alive:
                link = Link(span.get_span_context())
                try:
                    await catalog.refresh(lambda: self.owner._traced_fetch(conn, links=[link]))
                except Exception as exc:  # boundary: keep the old listing
                    logger.debug("tools/list refresh after unknown tool failed (%s)", type(exc).__qualname__)
        # Tool names are the peer's words: scrubbed and bounded like any other name echoed to the model.
        available = ", ".join(safe_name(name) for name in catalog.names[:_MAX_LISTED]) or "none"
        if len(catalog.names) > _MAX_LISTED:
            available += f" and {len(catalog.names) - _MAX_LISTED} more"
        if self.tool in catalog and not listed_before:
            self.appeared = True
            head = f"{self.tool} was just re-listed by the server."
        elif self.tool in catalog:
            head = f"The server says {self.tool} does not exist, although it lists it. Available: {available}."
        elif was_known:
            head = f"{self.tool} is no longer available. Available: {available}."
        else:
            head = f"Tool `{self.tool}` does not exist. Available: {available}."
        return self._fail(channel, FailureClass.NOT_FOUND, head, ref=ref, advice="", result=result)

    def _other_protocol_error(self, code: int, message: str, data: dict[str, Any], ref: str | None) -> ToolCallResult:
        server_class = _as_class(data.get(META_FAILURE_CLASS))
        if server_class is not None:
            cls = server_class
        else:
            cls = class_for_jsonrpc_code(code)
            if cls is FailureClass.UNKNOWN or code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
                text_cls = classify_text(message)
                cls = text_cls if text_cls is not FailureClass.UNKNOWN else cls
        retry_after = delay_seconds(_float(data.get(META_RETRY_AFTER))) or (
            retry_after_from_text(message) if cls is FailureClass.RATE_LIMITED else None
        )
        excerpt = safe_excerpt(message)
        head = f"{self.tool} was refused by the server: {excerpt}." if excerpt else f"{self.tool} was refused by the server."
        return self._fail(Channel.PROTOCOL, cls, head, ref=ref, retry_after=retry_after)

    def _finish_span(
        self,
        span: Span,
        attributes: dict[str, Any],
        *,
        started: float,
        result: ToolCallResult | None = None,
        outcome: Outcome | None = None,
        end: bool = True,
    ) -> None:
        outcome = result.outcome if result is not None else outcome
        assert outcome is not None
        attributes[ERRSCOPE_OUTCOME] = outcome.value
        extra: dict[str, Any] = {ERRSCOPE_OUTCOME: outcome.value}
        if result is not None and result.failure_class is not None:
            extra[ERRSCOPE_FAILURE_CLASS] = result.failure_class.value
            attributes[ERRSCOPE_FAILURE_CLASS] = result.failure_class.value
            if result.channel is not None:
                extra[ERRSCOPE_CHANNEL] = result.channel.value
                attributes[ERRSCOPE_CHANNEL] = result.channel.value
            if result.error_ref:
                extra[ERRSCOPE_ERROR_REF] = result.error_ref
            if result.retry_after is not None:
                extra[ERRSCOPE_RETRY_AFTER] = float(result.retry_after)
        for key in (ERROR_TYPE, RPC_RESPONSE_STATUS_CODE):
            if key in attributes:
                extra[key] = attributes[key]
        span.set_attributes(extra)
        if outcome is not Outcome.OK:
            description = result.failure_class.value if result is not None and result.failure_class else outcome.value
            span.set_status(StatusCode.ERROR, description)
        metric = dict(attributes)
        if self.tool not in self.owner.catalog:
            metric.pop(GEN_AI_TOOL_NAME, None)  # a name the server does not list is not a label value
        self.owner.telemetry.record_duration(anyio.current_time() - started, metric)
        if end:
            span.end()


async def _end_after(span: Span, delay: float) -> None:
    try:
        await anyio.sleep(delay)
    finally:
        span.end()


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _as_class(value: Any) -> FailureClass | None:
    """The failure class a server put in ``_meta``/``data``, if it is one of the closed set."""
    try:
        return FailureClass(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _ref_of(fields: Mapping[str, Any]) -> str | None:
    """The server's error ref from ``_meta``/``data``, only if it has the ref's shape: it is echoed to
    the model and put on the span, so a peer's arbitrary string must not ride along."""
    value = fields.get(META_ERROR_REF)
    return value if isinstance(value, str) and ERROR_REF_PATTERN.fullmatch(value) else None


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None
