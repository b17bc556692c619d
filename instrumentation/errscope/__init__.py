"""mcp-errscope: error architecture and observability for MCP tool calls.

The public surface is what this module exports; everything else lives in private modules.
"""

from errscope._call import record_upstream
from errscope._classify import Classification, FieldProblem, Upstream, classify, register
from errscope._exceptions import (
    InvalidInput,
    NotFound,
    PermissionDenied,
    RateLimited,
    ToolFailure,
    UpstreamUnavailable,
)
from errscope import _logfilter
from errscope._logfilter import ScrubbingFilter
from errscope._scrubbing import scrub
from errscope._setup import Telemetry, configure_telemetry
from errscope._vocabulary import Channel, FailureClass, Outcome
from errscope.client import CircuitBreaker, RetryPolicy, TimeoutPolicy, ToolCallResult, ToolClient
from errscope.idempotency import Idempotency
from errscope.server import instrument, uninstrument

__all__ = [
    "Channel",
    "CircuitBreaker",
    "Classification",
    "FailureClass",
    "FieldProblem",
    "Idempotency",
    "InvalidInput",
    "NotFound",
    "Outcome",
    "PermissionDenied",
    "RateLimited",
    "RetryPolicy",
    "ScrubbingFilter",
    "Telemetry",
    "TimeoutPolicy",
    "ToolCallResult",
    "ToolClient",
    "ToolFailure",
    "Upstream",
    "UpstreamUnavailable",
    "classify",
    "configure_telemetry",
    "instrument",
    "record_upstream",
    "register",
    "scrub",
    "uninstrument",
]

# Libraries (httpx, uvicorn, the SDK, database drivers, any other) and applications log URLs with
# credentials and exception texts: every record is scrubbed from the moment errscope is imported.
_logfilter.scrub_logs(enabled=not _logfilter.opted_out())
