"""structlog processors: put the error ref and trace context on every record, and scrub every value.

Use them in your own structlog pipeline::

    structlog.configure(processors=[
        errscope.processors.add_error_ref,
        errscope.processors.add_trace_context,
        errscope.processors.scrub_values,      # last before the renderer
        structlog.processors.JSONRenderer(),
    ])

Each is a plain callable ``(logger, method_name, event_dict) -> event_dict``; the module-level
instances are ready-made configurations.
"""

from __future__ import annotations

from opentelemetry import trace
from structlog.typing import EventDict, WrappedLogger

from errscope import _attributes as attr
from errscope._call import current_call
from errscope._scrub_values import scrub_value

__all__ = [
    "AddErrorRef",
    "AddTraceContext",
    "ScrubValues",
    "add_error_ref",
    "add_trace_context",
    "scrub_values",
]

class AddErrorRef:
    """Add ``errscope.error_ref`` of the tool call being served, so every line of a call shares it.

    Args:
        key: the event-dict key to write.
    """

    def __init__(self, key: str = attr.ERRSCOPE_ERROR_REF) -> None:
        self.key = key

    def __call__(self, logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
        call = current_call()
        if call is not None:
            event_dict.setdefault(self.key, call.error_ref)
        return event_dict


class AddTraceContext:
    """Add ``trace_id`` and ``span_id`` (lowercase hex, W3C Trace Context) of the current span."""

    def __call__(self, logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
        span_context = trace.get_current_span().get_span_context()
        if span_context.is_valid:
            event_dict.setdefault("trace_id", format(span_context.trace_id, "032x"))
            event_dict.setdefault("span_id", format(span_context.span_id, "016x"))
        return event_dict


class ScrubValues:
    """Scrub every string value, nested ones too, except under keys in ``errscope._scrubbing.SAFE_KEYS``
    (ids and closed sets: scrubbing a trace id would break triage). Exceptions become scrubbed text."""

    def __call__(self, logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
        for key, value in event_dict.items():
            if isinstance(value, BaseException):
                event_dict[key] = _describe(value)
        scrubbed: EventDict = scrub_value(event_dict)
        return scrubbed


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__qualname__}: {exc}"
    except Exception:  # an exception whose __str__ raises must not break the log line
        return f"{type(exc).__qualname__}: <str() failed>"


add_error_ref = AddErrorRef()
add_trace_context = AddTraceContext()
scrub_values = ScrubValues()
