"""The closed vocabulary every errscope signal speaks (DESIGN.md, "The closed vocabulary").

These sets are closed on purpose: they become span attributes, metric labels, dashboard
variables and alert routing keys, so a new value is a schema change, not a convenience.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Channel", "FailureClass", "Outcome"]


class Channel(StrEnum):
    """Which error channel a failure travelled on (MCP spec, Server > Tools > Error Handling).

    ``PROTOCOL``: a JSON-RPC error object; the call did not happen.
    ``EXECUTION``: a result with ``isError: true``; the tool ran and failed, and the model reads it.
    """

    PROTOCOL = "protocol"
    EXECUTION = "execution"


class FailureClass(StrEnum):
    """The one class a failure lands on. It decides wording, retry policy, panels and alerts.

    ``UNKNOWN`` is a real class: its rate is alerted on because it means the mapping has a gap.
    """

    NOT_FOUND = "not_found"
    PERMISSION_DENIED = "permission_denied"
    RATE_LIMITED = "rate_limited"
    UPSTREAM_UNAVAILABLE = "upstream_unavailable"
    INVALID_INPUT = "invalid_input"
    UNKNOWN = "unknown"


class Outcome(StrEnum):
    """How a tool call ended, as seen by the side that records it.

    ``TIMEOUT`` means the caller stopped waiting: the side effect may or may not have happened.
    ``CANCELLED`` means the request was cancelled and, per the MCP spec, got no response.
    """

    OK = "ok"
    ERROR = "error"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
