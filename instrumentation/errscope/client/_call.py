"""One logical tool call and its attempts.

Each attempt:

1. breaker check (per server; only transport failures count);
2. one CLIENT span, trace keys into ``params._meta``, idempotency key into ``_meta``;
3. the call with no SDK timeout, under errscope's idle timer + hard ceiling (progress resets the
   idle timer); when a timer fires the SDK sends exactly one ``notifications/cancelled``;
4. the outcome classified once (:mod:`errscope.client._shaping`): from the server's ``_meta`` when
   it is an errscope server, from the JSON-RPC code, from the text of a foreign result, or from
   how a local failure arose.

Whether another attempt goes out is the retry policy's decision (:mod:`errscope.client._retry`).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Protocol

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND, REQUEST_TIMEOUT, URL_ELICITATION_REQUIRED, CallToolResult
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, Span

from errscope._attributes import (
    ERROR_TYPE,
    ERRSCOPE_ATTEMPT,
    ERRSCOPE_IDEMPOTENCY_KEY_HASH,
    ERRSCOPE_PROGRESS_NOTIFICATIONS,
    ERRSCOPE_RETRY,
    EXECUTE_TOOL,
    GEN_AI_OPERATION_NAME,
    GEN_AI_TOOL_NAME,
    JSONRPC_REQUEST_ID,
    MCP_METHOD_NAME,
    MCP_PROTOCOL_VERSION,
    MCP_SESSION_ID,
    NETWORK_TRANSPORT,
    RPC_RESPONSE_STATUS_CODE,
    SERVER_ADDRESS,
    SERVER_PORT,
)
from errscope._foreign_text import about_the_result, names_no_cause
from errscope._messages import safe_name
from errscope._vocabulary import Channel, FailureClass, Outcome
from errscope.client import _answer as answer
from errscope.client import _shaping as shape
from errscope.client._deadline import CallDeadline, TimeoutKind, TimeoutPolicy
from errscope.client._invalid_params import invalid_params_note, missing_required, names_this_tool_unknown
from errscope.client._keys import key_hash
from errscope.client._late import LateWatch, end_after
from errscope.client._result import ToolCallResult
from errscope.client._telemetry import caller_parent, trace_meta
from errscope.client._wire import CURRENT_ATTEMPT, WireAttempt

if TYPE_CHECKING:
    from errscope.client._breaker import CircuitBreaker
    from errscope.client._catalog import ToolCatalog
    from errscope.client._connection import ServerConnection, Target
    from errscope.client._telemetry import ClientTelemetry

__all__ = ["LogicalCall", "ProgressFn"]

logger = logging.getLogger("errscope.client")

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]

# error.type values for failures with no JSON-RPC code (semconv: low cardinality, documented).
ERROR_TYPE_TIMEOUT = "timeout"
ERROR_TYPE_CONNECTION = "connection_error"
ERROR_TYPE_CIRCUIT_OPEN = "circuit_open"
ERROR_TYPE_UNREADABLE = "_OTHER"
ERROR_TYPE_UNENCODABLE = "unencodable_arguments"


def _unencodable_argument(arguments: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first argument JSON-RPC cannot carry as given, and why; None: every one can be sent.

    Two kinds: a string no UTF-8 encodes (a lone UTF-16 surrogate such as ``"\\ud800"`` decoded from a model's
    JSON; MCP messages are UTF-8 JSON-RPC: MCP, Transports; RFC 8259 §8.1), and a number JSON has no form for (NaN,
    Infinity: RFC 8259 §6 "are not permitted"), which the SDK's serialiser would silently send as ``null``, so the
    tool would run with a value nobody chose.
    """
    for name, value in arguments.items():
        if type(value) is str and value.isascii() and type(name) is str and name.isascii():
            continue  # the common argument, checked here without two calls of _unencodable
        reason = _unencodable(name) or _unencodable(value)
        if reason is not None:
            shown = name.encode("utf-8", "backslashreplace").decode() if isinstance(name, str) else repr(name)
            return shown, reason
    return None


_SURROGATE = "holds text that cannot be sent (a lone UTF-16 surrogate; MCP messages are UTF-8)"
_NOT_A_NUMBER = "holds a number JSON cannot carry (NaN or Infinity; RFC 8259 §6); it would arrive as null"


def _unencodable(value: Any) -> str | None:
    if isinstance(value, str):
        if value.isascii():
            return None
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return _SURROGATE
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else _NOT_A_NUMBER
    if isinstance(value, Mapping):
        for k, v in value.items():
            reason = _unencodable(k) or _unencodable(v)
            if reason is not None:
                return reason
        return None
    if isinstance(value, (list, tuple)):
        for item in value:
            reason = _unencodable(item)
            if reason is not None:
                return reason
    return None


def _answer_that_stands(answer: dict[str, Any]) -> CallToolResult | None:
    """The tool's answer, when the SDK raised after receiving it, in a request of its own.

    mcp 2.3's ``call_tool`` re-lists tools after a successful answer to check it against the output
    schema; when that ``tools/list`` fails, the call raised the listing's error though the tool had
    answered (python-sdk #2626 and PR #3322, "validate_output"; PR #2441); when it stalls, the call's idle
    timer fired though the tool had answered. The answer stands: the tool ran and said what it said.
    Returns ``None`` when the answer is not a ``CallToolResult``.
    """
    try:
        return CallToolResult.model_validate(answer)
    except ValueError:
        return None


class CallOwner(Protocol):
    """What a call reads from the ``ToolClient`` that made it: its server's state and the client's settings."""

    target: Target
    connection: ServerConnection
    catalog: ToolCatalog
    breaker: CircuitBreaker
    telemetry: ClientTelemetry
    idempotency_meta_key: str
    baggage_allow: frozenset[str]
    late_response_grace: float
    """Seconds a timed-out call's span stays open for a late answer."""
    max_model_text: int


@dataclass(slots=True, eq=False)
class LogicalCall:
    """What every attempt of one ``call_tool`` shares: the tool, arguments, key, and the trail."""

    owner: CallOwner
    tool: str
    arguments: dict[str, Any]
    key: str | None
    policy: TimeoutPolicy
    caller_meta: dict[str, Any]
    progress_callback: ProgressFn | None
    timeout_hint: str | None = None
    links: list[Link] = field(default_factory=list)
    """The spans of the attempts that did not succeed (a success ends the call: it needs none)."""
    request_ids: list[Any] = field(default_factory=list)
    unknown_tool: bool = False
    refreshed: bool = False
    appeared: bool = False
    standing: ToolCallResult | None = None
    """The outcome the logical call reports: the latest attempt whose request was written, else the
    latest one not held back by the breaker, else the latest (a retry that never left says less)."""
    _standing_rank: int = -1
    undelivered: bool = False
    """The latest attempt certainly never reached the tool: it may be sent again at the transport layer."""
    held: bool = False
    """The latest attempt was held back by the open circuit breaker."""
    repeated_on: str | None = None
    """The server's declaration an attempt was repeated on after one that may have run (``readOnlyHint``,
    ``idempotentHint``, the honoured key), ``None`` while every repeat was of an attempt that never reached the tool."""

    def safe_to_repeat(self) -> bool:
        """The server's latest declaration (re-read before every retry: ``list_changed`` may withdraw it)."""
        return self.owner.catalog.is_safe_to_repeat(self.tool, keyed=self.key is not None)

    # -- one attempt ---------------------------------------------------------------------------------
    async def attempt(self, number: int) -> ToolCallResult:
        owner = self.owner
        if number > 1 and not self.undelivered and not self.held:
            # The attempt before may have run: this one rests on the server's word that a repeat is harmless.
            self.repeated_on = owner.catalog.repeat_basis(self.tool, keyed=self.key is not None) or self.repeated_on
        name = safe_name(self.tool)  # the model's words, echoed into telemetry: scrubbed, bounded (cached)
        attributes: dict[str, Any] = {
            MCP_METHOD_NAME: "tools/call",
            GEN_AI_TOOL_NAME: name,
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
            f"tools/call {name}",
            attributes=attributes,
            links=list(self.links) if self.links else (),  # the common first attempt links nothing
            parent=caller_parent(self.caller_meta) if self.caller_meta else None,
        )
        started = time.perf_counter()  # the span's and the metric's duration (LateWatch reads the same clock)
        wire = WireAttempt(trace_meta=trace_meta(span, caller_meta=self.caller_meta, baggage_allow=owner.baggage_allow))
        try:
            result = await self._attempt_on_wire(span, wire, attributes, started)
        except BaseException:
            # The host cancelled us (or we are shutting down): record it and let it propagate.
            self._finish_span(span, attributes, outcome=Outcome.CANCELLED, seconds=time.perf_counter() - started)
            owner.breaker.release()
            raise
        ended = time.perf_counter()
        failed = result.outcome is not Outcome.OK
        if failed:  # what a retry, a later retry with the key, and the log record link to
            self.links.append(Link(span.get_span_context(), {ERRSCOPE_ATTEMPT: number}))
        late = wire.late
        if late is not None:  # only an attempt that ended without its answer can get a late one
            late.request_id, late.ref, late.gave_up_at = wire.request_id, result.error_ref, ended
        self.held = wire.held
        self.undelivered = wire.undelivered
        rank = 2 if wire.written else 0 if wire.held else 1
        if rank >= self._standing_rank:
            self.standing, self._standing_rank = result, rank
        tg = owner.connection.tg
        keep_open = result.outcome is Outcome.TIMEOUT and owner.late_response_grace > 0 and tg is not None
        owner.telemetry.finish_attempt(span, attributes, seconds=ended - started, result=result,
                                       tool_listed=self.tool in owner.catalog, end=not keep_open)
        if keep_open:
            assert tg is not None
            tg.start_soon(end_after, span, owner.late_response_grace)
        if failed and owner.catalog.stale:
            # A list_changed arrived with the failure (it may withdraw the promise a retry rests on):
            # whether to retry is decided on the new listing, not the one the call started with.
            await owner.connection.refresh_stale()
        return result

    def _finish_span(
        self,
        span: Span,
        attributes: dict[str, Any],
        *,
        seconds: float,
        result: ToolCallResult | None = None,
        outcome: Outcome | None = None,
        end: bool = True,
    ) -> None:
        self.owner.telemetry.finish_attempt(
            span,
            attributes,
            seconds=seconds,
            result=result,
            outcome=outcome,
            tool_listed=self.tool in self.owner.catalog,
            end=end,
        )

    async def _attempt_on_wire(
        self, span: Span, wire: WireAttempt, attributes: dict[str, Any], started: float
    ) -> ToolCallResult:
        owner = self.owner
        connection = owner.connection
        unencodable = _unencodable_argument(self.arguments)
        if unencodable is not None:  # the caller's mistake, found before anything is sent or counted
            attributes[ERROR_TYPE] = ERROR_TYPE_UNENCODABLE
            argument, reason = unencodable
            return shape.failure(
                self.tool,
                None,
                FailureClass.INVALID_INPUT,
                f"{safe_name(self.tool)} was not called: argument '{safe_name(argument)}' {reason}.",
                side_effect_possible=False,
            )
        if not owner.breaker.allow():
            wire.held = wire.undelivered = True
            attributes[ERROR_TYPE] = ERROR_TYPE_CIRCUIT_OPEN
            return shape.local_failure(
                self.tool,
                f"Tool server {owner.target.display} is unreachable (too many recent failures); no request was sent.",
                side_effect_possible=False,
            )
        conn = connection.current
        if conn is None or not conn.alive:  # the live session is taken as is: no coroutine for it
            conn = await connection.ensure()
        if conn is None or conn.client is None:
            attributes[ERROR_TYPE] = ERROR_TYPE_CONNECTION
            refused = connection.refused
            if refused is not None:  # the server answered: a refusal, not an outage for the breaker
                owner.breaker.record_success()
                wire.undelivered = True
                head = f"Tool server {owner.target.display} {refused.reason}; {safe_name(self.tool)} was not run."
                return shape.failure(self.tool, None, refused.failure_class, head, advice=refused.advice,
                                     side_effect_possible=False)
            owner.breaker.record_failure()
            if connection.exited_at_start or connection.silent_at_start:  # it would again: not re-sent at once
                said = connection.start_answer
                if connection.not_started is not None:  # never ran: no log of its own; the host's log says why
                    note = f"Tool server {owner.target.display} could not be started; no request was sent."
                elif connection.silent_at_start:
                    note = (f"Tool server {owner.target.display} did not answer its start-up handshake in"
                            f" {connection.connect_timeout:g} s; no request was sent.")
                else:
                    ended = "exited while starting" if said is None else f"answered initialize with an error ({said})"
                    note = f"Tool server {owner.target.display} {ended}; no request was sent. Its own log (stderr) says why."
                return shape.local_failure(self.tool, note, side_effect_possible=False)
            wire.undelivered = True
            return self._not_sent()
        if owner.catalog.stale:
            await connection.refresh_stale()
        version = conn.protocol_version
        if version:
            attributes[MCP_PROTOCOL_VERSION] = version
        session_id = connection.session_id
        if session_id:
            attributes[MCP_SESSION_ID] = session_id

        meta = {k: v for k, v in self.caller_meta.items() if k not in ("traceparent", "tracestate", "baggage")} if self.caller_meta else {}
        if self.key is not None:
            meta[owner.idempotency_meta_key] = self.key
        deadline = CallDeadline(self.policy)
        wire.reason_for_cancel = deadline.cancel_reason
        wire_events: list[str] = []
        user_progress = self.progress_callback

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            deadline.touch()
            if user_progress is not None:
                await user_progress(progress, total, message)

        token = CURRENT_ATTEMPT.set(wire)
        ctx_token = otel_context.attach(trace.set_span_in_context(span))
        listener = wire_events.append
        conn.tap.listeners.append(listener)
        raw: CallToolResult | None = None  # stays None when the deadline's timer cancels the call
        try:
            sending = conn.client.call_tool(
                self.tool,
                self.arguments,
                read_timeout_seconds=None,
                progress_callback=on_progress,
                meta=meta or None,  # type: ignore[arg-type]
            )
            if deadline.timer is not None:  # asyncio
                async with deadline.timer:
                    raw = await sending
            else:
                assert deadline.scope is not None
                with deadline.scope:
                    raw = await sending
            error: BaseException | None = None
        except MCPError as exc:
            raw, error = None, exc
        except TimeoutError as exc:
            raw, error = None, (None if deadline.caught(exc) else exc)  # the timer's own: no answer, it fired
        except Exception as exc:  # boundary: a malformed or unexpected reply must not crash the host
            raw, error = None, exc
        finally:
            # Also on the host's own cancellation: the SDK has written its cancel by now.
            deadline.finish()  # every way out, the host's cancellation too: late progress touches nothing
            otel_context.detach(ctx_token)
            CURRENT_ATTEMPT.reset(token)
            conn.tap.forget(wire)
            if wire.response_frames == 0 and wire.request_id is not None:
                # Ended without its answer (the tap now remembers it as such): a late answer is recorded.
                # Set before any other await, so none can arrive unwatched; an answered attempt needs no watch.
                wire.late = LateWatch(span, owner.telemetry.late_responses, self.tool, started)
                wire.on_late = wire.late.arrived
            if listener in conn.tap.listeners:
                conn.tap.listeners.remove(listener)
            if wire.written:  # an id that never left names nothing the server could have logged
                self.request_ids.append(wire.request_id)
                attributes[JSONRPC_REQUEST_ID] = str(wire.request_id)
            for _ in range(wire.cancels_sent):
                span.add_event("cancel_sent", {"reason": wire.cancel_reason or "caller cancelled"})
            for event in wire_events:
                span.add_event(event)
            attributes[ERRSCOPE_PROGRESS_NOTIFICATIONS] = deadline.progress_events

        if raw is None and wire.answer is not None and (deadline.fired is not None or isinstance(error, MCPError)):
            # The tool answered; what failed or stalled after it is the SDK's own follow-up request.
            raw = _answer_that_stands(wire.answer)
        fired = deadline.fired if raw is None else None  # an answer stands whatever the timers did
        if fired is not None:
            attributes[ERROR_TYPE] = ERROR_TYPE_TIMEOUT
            if not wire.written:  # still queued behind earlier messages: nothing reached the server
                owner.breaker.release()
                wire.undelivered = True
                return shape.timed_out_unsent(self.tool, fired, self.policy)
            owner.breaker.record_failure()
            return shape.timed_out(self.tool, fired, self.policy, hint=self.timeout_hint)
        if raw is not None:
            owner.breaker.record_success()
            listed = owner.catalog.get(self.tool) if raw.is_error else None  # the schema reads failures only
            wrapped = answer.wrapped_protocol_error(answer.text_of(raw.content)) if raw.is_error else None
            if wrapped is not None and wrapped[0] == METHOD_NOT_FOUND and shape.runs_only_as_task(listed):
                attributes[ERROR_TYPE] = attributes[RPC_RESPONSE_STATUS_CODE] = str(METHOD_NOT_FOUND)
                return shape.task_required(self.tool, None, result=raw)
            shaped = shape.from_result(
                self.tool,
                raw,
                attributes,
                max_text=owner.max_model_text,
                input_schema=listed.input_schema if listed else None,
                arguments=self.arguments,
                idempotency_key=self.key,
                request_ids=tuple(self.request_ids),
            )
            if shaped is None:
                # D01: a foreign SDK wrapped its own unknown-tool protocol error into an isError result.
                return await self._unknown_tool(span, ref=None, channel=Channel.EXECUTION, result=raw)
            return shaped
        assert error is not None
        if wire.http_status == HTTPStatus.TOO_MANY_REQUESTS:
            # RFC 6585 §4: the server refused to process the request; whatever the body says, nothing ran.
            owner.breaker.record_success()  # it answered
            wire.undelivered = True
            return shape.refused_http_rate_limit(self.tool, self.owner.target.display, wire.http_retry_after)
        if wire.http_status == HTTPStatus.REQUEST_ENTITY_TOO_LARGE:
            owner.breaker.record_success()  # it answered
            wire.undelivered = True
            return shape.refused_http_too_large(self.tool, self.owner.target.display)
        if wire.http_status in (
            HTTPStatus.UNAUTHORIZED, HTTPStatus.FORBIDDEN, HTTPStatus.PROXY_AUTHENTICATION_REQUIRED
        ):
            # MCP, Authorization > Error Handling: a missing, invalid or expired token gets 401, too few
            # scopes 403; refused before any tool code, so nothing ran. Not re-sent: the same token would
            # be refused again (the SDK's auth provider, when there is one, has already tried to refresh).
            # 407 is the same refusal by a proxy between host and server (RFC 9110 §15.5.8).
            owner.breaker.record_success()  # it answered
            return shape.refused_http_auth(self.tool, self.owner.target.display, wire.http_status)
        if isinstance(error, MCPError) and wire.http_redirect is not None and not wire.error_frame:
            # The POST's last answer was a redirect the SDK did not follow (python-sdk PR #3397: only 307/308 within
            # the origin, at most max_redirects times): the request reached no tool (RFC 9110 §15.4). Not re-sent:
            # the same URL would be redirected again.
            return self._never_reached(
                wire,
                attributes,
                f"Tool server {self.owner.target.display} answered with a redirect (HTTP {wire.http_redirect}) "
                f"that was not followed (another origin, a method change, or a loop); {safe_name(self.tool)} was "
                "not run. The server's URL may have changed.",
            )
        if isinstance(error, MCPError) and wire.session_ended:
            # HTTP 404 to our session, with or without a JSON-RPC body (mcp's server sends -32600
            # "Session not found"): the server no longer knows it, so it processed nothing.
            return self._never_reached(
                wire,
                attributes,
                f"The tool server had ended the session; {safe_name(self.tool)} was not run. A new session is opened on the next call.",
            )
        if isinstance(error, MCPError) and wire.transport_failure is not None:
            # The HTTP request failed in transport; the SDK stood in for its answer.
            owner.breaker.record_failure()
            attributes[ERROR_TYPE] = ERROR_TYPE_CONNECTION
            if wire.transport_failure.side_effect_possible is False:
                wire.undelivered = True
                return self._not_sent()
            return self._lost_while_running()
        if isinstance(error, MCPError) and wire.stand_in_frame and wire.gateway_not_forwarded:
            # A gateway answered for the server and said it never reached it (J348): nothing ran.
            return self._never_reached(
                wire,
                attributes,
                f"A gateway in front of tool server {self.owner.target.display} could not reach it "
                f"(HTTP {wire.http_status}); {safe_name(self.tool)} was not run.",
            )
        if isinstance(error, MCPError) and wire.stand_in_frame:
            # The SDK could not read the answer and stood in for it (issue #16): the request was
            # written, so the tool may have run. Not the server refusing; a transport fault.
            owner.breaker.record_failure()
            attributes[ERROR_TYPE] = ERROR_TYPE_UNREADABLE
            return shape.local_failure(
                self.tool,
                f"The answer to {safe_name(self.tool)} could not be read. The call may have run; check before calling again.",
                side_effect_possible=True,
            )
        if isinstance(error, MCPError) and wire.error_frame:
            owner.breaker.record_success()  # the server answered
            wire.undelivered = answer.not_run(error.code, error.data)
            return await self._from_protocol_error(error, span, attributes)
        if isinstance(error, MCPError) and error.code == REQUEST_TIMEOUT and not conn.tap.closed:
            # The SDK's own timer (a Client-level read_timeout_seconds): it already sent the cancel.
            owner.breaker.record_failure()
            attributes[ERROR_TYPE] = ERROR_TYPE_TIMEOUT
            sdk_timeout = answer.as_float(owner.client_options.get("read_timeout_seconds"))
            return shape.timed_out(
                self.tool, TimeoutKind.IDLE, self.policy, hint=self.timeout_hint, idle_seconds=sdk_timeout
            )
        if isinstance(error, MCPError) or conn.tap.closed:
            # No error frame for our id: the SDK raised it locally (connection closed, -32000 band).
            owner.breaker.record_failure()
            attributes[ERROR_TYPE] = ERROR_TYPE_CONNECTION
            if not wire.written:
                wire.undelivered = True
                return self._not_sent()
            return self._lost_while_running()
        owner.breaker.record_success()
        attributes[ERROR_TYPE] = ERROR_TYPE_UNREADABLE
        return shape.failure(
            self.tool,
            None,
            FailureClass.UNKNOWN,
            f"{safe_name(self.tool)} returned a reply the client could not read.",
            side_effect_possible=True,  # something answered: the tool may have run
        )

    def _never_reached(self, wire: WireAttempt, attributes: dict[str, Any], why: str) -> ToolCallResult:
        """A fault between host and tool that the server's answer proves ran nothing: the breaker counts it, the
        attempt is marked undelivered (so the transport layer may re-send it), and the model reads ``why``."""
        self.owner.breaker.record_failure()
        wire.undelivered = True
        attributes[ERROR_TYPE] = ERROR_TYPE_CONNECTION
        return shape.local_failure(self.tool, why, side_effect_possible=False)

    def _not_sent(self) -> ToolCallResult:
        return shape.local_failure(
            self.tool,
            f"Tool server {self.owner.target.display} is unavailable; no request was sent.",
            side_effect_possible=False,
        )

    def _lost_while_running(self) -> ToolCallResult:
        return shape.local_failure(
            self.tool,
            f"The connection to the tool server was lost while {safe_name(self.tool)} was running. It may or may not "
            "have taken effect; check before calling again.",
            side_effect_possible=True,
        )

    async def _from_protocol_error(self, error: MCPError, span: Span, attributes: dict[str, Any]) -> ToolCallResult:
        result = await self._shape_protocol_error(error, span, attributes)
        return replace(result, error=error.error)  # the host gets the error object intact

    async def _shape_protocol_error(self, error: MCPError, span: Span, attributes: dict[str, Any]) -> ToolCallResult:
        code = error.code
        attributes[ERROR_TYPE] = str(code)
        attributes[RPC_RESPONSE_STATUS_CODE] = str(code)
        data = error.data if isinstance(error.data, dict) else {}
        ref = answer.error_ref(data)
        message = error.message or ""
        catalog = self.owner.catalog
        was_known = self.tool in catalog
        if code == METHOD_NOT_FOUND and shape.runs_only_as_task(catalog.get(self.tool)):
            return shape.task_required(self.tool, ref)
        unknown = code == METHOD_NOT_FOUND or any(
            names_this_tool_unknown(text, self.tool) for text in answer.error_texts(message, error.data)
        ) or (
            code == INVALID_PARAMS and catalog.listed and not was_known
        )
        if unknown:
            return await self._unknown_tool(span, ref=ref, channel=Channel.PROTOCOL)
        if code == URL_ELICITATION_REQUIRED:
            return shape.elicitation_required(self.tool, error.error, ref)
        if code == INVALID_PARAMS and any(about_the_result(text) for text in answer.error_texts(message, error.data)):
            return shape.result_rejected(self.tool, message, ref)
        if code == INVALID_PARAMS:
            listed = catalog.get(self.tool)
            note = invalid_params_note(
                self.tool, message, self.arguments, listed.input_schema if listed else None, data=error.data
            )
            return shape.failure(self.tool, Channel.PROTOCOL, FailureClass.INVALID_INPUT, note, ref=ref, advice="",
                                 side_effect_possible=False)
        listed = catalog.get(self.tool)
        missing = missing_required(listed.input_schema if listed else None, self.arguments)
        # (the code of such an error names no cause either: -32603, or the -32000 band SDKs also use for their own
        # transport faults, which an answer that arrived is not)
        if missing and answer.declared_class(data) is None and names_no_cause(message):
            return shape.required_missing(self.tool, missing, ref, may_have_run=not answer.not_run(code, data))
        return shape.other_protocol_error(self.tool, code, message, data, ref, error.data)

    async def _unknown_tool(
        self, span: Span, *, ref: str | None, channel: Channel, result: CallToolResult | None = None
    ) -> ToolCallResult:
        """Re-list once (never a loop), then say the tool is gone and which tools exist."""
        connection = self.owner.connection
        catalog = self.owner.catalog
        listed_before = self.tool in catalog
        was_known = listed_before or self.tool in catalog.retired
        self.unknown_tool = True
        if not self.refreshed:
            self.refreshed = True
            conn = connection.current
            if conn is not None and conn.alive:
                link = Link(span.get_span_context())
                try:
                    await catalog.refresh_after_unknown(lambda: connection.traced_fetch(conn, links=[link]))
                except Exception as exc:  # boundary: keep the old listing
                    logger.debug("tools/list refresh after unknown tool failed (%s)", type(exc).__qualname__)
        if self.tool in catalog and not listed_before:
            self.appeared = True
        head = shape.unknown_tool_head(self.tool, catalog, listed_before=listed_before, was_known=was_known)
        return shape.failure(self.tool, channel, FailureClass.NOT_FOUND, head, ref=ref, advice="", result=result)
