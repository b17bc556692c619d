"""errscope client hooks: call MCP tools through ``mcp.Client`` and get back, for every call, what
to hand the model plus the structured facts.

Public names are re-exported by :mod:`errscope` as well; see the README section "Client: calling tools through
errscope" and docs/client.md.
"""

from __future__ import annotations

from errscope._foreign_text import classify_text
from errscope.client._breaker import BreakerState, CircuitBreaker
from errscope.client._catalog import ToolCatalog
from errscope.client._client import ConnectionState, ProbeResult, ToolClient
from errscope.client._deadline import TimeoutPolicy
from errscope.client._invalid_params import invalid_params_note
from errscope.client._keys import key_hash, new_idempotency_key
from errscope.client._result import ToolCallResult
from errscope.client._retry import RetryPolicy

__all__ = [
    "BreakerState",
    "CircuitBreaker",
    "ConnectionState",
    "ProbeResult",
    "RetryPolicy",
    "TimeoutPolicy",
    "ToolCallResult",
    "ToolCatalog",
    "ToolClient",
    "classify_text",
    "invalid_params_note",
    "key_hash",
    "new_idempotency_key",
]
