"""Client telemetry: one CLIENT span per ``tools/call`` attempt, the duration metric, propagation.

Span: ``tools/call {tool}``, kind CLIENT, semantic-convention attributes from
:mod:`errscope._attributes`, plus ``errscope.*`` (outcome, channel, class, ref, attempt, retry,
hashed idempotency key). Retries of one logical call link to the earlier attempts' spans. The
status description is the failure class, never server text.

The SDK's own ``MCP send tools/call …`` CLIENT span is *suppressed* for calls made through
errscope: while an errscope attempt is current, the SDK's tracer (``mcp.shared._otel._tracer``)
is answered with a non-recording span that carries errscope's span context. That leaves exactly
one client span per attempt, keeps the server span a direct child of it, and keeps the SDK from
copying the server's error message into a span status (reference/mcp-sdk-2.3.md, pitfall 2).
Calls made on the underlying ``mcp.Client`` directly are untouched. If the SDK's private tracer
attribute is ever renamed, the patch is skipped and the SDK span simply nests under ours. The SDK's
own trace injection into an attempt's ``tools/call`` is skipped too: the wire tap replaces those
keys with errscope's, so the SDK's would be formatted only to be thrown away.

Propagation: ``traceparent``/``tracestate`` of errscope's span go in ``params._meta`` (and, on
streamable HTTP, in the request headers); a ``traceparent`` the caller put in ``meta`` is kept
verbatim and errscope's span joins that trace as its child. Baggage crosses only for keys on the
allow-list (the SDK alone would forward all of it, pitfall 13).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from opentelemetry import baggage, context, propagate, trace
from opentelemetry.metrics import Counter, Histogram, MeterProvider, get_meter
from opentelemetry.trace import INVALID_SPAN, INVALID_SPAN_CONTEXT, Link, NonRecordingSpan, Span, SpanContext, SpanKind, StatusCode, Tracer, TracerProvider

from errscope._attributes import (
    DURATION_BUCKETS,
    ERROR_TYPE,
    ERRSCOPE_CHANNEL,
    ERRSCOPE_ERROR_REF,
    ERRSCOPE_ATTEMPT,
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_IDEMPOTENCY_KEY_HASH,
    ERRSCOPE_LATE_RESPONSES,
    ERRSCOPE_MODEL_TEXT,
    ERRSCOPE_OUTCOME,
    ERRSCOPE_PROGRESS_NOTIFICATIONS,
    ERRSCOPE_RETRY_AFTER,
    ERRSCOPE_RETRY_STOP_REASON,
    ERRSCOPE_SIDE_EFFECT_POSSIBLE,
    GEN_AI_TOOL_NAME,
    JSONRPC_REQUEST_ID,
    MCP_CLIENT_OPERATION_DURATION,
    MCP_PROTOCOL_VERSION,
    MCP_SESSION_ID,
    METRIC_ATTRIBUTES,
    RPC_RESPONSE_STATUS_CODE,
)
from errscope._messages import safe_name
from errscope._tables import observe_table_sizes
from errscope._version import __version__
from errscope._vocabulary import Outcome
from errscope.client._keys import key_hash
from errscope.client._result import ToolCallResult
from errscope.client._wire import CURRENT_ATTEMPT

__all__ = ["ClientTelemetry", "install_sdk_span_suppression", "log_shown_to_model", "trace_meta"]

_SCOPE = "errscope.client"
_LEARNED_DURING_THE_CALL = (
    ERROR_TYPE,
    RPC_RESPONSE_STATUS_CODE,
    MCP_PROTOCOL_VERSION,
    MCP_SESSION_ID,
    JSONRPC_REQUEST_ID,
    ERRSCOPE_PROGRESS_NOTIFICATIONS,
)
"""Attributes known only once the attempt is under way, written to the span when it ends."""
_log = logging.getLogger(_SCOPE)


class ClientTelemetry:
    """Tracer and duration histogram for the client, from the given or global providers."""

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
    ) -> None:
        self.tracer: Tracer = trace.get_tracer(_SCOPE, __version__, tracer_provider=tracer_provider)
        meter = get_meter(_SCOPE, __version__, meter_provider=meter_provider)
        self.duration: Histogram = meter.create_histogram(
            MCP_CLIENT_OPERATION_DURATION,
            unit="s",
            description="Duration of an MCP request as seen by the client (one point per attempt).",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        self.late_responses: Counter = meter.create_counter(
            ERRSCOPE_LATE_RESPONSES,
            unit="{response}",
            description="Answers that arrived after the client had given up on the attempt.",
        )
        observe_table_sizes(meter_provider)

    def start_span(
        self,
        name: str,
        *,
        attributes: Mapping[str, Any],
        links: Sequence[Link] = (),
        parent: context.Context | None = None,
    ) -> Span:
        return self.tracer.start_span(name, context=parent, kind=SpanKind.CLIENT, attributes=attributes, links=links)

    def record_duration(self, seconds: float, attributes: Mapping[str, Any]) -> None:
        self.duration.record(seconds, {k: v for k, v in attributes.items() if k in METRIC_ATTRIBUTES and v is not None})

    def finish_attempt(
        self,
        span: Span,
        attributes: dict[str, Any],
        *,
        seconds: float,
        result: ToolCallResult | None = None,
        outcome: Outcome | None = None,
        tool_listed: bool = True,
        end: bool = True,
    ) -> None:
        """Write an attempt's ending onto its span (in one call) and record its duration.

        ``attributes`` are the span's start attributes plus what the call learned (the metric keeps
        only :data:`METRIC_ATTRIBUTES` of them); ``tool_listed=False``
        drops the tool name from the metric: a name the server does not list is not a label value.
        """
        outcome = result.outcome if result is not None else outcome
        assert outcome is not None
        attributes[ERRSCOPE_OUTCOME] = outcome_value = outcome.value  # an enum's .value is two Python calls
        extra: dict[str, Any] = {ERRSCOPE_OUTCOME: outcome_value}
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
            if result.side_effect_possible is not None:
                extra[ERRSCOPE_SIDE_EFFECT_POSSIBLE] = result.side_effect_possible
                attributes[ERRSCOPE_SIDE_EFFECT_POSSIBLE] = result.side_effect_possible
        for key in _LEARNED_DURING_THE_CALL:
            if key in attributes:
                extra[key] = attributes[key]
        span.set_attributes(extra)
        if outcome is not Outcome.OK:
            description = result.failure_class.value if result is not None and result.failure_class else outcome.value
            span.set_status(StatusCode.ERROR, description)
        metric = attributes if tool_listed else {k: v for k, v in attributes.items() if k != GEN_AI_TOOL_NAME}
        self.record_duration(seconds, metric)
        if end:
            span.end()


def log_shown_to_model(result: ToolCallResult, last_attempt: SpanContext | None, *,
                       retry_stop_reason: str | None = None) -> None:
    """One INFO record on the ``errscope.client`` logger for a call that did not succeed.

    It carries the text the model gets (:data:`~errscope._attributes.ERRSCOPE_MODEL_TEXT`), the
    ref, class, outcome, request ids, attempts and the key's hash, in the trace of the last attempt
    (``last_attempt``), and for a failure of a class the policy retries why no further attempt went
    (``retry_stop_reason``, :data:`~errscope._attributes.ERRSCOPE_RETRY_STOP_REASON`): ``errscope explain ERR-…``
    starts from it ("what the model saw"), the link
    from the user's report to the server's span. A success writes nothing (its text is the tool's
    data, not errscope's to log).
    """
    if not _log.isEnabledFor(logging.INFO):
        return
    extra: dict[str, Any] = {
        ERRSCOPE_MODEL_TEXT: result.text,
        GEN_AI_TOOL_NAME: safe_name(result.tool),
        ERRSCOPE_OUTCOME: result.outcome.value,
        ERRSCOPE_ATTEMPT: result.attempts,
    }
    for key, value in (
        (ERRSCOPE_ERROR_REF, result.error_ref),
        (ERRSCOPE_CHANNEL, result.channel.value if result.channel else None),
        (ERRSCOPE_FAILURE_CLASS, result.failure_class.value if result.failure_class else None),
        (JSONRPC_REQUEST_ID, ",".join(str(i) for i in result.request_ids) or None),
        (ERRSCOPE_IDEMPOTENCY_KEY_HASH, key_hash(result.idempotency_key) if result.idempotency_key else None),
        (ERRSCOPE_RETRY_STOP_REASON, retry_stop_reason),
    ):
        if value is not None:
            extra[key] = value
    kind = result.failure_class.value if result.failure_class else result.outcome.value
    token = context.attach(trace.set_span_in_context(NonRecordingSpan(last_attempt))) if last_attempt else None
    try:
        _log.info("tool result shown to the model: %s %s %s", extra[GEN_AI_TOOL_NAME], kind, result.error_ref or "-",
                  extra=extra)
    finally:
        if token is not None:
            context.detach(token)


def trace_meta(
    span: Span,
    *,
    caller_meta: Mapping[str, Any] | None,
    baggage_allow: frozenset[str],
) -> dict[str, str]:
    """The trace keys for ``params._meta``: ours, or the caller's ``traceparent`` kept verbatim."""
    carrier: dict[str, str] = {}
    if caller_meta and isinstance(caller_meta.get("traceparent"), str):
        carrier["traceparent"] = caller_meta["traceparent"]
        if isinstance(caller_meta.get("tracestate"), str):
            carrier["tracestate"] = caller_meta["tracestate"]
    else:
        # What TraceContextTextMapPropagator.inject writes for ``span``, formatted here without building a
        # Context for it (W3C Trace Context §3.2 traceparent, §3.3 tracestate).
        span_context = span.get_span_context()
        if span_context != INVALID_SPAN_CONTEXT:
            carrier["traceparent"] = (
                f"00-{span_context.trace_id:032x}-{span_context.span_id:016x}-{span_context.trace_flags:02x}"
            )
            if span_context.trace_state:
                carrier["tracestate"] = span_context.trace_state.to_header()
    if not baggage_allow:
        return carrier
    allowed = {k: v for k, v in baggage.get_all().items() if k in baggage_allow}
    if allowed:
        ctx = context.Context()
        for key, value in allowed.items():
            ctx = baggage.set_baggage(key, value, ctx)
        bag: dict[str, str] = {}
        propagate.inject(bag, context=ctx)
        if "baggage" in bag:
            carrier["baggage"] = bag["baggage"]
    return carrier


def caller_parent(caller_meta: Mapping[str, Any] | None) -> context.Context | None:
    """The context to parent our span on when the caller supplied its own ``traceparent``."""
    if not caller_meta or not isinstance(caller_meta.get("traceparent"), str):
        return None
    ctx = propagate.extract({k: v for k, v in caller_meta.items() if k in ("traceparent", "tracestate")})
    if not trace.get_current_span(ctx).get_span_context().is_valid:
        return None
    return ctx


class _SuppressingTracer:
    """Delegates to the SDK's tracer, except CLIENT spans started inside an errscope attempt."""

    def __init__(self, inner: Any) -> None:
        self._errscope_inner = inner

    def start_as_current_span(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if CURRENT_ATTEMPT.get() is not None and kwargs.get("kind") is SpanKind.CLIENT:
            return _BORROWED
        return self._errscope_inner.start_as_current_span(name, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._errscope_inner, name)


class _Borrowed:
    """Yields a non-recording span in place of the SDK's own, so the SDK's status and attributes (with the
    server's message) go nowhere. Nothing is attached: errscope's span stays the current one, the parent of
    whatever the SDK's call starts (the SDK only writes to the span it is given, never reads its context), so
    one stateless instance serves every attempt."""

    __slots__ = ()

    def __enter__(self) -> Span:
        return INVALID_SPAN

    def __exit__(self, *exc_info: object) -> None:
        return None


_BORROWED = _Borrowed()


def _inject_unless_tapped(inject: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    """The SDK's ``inject_trace_context``, skipped for the ``tools/call`` of an errscope attempt (the
    first request the attempt writes): the wire tap puts errscope's trace keys in its ``_meta``."""

    def inject_trace_context(meta: dict[str, Any]) -> None:
        attempt = CURRENT_ATTEMPT.get()
        if attempt is None or attempt.request_id is not None:
            inject(meta)

    inject_trace_context.__errscope_inner__ = inject  # type: ignore[attr-defined]
    return inject_trace_context


def install_sdk_span_suppression() -> bool:
    """Patch the SDK's client tracer and trace injection once (idempotent); ``False`` when the SDK
    layout is unknown (the SDK's span then nests under ours and its keys are replaced by the tap)."""
    try:
        from mcp.shared import _otel, jsonrpc_dispatcher
    except ImportError:  # pragma: no cover - the SDK moved its OTel helpers
        return False
    inner = getattr(_otel, "_tracer", None)
    if inner is None:
        return False
    if not isinstance(inner, _SuppressingTracer):
        _otel._tracer = _SuppressingTracer(inner)  # type: ignore[assignment]
    inject = getattr(jsonrpc_dispatcher, "inject_trace_context", None)
    if inject is not None and not hasattr(inject, "__errscope_inner__"):
        jsonrpc_dispatcher.inject_trace_context = _inject_unless_tapped(inject)
    return True
