"""One SERVER span, one duration point and, on failure, one log record per tool call.

Span and metric follow the OpenTelemetry semantic conventions for MCP (semconv-genai
``model/mcp``): name ``tools/call {gen_ai.tool.name}``, kind SERVER, ``error.type`` = the JSON-RPC
code for protocol errors and ``tool_error`` for ``isError`` results. Caller mistakes (-32700,
-32600, -32601, -32602) record the code but leave status unset and omit ``error.type``
(semconv-genai PR #404). Status descriptions carry the failure class only, never exception text.
Only the OpenTelemetry API is used; the application configures the SDK.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

import structlog
from opentelemetry import baggage, context, propagate, trace
from opentelemetry.metrics import MeterProvider, get_meter
from opentelemetry.instrumentation.utils import is_instrumentation_enabled
from opentelemetry.trace import INVALID_SPAN_CONTEXT, Link, NonRecordingSpan, Span, SpanKind, StatusCode, TracerProvider
from opentelemetry.semconv.attributes.exception_attributes import (
    EXCEPTION_MESSAGE,
    EXCEPTION_STACKTRACE,
    EXCEPTION_TYPE,
)

from errscope import _attributes as attr
from errscope._call import ToolCall
from errscope._messages import safe_name
from errscope._root_cause import MAX_MESSAGE, RootCause, describe, upstream_said
from errscope._scrubbing import scrub
from errscope._tables import observe_table_sizes
from errscope.processors import add_trace_context, scrub_values
from errscope._version import __version__
from errscope._vocabulary import Channel, Outcome
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR

__all__ = ["CALLER_MISTAKES", "ServerTelemetry"]

CALLER_MISTAKES: Final = frozenset({PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS})
"""JSON-RPC codes that are the caller's fault: not errors on a SERVER span (semconv-genai #404)."""

OTHER: Final = "_OTHER"
"""Metric label value for a tool name not in the server's registry (bounded cardinality)."""

MAX_CONTENT: Final = 4096
"""Characters of captured tool arguments or results (opt-in)."""

_SUPPRESSED: Final = NonRecordingSpan(INVALID_SPAN_CONTEXT)
"""The span of a request served while instrumentation is suppressed: nothing is recorded for it."""

_OK: Final = Outcome.OK.value
"""``errscope.outcome`` of every span at its start (read once: an enum's ``.value`` is two Python calls)."""

_ROOT_CAUSE: Final = "_errscope_root_cause"
"""Event-dict key carrying a :class:`RootCause` past ``scrub_values`` (which passes objects through)."""


def _expand_root_cause(logger: Any, method_name: str, event_dict: Any) -> Any:
    # The root cause was scrubbed when it was built: scrubbing its message and stack trace again
    # would double the failure path's largest cost for nothing.
    root = event_dict.pop(_ROOT_CAUSE, None)
    if isinstance(root, RootCause):
        event_dict.update(_exception_attributes(root))
        event_dict[attr.ERRSCOPE_ERROR_FINGERPRINT] = root.fingerprint
    return event_dict


_failure_logger = logging.getLogger("errscope")  # errscope._explain.FAILURE_LOGGER
_failure_log = structlog.wrap_logger(
    _failure_logger,
    processors=[scrub_values, _expand_root_cause, add_trace_context, structlog.stdlib.render_to_log_kwargs],
    wrapper_class=structlog.stdlib.BoundLogger,
)


class ServerTelemetry:
    """Tracer, meter and the recording rules for one instrumented server.

    Args:
        tracer_provider: defaults to the global provider.
        meter_provider: defaults to the global provider.
        baggage_allowlist: baggage keys accepted from a caller's ``_meta``; the rest are dropped.
        capture_content: record tool arguments and results (scrubbed, at most 4096 characters) as
            ``gen_ai.tool.call.arguments`` / ``.result``; opt-in per the conventions ("may contain
            sensitive information").
    """

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        baggage_allowlist: Sequence[str] = (),
        capture_content: bool = False,
    ) -> None:
        self.capture_content = capture_content
        self.tracer = trace.get_tracer("errscope", __version__, tracer_provider=tracer_provider)
        meter = get_meter("errscope", __version__, meter_provider=meter_provider)
        self.duration = meter.create_histogram(
            attr.MCP_SERVER_OPERATION_DURATION,
            unit="s",
            description="Duration of MCP requests as observed on the receiver, from received to result sent.",
            explicit_bucket_boundaries_advisory=list(attr.DURATION_BUCKETS),
        )
        observe_table_sizes(meter_provider)
        self.baggage_allowlist = frozenset(baggage_allowlist)

    def parent_context(self, meta: Mapping[str, Any] | None, headers: Mapping[str, str] | None) -> context.Context | None:
        """The remote parent: trace context from ``params._meta``, else from HTTP headers (SEP-414).

        ``None`` when the request carries none (the ambient context is then the parent). Baggage is
        kept only for allow-listed keys.
        """
        carrier = meta if meta and "traceparent" in meta else headers
        if not carrier or "traceparent" not in carrier:
            return None
        extracted = propagate.extract({k: v for k, v in carrier.items() if isinstance(v, str)}, context=context.Context())
        for key in baggage.get_all(extracted):
            if key not in self.baggage_allowlist:
                extracted = baggage.remove_baggage(key, extracted)
        return extracted

    def start(self, method: str, attributes: dict[str, Any], parent: context.Context | None) -> Span:
        """Start the SERVER span named after the method.

        With a remote parent, the ambient span (e.g. the HTTP request's) becomes a link (MCP
        semantic conventions, context propagation). The tool name joins the span name in
        :meth:`finish`, once the registry has said the tool exists: a client-chosen name is not a
        span name (cardinality). ``attributes`` gains ``errscope.outcome=ok`` (the span's and the
        metric point's), so the success path sets nothing more on the span.
        """
        if not is_instrumentation_enabled():  # inside suppress_instrumentation() (OpenTelemetry contrib convention)
            return _SUPPRESSED
        attributes[attr.ERRSCOPE_OUTCOME] = _OK
        links = None
        if parent is not None:
            ambient = trace.get_current_span().get_span_context()
            links = [Link(ambient)] if ambient.is_valid else None
        return self.tracer.start_span(method, context=parent, kind=SpanKind.SERVER, attributes=attributes, links=links)

    def finish(
        self,
        span: Span,
        call: ToolCall | None,
        attributes: dict[str, Any],
        seconds: float,
        span_context: context.Context | None = None,
        end_time: int | None = None,
    ) -> None:
        """Set the outcome attributes and status, record the duration, and log a failure once.

        ``span_context`` is a context holding ``span`` (the one the call ran in), for the duration
        point's exemplar; built here when not given. ``end_time``: when the call ended, in ns since
        the epoch (``time.time_ns()``), for a recording made after the fact (the proxy records once
        its answer is written); now when not given. Never raises and always ends the span: it runs
        in the ``finally`` of the call it records, where an exception would replace the call's own answer.
        """
        if span is _SUPPRESSED:
            return
        try:
            self._record(span, call, attributes, seconds, span_context or trace.set_span_in_context(span))
        except Exception:  # telemetry never breaks a tool call
            logging.getLogger(__name__).debug("telemetry for a call dropped", exc_info=False)
        finally:
            span.end(end_time)

    def _record(
        self, span: Span, call: ToolCall | None, attributes: dict[str, Any], seconds: float, span_context: context.Context
    ) -> None:
        # What the span was started with is not set again (a proxied call starts with its upstream).
        outcome_attributes = _outcome_attributes(call)
        if outcome_attributes:
            outcome_attributes = {key: value for key, value in outcome_attributes.items() if attributes.get(key) != value}
        if outcome_attributes:
            span.set_attributes(outcome_attributes)
        if call is not None and call.tool is not None and call.known:
            span.update_name(f"{attributes[attr.MCP_METHOD_NAME]} {call.tool}")
        if call is not None and call.finished_after_cancel is not None:
            # The cancel came first, but the handler ran to its end: with "ok" the effect happened (answer dropped).
            span.add_event(attr.ERRSCOPE_FINISHED_AFTER_CANCEL,
                           {attr.ERRSCOPE_OUTCOME: call.finished_after_cancel.value})
        if call is not None and call.channel is not None and call.classification is not None:
            caller_mistake = call.channel is Channel.PROTOCOL and call.error_code in CALLER_MISTAKES
            if not caller_mistake:
                span.set_status(StatusCode.ERROR, call.classification.failure_class.value)
        labels = {key: value for key, value in attributes.items() if key in attr.METRIC_ATTRIBUTES}
        if outcome_attributes:
            labels.update((key, value) for key, value in outcome_attributes.items() if key in attr.METRIC_ATTRIBUTES)
        if call is not None and not call.known:
            labels[attr.GEN_AI_TOOL_NAME] = OTHER
        # In the span's context, so the point's exemplar links to this trace.
        self.duration.record(seconds, labels, context=span_context)
        if call is not None and call.channel is not None:  # failed (not the property: a call a request)
            level = logging.WARNING if call.error_code in CALLER_MISTAKES else logging.ERROR
            recording, logged = span.is_recording(), _failure_logger.isEnabledFor(level)
            # The root cause (a stack trace, scrubbed) only when a sampled span or the log keeps it.
            root = describe(call.exception, call.root) if call.exception is not None and (recording or logged) else None
            if root is not None and recording:
                # The standard exception event (semconv "Exceptions"), built here rather than by
                # span.record_exception, which would record str(exc) and an unscrubbed traceback.
                span.add_event("exception", _exception_attributes(root))
                span.set_attribute(attr.ERRSCOPE_ERROR_FINGERPRINT, root.fingerprint)
            if logged:
                with trace.use_span(span, end_on_exit=False):
                    _log_failure(call, attributes, root, level)


def content_attribute(value: Any) -> str:
    """Tool arguments or a result as a scrubbed, bounded JSON string for opt-in content capture.

    Never raises: a value it cannot render (too deep, a raising ``__str__``) is recorded as a
    placeholder naming its type.
    """
    try:
        text = json.dumps(value, default=str, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        try:
            text = str(value)
        except Exception:  # RecursionError, or the value's own __str__ failing
            text = f"<{type(value).__qualname__}: not renderable>"
    return scrub(text)[:MAX_CONTENT]


def _outcome_attributes(call: ToolCall | None) -> dict[str, Any]:
    """What the call's end adds to the span's start attributes: nothing after a plain success."""
    if call is None or (
        call.outcome is Outcome.OK
        and call.channel is None
        and not call.upstreams
        and call.reason is None
        and not call.idempotency_key_hash
        and not call.replayed
    ):
        return {}
    result: dict[str, Any] = {attr.ERRSCOPE_OUTCOME: call.outcome.value}
    if call.channel is not None and call.classification is not None:
        result[attr.ERRSCOPE_CHANNEL] = call.channel.value
        result[attr.ERRSCOPE_FAILURE_CLASS] = call.classification.failure_class.value
        result[attr.ERRSCOPE_ERROR_REF] = call.error_ref
        if call.classification.retry_after is not None:
            result[attr.ERRSCOPE_RETRY_AFTER] = float(call.classification.retry_after)
        if call.classification.side_effect_possible is not None:
            result[attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE] = call.classification.side_effect_possible
        if call.channel is Channel.PROTOCOL and call.error_code is not None:
            result[attr.RPC_RESPONSE_STATUS_CODE] = str(call.error_code)
            if call.error_code not in CALLER_MISTAKES:
                result[attr.ERROR_TYPE] = str(call.error_code)
        elif call.channel is Channel.PROTOCOL:  # failed with no JSON-RPC answer (the connection went down)
            result[attr.ERROR_TYPE] = OTHER
        elif call.channel is Channel.EXECUTION:
            result[attr.ERROR_TYPE] = attr.TOOL_ERROR
    upstream = call.upstream
    if upstream is not None:
        for key, value in (
            (attr.ERRSCOPE_UPSTREAM_SYSTEM, upstream.system),
            (attr.ERRSCOPE_UPSTREAM_STATUS, upstream.status),
            (attr.ERRSCOPE_UPSTREAM_ADDRESS, upstream.address),
        ):
            if value:
                result[key] = value
    if call.reason is not None:
        result[attr.ERRSCOPE_FAILURE_REASON] = call.reason
    if call.idempotency_key_hash:
        result[attr.ERRSCOPE_IDEMPOTENCY_KEY_HASH] = call.idempotency_key_hash
    if call.replayed:
        result[attr.ERRSCOPE_IDEMPOTENT_REPLAY] = True
    return result


def _exception_attributes(root: RootCause) -> dict[str, str]:
    return {EXCEPTION_TYPE: root.type, EXCEPTION_MESSAGE: root.message, EXCEPTION_STACKTRACE: root.stacktrace}


def _log_failure(call: ToolCall, attributes: Mapping[str, Any], root: RootCause | None, level: int) -> None:
    """One record per failed call, under the same ref: the scrubbed detail the model never sees."""
    assert call.classification is not None and call.channel is not None
    fields: dict[str, Any] = {
        attr.ERRSCOPE_ERROR_REF: call.error_ref,
        attr.ERRSCOPE_FAILURE_CLASS: call.classification.failure_class.value,
        attr.ERRSCOPE_CHANNEL: call.channel.value,
        attr.ERRSCOPE_OUTCOME: call.outcome.value,
        attr.GEN_AI_TOOL_NAME: attributes.get(attr.GEN_AI_TOOL_NAME),
        attr.JSONRPC_REQUEST_ID: attributes.get(attr.JSONRPC_REQUEST_ID),
    }
    if call.error_code is not None:
        fields[attr.RPC_RESPONSE_STATUS_CODE] = str(call.error_code)
    if call.classification.side_effect_possible is not None:
        fields[attr.ERRSCOPE_SIDE_EFFECT_POSSIBLE] = call.classification.side_effect_possible
    if root is not None:
        fields[_ROOT_CAUSE] = root
    if call.model_text is not None:
        fields[attr.ERRSCOPE_MODEL_TEXT] = call.model_text
    if call.reason is not None:
        fields[attr.ERRSCOPE_FAILURE_REASON] = call.reason
        fields[attr.ERRSCOPE_FAILURE_DETAIL] = call.detail
    upstream = call.upstream
    if upstream is not None:
        fields[attr.ERRSCOPE_UPSTREAM_SYSTEM] = upstream.system
        fields[attr.ERRSCOPE_UPSTREAM_STATUS] = upstream.status
        fields[attr.ERRSCOPE_UPSTREAM_ADDRESS] = upstream.address
    if not call.upstream_message and call.exception is not None:
        call.upstream_message = upstream_said(call.exception, call.root)  # the upstream's error response, when one was read
    if call.upstream_message:
        # Scrubbed whole, then cut: a cut first could leave a secret too short for its pattern.
        fields[attr.ERRSCOPE_UPSTREAM_MESSAGE] = scrub(call.upstream_message)[:MAX_MESSAGE]
    try:
        # The facts an on-call search starts from are in the message too: a plain handler (basicConfig,
        # journald, kubectl logs) prints the message and drops the structured fields.
        method = attributes.get(attr.MCP_METHOD_NAME)
        # Tool and method names are the caller's words (an unknown one too): bounded and scrubbed like any echo.
        what = f"tool call failed: {safe_name(str(call.tool))}" if method == "tools/call" else f"request failed: {safe_name(str(method))}"
        event = f"{what} {call.classification.failure_class.value} {call.error_ref}"
        _failure_log.log(level, event, **{k: v for k, v in fields.items() if v is not None})
    except Exception:  # telemetry never breaks a tool call
        logging.getLogger(__name__).debug("failure log record dropped", exc_info=False)
