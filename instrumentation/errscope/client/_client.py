"""``ToolClient``: calls tools through ``mcp.Client`` and returns, for every call, what to hand the
model plus the structured facts (channel, class, ref, outcome, retry advice, attempts).

The work is split by responsibility:

- :mod:`errscope.client._connection`: transport, session lifecycle, reconnects, tool listing;
- :mod:`errscope.client._call`: one logical call and its attempts (span, wire, timers, breaker);
- :mod:`errscope.client._retry`: whether another attempt goes out;
- :mod:`errscope.client._deadline` and :mod:`errscope.client._late`: timeouts and late answers;
- :mod:`errscope.client._shaping`: the host-facing :class:`ToolCallResult` of every ending.

Nothing raised by a misbehaving server (garbage frames, a closed stream, wrong ids, unreadable
results) escapes :meth:`ToolClient.call_tool`; each becomes an honest note. Only the host's own
cancellation propagates.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import anyio
from mcp.client._transport import Transport
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import Tool
from opentelemetry import trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import StatusCode, TracerProvider

from errscope._attributes import ERROR_TYPE, MCP_METHOD_NAME, META_IDEMPOTENCY_KEY, RPC_RESPONSE_STATUS_CODE
from errscope._tables import Table, expiring_table
from errscope._vocabulary import Outcome
from errscope.client._breaker import CircuitBreaker
from errscope.client._call import ERROR_TYPE_TIMEOUT, LogicalCall, ProgressFn
from errscope.client._catalog import ToolCatalog
from errscope.client._connection import ServerConnection, describe
from errscope.client._deadline import TimeoutPolicy
from errscope.client._keys import new_idempotency_key
from errscope.client._result import ToolCallResult
from errscope.client._shaping import sent_again_on_declaration
from errscope.client._retry import RetryPolicy
from errscope.client._telemetry import ClientTelemetry, install_sdk_span_suppression, log_shown_to_model
from errscope.client._wire import WireTap

__all__ = ["ConnectionState", "ProbeResult", "ToolClient"]

logger = logging.getLogger("errscope.client")
"""Records name exception types only: a traceback would carry the peer's own (unscrubbed) text."""


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


class ToolClient:
    """Call MCP tools with honest notes for the model and one span per attempt.

    Timing: by default an attempt is abandoned after **30 s** without an answer or a progress
    notification (the *idle* timeout; each ``notifications/progress`` for the request restarts it),
    and after **300 s** whatever progress says (the hard ceiling, ``10 * idle`` unless
    :class:`TimeoutPolicy` sets it; MCP spec, Cancellation > Timeouts: "SHOULD always enforce a
    maximum timeout"). A timed-out call is reported as "may have happened" and is repeated
    automatically only for a tool the server declares safe to repeat (see
    :mod:`errscope.client._retry`). An idle timeout below ``min_timeout`` (1 s) is used as given but
    logs one warning per client: it is shorter than a round trip on a loaded machine.

    Args:
        server: a streamable HTTP URL, ``StdioServerParameters``, or any ``mcp`` ``Transport``
            factory (a zero-argument callable returning a fresh transport, so sessions can be
            re-opened). A string that is not an ``http(s)://`` URL with a host raises ``ValueError``,
            anything else ``TypeError``, here rather than on every call.
        timeout: idle timeout in seconds (default 30), or a :class:`TimeoutPolicy` (idle + hard ceiling).
        retry: the :class:`RetryPolicy`; ``None`` disables automatic retries.
        breaker: the server's :class:`CircuitBreaker` (a fresh one by default).
        idempotency_keys: attach a fresh key to every logical call (default ``True``).
        idempotency_meta_key: the ``_meta`` name of the key (default ``io.errscope/idempotency_key``).
        baggage_allow: baggage keys that may cross to the server; none by default.
        connect_timeout: seconds allowed to start the server (stdio) and open a session: 60 by default, the
            TypeScript SDK's default request timeout, which covers ``initialize`` (a server run by ``npx -y`` or
            ``uvx`` may download itself first, and a loaded machine starts Python servers slowly).
        late_response_grace: seconds a timed-out attempt's span stays open to record a late answer.
        mode: ``mcp.Client`` protocol mode (``auto``, ``legacy`` or a modern version).
        tracer_provider, meter_provider: OpenTelemetry providers; the global ones by default.
        client_options: extra keyword arguments for ``mcp.Client``.
        http_max_connections: connection pool size on streamable HTTP (one request holds one).
        min_timeout: seconds; an idle timeout below it logs one warning per client.
        max_model_text: characters of a successful result's text handed to the model; longer text
            is cut with a note (the whole result stays in :attr:`ToolCallResult.result`).

    Raises:
        ValueError: a timeout (here or :meth:`call_tool`'s) that is not a positive number of seconds.
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
        connect_timeout: float = 60.0,
        late_response_grace: float = 1.0,
        mode: str = "auto",
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        client_options: Mapping[str, Any] | None = None,
        http_max_connections: int = 100,
        min_timeout: float = 1.0,
        max_model_text: int = 100_000,
    ) -> None:
        self.target = describe(server)
        self.timeout = timeout if isinstance(timeout, TimeoutPolicy) else TimeoutPolicy(idle=float(timeout))
        self.retry = retry if retry is not None else RetryPolicy(max_attempts=1)
        self.breaker = breaker if breaker is not None else CircuitBreaker()
        self.idempotency_keys = idempotency_keys
        self.idempotency_meta_key = idempotency_meta_key
        self.baggage_allow = frozenset(baggage_allow)
        self.late_response_grace = late_response_grace
        self.min_timeout = min_timeout
        self.max_model_text = max_model_text
        self._warned_short_timeout = False
        self._check_timeout(self.timeout)
        self.client_options = dict(client_options or {})
        self.catalog = ToolCatalog()
        self.telemetry = ClientTelemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
        self.connection = ServerConnection(
            server,
            catalog=self.catalog,
            telemetry=self.telemetry,
            mode=mode,
            client_options=self.client_options,
            connect_timeout=connect_timeout,
            list_timeout=self.timeout.idle,
            http_max_connections=http_max_connections,
        )
        self._stack: AsyncExitStack | None = None
        # Links of a logical call that did not succeed, for a retry that reuses its key (within minutes or not at all).
        self._key_links = expiring_table(Table.KEY_LINKS, maxsize=1024, ttl=600.0)
        install_sdk_span_suppression()

    # -- lifecycle --------------------------------------------------------------------------------
    async def __aenter__(self) -> ToolClient:
        self._stack = AsyncExitStack()
        self.connection.tg = await self._stack.enter_async_context(anyio.create_task_group())
        await self.connection.ensure()  # a failure here is reported by the first call, not raised
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._stack is not None and self.connection.tg is not None
        self.connection.tg.cancel_scope.cancel()
        self.connection.close()
        await self._stack.aclose()
        self.connection.tg = None

    @property
    def state(self) -> ConnectionState:
        """Connection state as a host would display it."""
        if not self.breaker.would_allow():
            return ConnectionState.CIRCUIT_OPEN
        if self.connection.alive:
            return ConnectionState.CONNECTED
        return ConnectionState.DISCONNECTED

    @property
    def tap(self) -> WireTap | None:
        """The current connection's wire tap (tests read the wire through it)."""
        return self.connection.tap

    @property
    def protocol_version(self) -> str | None:
        return self.connection.protocol_version

    # -- discovery ---------------------------------------------------------------------------------
    async def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        """The tools the model may call (cached; ``refresh=True`` re-lists now)."""
        conn = await self.connection.ensure()
        if conn is not None and (refresh or not self.catalog.listed or self.catalog.stale):
            try:
                await self.catalog.refresh(lambda: self.connection.traced_fetch(conn, links=()))
            except Exception as exc:  # boundary: keep the last good listing
                logger.debug("tools/list failed (%s)", type(exc).__qualname__)
        return [t for name in self.catalog.names if (t := self.catalog.get(name)) is not None]

    async def probe(self, method: str, *, force: bool = False) -> ProbeResult:
        """Send a discovery request (``resources/list``, ``prompts/list``, ``resources/templates/list``).

        Without ``force`` nothing is sent for a capability the server did not advertise. An error
        reply is request-scoped: it is recorded on this request's span only, never changes
        :attr:`state`, and never triggers a tool-list refresh (case D24).
        """
        conn = await self.connection.ensure()
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

    def _check_timeout(self, policy: TimeoutPolicy) -> None:
        if policy.idle < self.min_timeout and not self._warned_short_timeout:
            self._warned_short_timeout = True
            logger.warning(
                "errscope ToolClient for %s: idle timeout %g s is below %g s; calls may time out before "
                "the server can answer (warned once per client)",
                self.target.display,
                policy.idle,
                self.min_timeout,
            )

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
            self._check_timeout(policy)
        key = idempotency_key or (new_idempotency_key() if self.idempotency_keys else None)
        call = LogicalCall(
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
        first = await call.attempt(1)
        # A success ends the call here: the retry policy (a coroutine more) is entered only after a failure.
        result, count = (first, 1) if first.outcome is Outcome.OK else await self.retry.run(call, first=first)
        result = call.standing or result  # a retry that never left does not hide what the sent one said
        if call.appeared:
            # The tool appeared after re-listing: one more attempt, never a loop.
            result = await call.attempt(count + 1)
            count += 1
        request_ids = tuple(call.request_ids)
        if (result.attempts, result.idempotency_key, result.request_ids) != (count, key, request_ids):
            # A frozen result is rebuilt whole: only when a retry, a failure or a re-list changed the facts.
            result = replace(result, attempts=count, idempotency_key=key, request_ids=request_ids)
        if call.repeated_on is not None and result.outcome is not Outcome.OK and count > 1:
            # Repeated on the server's word alone (a hint is a claim, not a guarantee): the model is told how often it
            # went out, since each attempt may have acted (PrimeIntellect-ai/verifiers PR #2154: mis-declared tools).
            result = replace(result, text=sent_again_on_declaration(result.text, result.error_ref, name, count,
                                                                    call.repeated_on))
        if result.outcome is not Outcome.OK:  # not the property: a Python call
            if key is not None:  # only a call that did not succeed is retried with its key
                self._key_links[key] = call.links[-8:]
            stop = self.retry.stop_reason(result, safe_to_repeat=call.safe_to_repeat(), undelivered=call.undelivered,
                                          held=call.held)
            log_shown_to_model(result, call.links[-1].context if call.links else None, retry_stop_reason=stop)
        return result
