"""Attribute, metric and ``_meta`` key names that errscope emits.

Standard names come from ``opentelemetry-semantic-conventions`` and are re-exported here, never
re-spelled; the ``errscope.*`` names are ours (DESIGN.md, "Standard attributes"). Dashboards,
alert rules and the Collector config are checked against this module.
"""

from __future__ import annotations

from typing import Final

from opentelemetry.semconv._incubating.attributes.gen_ai_attributes import (
    GEN_AI_OPERATION_NAME,
    GEN_AI_TOOL_CALL_ARGUMENTS,
    GEN_AI_TOOL_CALL_RESULT,
    GEN_AI_TOOL_NAME,
    GenAiOperationNameValues,
)
from opentelemetry.semconv._incubating.attributes.jsonrpc_attributes import JSONRPC_REQUEST_ID
from opentelemetry.semconv._incubating.attributes.mcp_attributes import (
    MCP_METHOD_NAME,
    MCP_PROTOCOL_VERSION,
    MCP_SESSION_ID,
)
from opentelemetry.semconv._incubating.attributes.rpc_attributes import RPC_RESPONSE_STATUS_CODE
from opentelemetry.semconv._incubating.metrics.mcp_metrics import (
    MCP_CLIENT_OPERATION_DURATION,
    MCP_SERVER_OPERATION_DURATION,
)
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
from opentelemetry.semconv.attributes.network_attributes import NETWORK_TRANSPORT
from opentelemetry.semconv.attributes.server_attributes import SERVER_ADDRESS, SERVER_PORT

__all__ = [
    "DURATION_BUCKETS",
    "ERROR_TYPE",
    "ERRSCOPE_ATTEMPT",
    "ERRSCOPE_CHANNEL",
    "ERRSCOPE_ERROR_FINGERPRINT",
    "ERRSCOPE_ERROR_REF",
    "ERRSCOPE_FAILURE_CLASS",
    "ERRSCOPE_FAILURE_DETAIL",
    "ERRSCOPE_FAILURE_REASON",
    "ERRSCOPE_FINISHED_AFTER_CANCEL",
    "ERRSCOPE_IDEMPOTENCY_KEY_HASH",
    "ERRSCOPE_MODEL_TEXT",
    "ERRSCOPE_IDEMPOTENT_REPLAY",
    "ERRSCOPE_LATE_RESPONSES",
    "ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT",
    "ERRSCOPE_LATE_RESPONSE_ELAPSED",
    "ERRSCOPE_LOG_SCRUB_FAILURES",
    "ERRSCOPE_OUTCOME",
    "ERRSCOPE_PROGRESS_NOTIFICATIONS",
    "ERRSCOPE_RETRY",
    "ERRSCOPE_RETRY_AFTER",
    "ERRSCOPE_RETRY_STOP_REASON",
    "ERRSCOPE_SIDE_EFFECT_POSSIBLE",
    "ERRSCOPE_TABLE",
    "ERRSCOPE_TABLE_ENTRIES",
    "ERRSCOPE_UPSTREAM_ADDRESS",
    "ERRSCOPE_UPSTREAM_MESSAGE",
    "ERRSCOPE_UPSTREAM_STATUS",
    "ERRSCOPE_UPSTREAM_SYSTEM",
    "EXECUTE_TOOL",
    "GEN_AI_OPERATION_NAME",
    "GEN_AI_TOOL_CALL_ARGUMENTS",
    "GEN_AI_TOOL_CALL_RESULT",
    "GEN_AI_TOOL_NAME",
    "JSONRPC_REQUEST_ID",
    "MCP_CLIENT_OPERATION_DURATION",
    "MCP_METHOD_NAME",
    "MCP_PROTOCOL_VERSION",
    "MCP_SERVER_OPERATION_DURATION",
    "MCP_SESSION_ID",
    "META_CHANNEL",
    "META_ERROR_REF",
    "META_FAILURE_CLASS",
    "META_HTTP_STATUS",
    "META_IDEMPOTENCY_KEY",
    "META_IDEMPOTENCY_KEY_HONOURED",
    "META_RETRY_AFTER",
    "META_SIDE_EFFECT_POSSIBLE",
    "METRIC_ATTRIBUTES",
    "NETWORK_TRANSPORT",
    "RPC_RESPONSE_STATUS_CODE",
    "SERVER_ADDRESS",
    "SERVER_PORT",
    "TOOL_ERROR",
]

ERRSCOPE_CHANNEL: Final = "errscope.channel"
"""``protocol`` or ``execution``; absent on success."""
ERRSCOPE_FAILURE_CLASS: Final = "errscope.failure_class"
"""One of :class:`errscope.FailureClass`; absent on success."""
ERRSCOPE_OUTCOME: Final = "errscope.outcome"
"""One of :class:`errscope.Outcome`."""
ERRSCOPE_ERROR_REF: Final = "errscope.error_ref"
"""The reference quoted to the model, e.g. ``ERR-7K3M9QXZ``: the triage join key."""
ERRSCOPE_ERROR_FINGERPRINT: Final = "errscope.error.fingerprint"
"""16 hex characters grouping failures by root exception type and the tool's own frames (span and log;
never a metric label)."""
ERRSCOPE_MODEL_TEXT: Final = "errscope.model_text"
"""The text a host handed the model for a tool call (log record only, never a span attribute or metric
label): what ``errscope explain`` shows as "what the model saw". ``ToolClient`` writes it for every
call that did not succeed; it is errscope's own wording or the server's scrubbed text."""
ERRSCOPE_FAILURE_REASON: Final = "errscope.failure_reason"
"""Why a failure of a class happened, when errscope itself decided it (span only): ``invalid_result``
(the tool's result broke its declared ``outputSchema`` or lacked ``structuredContent``)."""
ERRSCOPE_FAILURE_DETAIL: Final = "errscope.failure_detail"
"""Log record only: what broke, for a ``errscope.failure_reason`` (field paths and rules, never values)."""
ERRSCOPE_UPSTREAM_STATUS: Final = "errscope.upstream.status"
"""The upstream's own status as a string: ``"404"``, ``"UNAVAILABLE"``, ``"57P01"``."""
ERRSCOPE_UPSTREAM_SYSTEM: Final = "errscope.upstream.system"
"""``http``, ``postgresql``, ...: what kind of upstream answered."""
ERRSCOPE_UPSTREAM_ADDRESS: Final = "errscope.upstream.address"
"""``host[:port]`` of the upstream; never userinfo, path or query."""
ERRSCOPE_UPSTREAM_MESSAGE: Final = "errscope.upstream.message"
"""Log record only (never a span attribute or metric label): what an MCP server behind ``errscope proxy``
answered for a failed call (the first line of its ``isError`` text or JSON-RPC error message), scrubbed, without
stack fragments or file paths, at most 2,048 characters. The proxy has no exception to record, and the model is handed a shaped excerpt: without it the
on-call engineer of a host that does not log the model's text never sees the server's own words."""
ERRSCOPE_RETRY_AFTER: Final = "errscope.retry_after"
"""Seconds the upstream asked us to wait (float), when it said so."""
ERRSCOPE_SIDE_EFFECT_POSSIBLE: Final = "errscope.side_effect_possible"
"""``True`` when a failed call's side effect may have happened (the request reached the upstream or the
server and then timed out, stalled or lost its connection); ``False`` when it provably never left (connect
refused, DNS, connect or pool timeout, a breaker that sent nothing). Absent when nothing is known."""
ERRSCOPE_IDEMPOTENCY_KEY_HASH: Final = "errscope.idempotency.key_hash"
"""SHA-256 prefix of the idempotency key; the key itself is never recorded."""
ERRSCOPE_IDEMPOTENT_REPLAY: Final = "errscope.idempotency.replayed"
"""``True`` when a stored result was returned for a repeated idempotency key."""
ERRSCOPE_TABLE: Final = "errscope.table"
"""Which bookkeeping table a size is for (a closed set: :class:`errscope._tables.Table`)."""
ERRSCOPE_TABLE_ENTRIES: Final = "errscope.table.entries"
"""Asynchronous up-down counter: live entries per bookkeeping table, unit ``{entry}``."""
ERRSCOPE_ATTEMPT: Final = "errscope.attempt"
"""1-based attempt number of one logical client call (span only)."""
ERRSCOPE_RETRY: Final = "errscope.retry"
"""``True`` on attempts after the first (metric-safe form of the attempt number)."""
ERRSCOPE_RETRY_STOP_REASON: Final = "errscope.retry.stop_reason"
"""Client, on the ``errscope.client`` record of a failed call whose class the policy retries: why no further attempt
went (a closed set, :data:`errscope.client._retry.STOP_REASONS`): ``not_safe_to_repeat``, ``retry_after_too_long``,
``attempts_exhausted``, ``circuit_open``, ``retries_off``. Log record only."""
ERRSCOPE_FINISHED_AFTER_CANCEL: Final = "errscope.finished_after_cancel"
"""Server span event: the request was cancelled, yet the tool ran to its end (``errscope.outcome`` says how)."""
ERRSCOPE_PROGRESS_NOTIFICATIONS: Final = "errscope.progress_notifications"
"""Client span: progress notifications for the attempt that restarted its idle timer (int)."""
ERRSCOPE_LATE_RESPONSE_ELAPSED: Final = "errscope.late_response.elapsed"
"""Seconds from the attempt's start to an answer that arrived after the client gave up (float)."""
ERRSCOPE_LATE_RESPONSE_AFTER_TIMEOUT: Final = "errscope.late_response.after_timeout"
"""Seconds between the client giving up on an attempt and its late answer arriving (float)."""
ERRSCOPE_LATE_RESPONSES: Final = "errscope.client.late_responses"
"""Counter: answers that arrived after the client had given up on the attempt (``{response}``)."""
ERRSCOPE_LOG_SCRUB_FAILURES: Final = "errscope.log.scrub_failures"
"""Counter: parts of log records that could not be scrubbed and were passed on as they were (``{record}``)."""

TOOL_ERROR: Final = "tool_error"
"""``error.type`` for an ``isError`` result (MCP semantic conventions)."""
EXECUTE_TOOL: Final = GenAiOperationNameValues.EXECUTE_TOOL.value

DURATION_BUCKETS: Final = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""Explicit bucket boundaries in seconds for ``mcp.*.operation.duration`` (MCP semconv metrics)."""

METRIC_ATTRIBUTES: Final = frozenset(
    {
        MCP_METHOD_NAME,
        GEN_AI_TOOL_NAME,
        GEN_AI_OPERATION_NAME,
        MCP_PROTOCOL_VERSION,
        NETWORK_TRANSPORT,
        ERROR_TYPE,
        RPC_RESPONSE_STATUS_CODE,
        ERRSCOPE_CHANNEL,
        ERRSCOPE_FAILURE_CLASS,
        ERRSCOPE_OUTCOME,
        ERRSCOPE_UPSTREAM_SYSTEM,
        ERRSCOPE_UPSTREAM_STATUS,
        ERRSCOPE_IDEMPOTENT_REPLAY,
        ERRSCOPE_RETRY,
        ERRSCOPE_SIDE_EFFECT_POSSIBLE,
        ERRSCOPE_TABLE,
    }
)
"""The only attributes allowed on errscope metrics: all closed or bounded sets."""

# Keys errscope reads and writes in a result's or request's ``_meta`` (MCP spec, General fields >
# _meta: names are prefixed with a reverse-DNS label and a slash).
META_FAILURE_CLASS: Final = "io.errscope/failure_class"
META_CHANNEL: Final = "io.errscope/channel"
META_ERROR_REF: Final = "io.errscope/error_ref"
META_RETRY_AFTER: Final = "io.errscope/retry_after"
META_IDEMPOTENCY_KEY: Final = "io.errscope/idempotency_key"
META_SIDE_EFFECT_POSSIBLE: Final = "io.errscope/side_effect_possible"
"""On an error result: the :data:`ERRSCOPE_SIDE_EFFECT_POSSIBLE` fact, for the client and the host."""
META_HTTP_STATUS: Final = "io.errscope/http_status"
"""In a relayed JSON-RPC error's ``data``: the HTTP status the upstream's endpoint (or a gateway or proxy before it)
refused the request's POST with, when the SDK stood in an error frame for that refusal. The call's upstream event
is then that HTTP answer (system ``http``, that status), the one ``errscope explain`` must lead to."""
META_IDEMPOTENCY_KEY_HONOURED: Final = "io.errscope/idempotency_key_honoured"
"""On a tool in ``tools/list``: ``True`` when the server deduplicates calls that carry the same
:data:`META_IDEMPOTENCY_KEY`, so a client may repeat the call safely."""
