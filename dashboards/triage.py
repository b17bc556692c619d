"""The triage dashboard: from what a user saw (an error ref, a request id, a trace id) to the upstream event.

The on-call path is: paste the ``ERR-…`` ref the model quoted → the tool span (class, upstream status
and address) → its failing descendants (the upstream CLIENT span with the HTTP status) → the trace →
the log record of the failure. Every step is a TraceQL or LogQL query on attributes the
instrumentation emits; rows link to the trace by setting ``$trace_id``.
"""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.models import dashboard as dm
from opentelemetry.semconv.attributes.exception_attributes import EXCEPTION_MESSAGE, EXCEPTION_TYPE
from opentelemetry.semconv.attributes.http_attributes import HTTP_RESPONSE_STATUS_CODE
from opentelemetry.semconv.attributes.service_attributes import SERVICE_NAME

from dashboards.common import (
    LOKI,
    PROMETHEUS,
    TEMPO,
    Grid,
    dashboard_link,
    logs_panel,
    loki_query,
    loki_table_query,
    table_panel,
    tempo_query,
    text_panel,
    traces_panel,
)
from dashboards.names import (
    LOKI_SERVICE_LABEL,
    LOKI_TRACE_ID,
    OVERVIEW_UID,
    PROM_SERVICE_LABEL,
    SERVER_DURATION,
    TRIAGE_UID,
    loki_key,
)
from errscope import _attributes as attrs

__all__ = ["LATEST_FAILURES_PANEL_ID", "UPSTREAM_SPAN_ATTRIBUTES", "build", "span"]

UPSTREAM_SPAN_ATTRIBUTES = frozenset({HTTP_RESPONSE_STATUS_CODE, attrs.SERVER_ADDRESS})
"""Attributes of the upstream child CLIENT span (opentelemetry-instrumentation-httpx), not errscope's."""

LATEST_FAILURES_PANEL_ID = 2
"""The panel alert rules point at (``panelId``): the latest failures, each linking to its trace."""

_TRACE_LINK = (
    f"/d/{TRIAGE_UID}/errscope-triage?var-trace_id=${{__data.fields.traceIdHidden}}"
    "&var-ref=${ref}&var-request_id=${request_id}&var-service=${service}&${__url_time_range}"
)


REF_MATCH = '=~ "(?i)^${ref:regex}$"'
"""How every query matches the ref a user quoted: in any case (a ref read back or typed from a screenshot comes as
"err-7k3m9qxz" as often as upper case), with what was pasted escaped by Grafana's ``regex`` variable format (Grafana
docs, "Variable syntax", advanced formatting). TraceQL's and LogQL's ``=~`` are Go's RE2, where ``(?i)`` holds."""


def span(attribute: str) -> str:
    """TraceQL span-scoped attribute reference (dots are kept)."""
    return f"span.{attribute}"


def resource(attribute: str) -> str:
    """TraceQL resource-scoped attribute reference."""
    return f"resource.{attribute}"


def _select(*attributes: str) -> str:
    return " | select(" + ", ".join(attributes) + ")"


def _trace_link() -> db.DashboardLink:
    return dashboard_link("Open this trace", _TRACE_LINK, "Show the whole trace and its log records below")


def _variables() -> list[db.TextBoxVariable | db.QueryVariable]:
    ref = (
        db.TextBoxVariable("ref")
        .label("Error ref")
        .description("The ERR-… reference the model quoted to the user (errscope.error_ref).")
        .default_value("")
    )
    request_id = (
        db.TextBoxVariable("request_id")
        .label("JSON-RPC request id")
        .description("The id of the tools/call request (jsonrpc.request.id), from a client log.")
        .default_value("")
    )
    trace_id = (
        db.TextBoxVariable("trace_id")
        .label("Trace id")
        .description("32 hex digits; set by clicking a row in the tables.")
        .default_value("")
    )
    service = (
        db.QueryVariable("service")
        .label("Service")
        .description("service.name of the MCP server (Loki's service_name label, Prometheus' job label).")
        .datasource(PROMETHEUS)
        .query(f"label_values({SERVER_DURATION}_count, {PROM_SERVICE_LABEL})")
        .definition(f"label_values({SERVER_DURATION}_count, {PROM_SERVICE_LABEL})")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.ALPHABETICAL_ASC)
        .include_all(True)
        .all_value(".+")
        .multi(True)
    )
    return [ref, request_id, trace_id, service]


_HOW_TO = """\
1. Paste the **error ref** the user saw (`ERR-…`) into *Error ref*, or a **JSON-RPC request id**, or pick a row
   under *Latest failures*.
2. *Tool span* shows the class, channel and the upstream's own status and address.
   *Failing descendants* shows the upstream call that broke (its HTTP status and host).
3. Click a row (**Open this trace**) to fill *Trace id*: the trace and its log records appear below.
   From the trace view, *Logs for this span* opens Loki; from a log line, the trace id opens Tempo.
"""


def build() -> db.Dashboard:
    """Build the triage dashboard."""
    grid = Grid()
    tool_span_fields = _select(
        span(attrs.GEN_AI_TOOL_NAME),
        span(attrs.ERRSCOPE_FAILURE_CLASS),
        span(attrs.ERRSCOPE_CHANNEL),
        span(attrs.ERRSCOPE_UPSTREAM_SYSTEM),
        span(attrs.ERRSCOPE_UPSTREAM_STATUS),
        span(attrs.ERRSCOPE_UPSTREAM_ADDRESS),
        span(attrs.JSONRPC_REQUEST_ID),
        span(attrs.ERRSCOPE_ERROR_FINGERPRINT),
        "span:statusMessage",
    )
    by_ref = f"{{ {span(attrs.ERRSCOPE_ERROR_REF)} {REF_MATCH} }}"
    service_filter = f'{resource(SERVICE_NAME)} =~ "$service"'

    panels = [
        text_panel("How to triage", _HOW_TO, grid.place(8, 9)).id(1),
        table_panel(
            "Latest failures",
            "The most recent failed tool calls (server spans that carry an error ref), newest first: ref, tool, "
            "class, upstream status and the scrubbed status message. Click a row to open its trace below; the "
            "ref is what the model quoted to the user.",
            tempo_query(
                f"{{ span:kind = server && {service_filter} && {span(attrs.ERRSCOPE_ERROR_REF)} != nil }}"
                + _select(
                    span(attrs.ERRSCOPE_ERROR_REF),
                    span(attrs.GEN_AI_TOOL_NAME),
                    span(attrs.ERRSCOPE_FAILURE_CLASS),
                    span(attrs.ERRSCOPE_UPSTREAM_STATUS),
                    "span:statusMessage",
                ),
                limit=50,
            ),
            grid.place(16, 9),
            TEMPO,
            [_trace_link()],
        ).id(LATEST_FAILURES_PANEL_ID),
        table_panel(
            "What the model saw for $ref",
            "The text the host handed the model for this call, from the host's log record (ToolClient writes one "
            "for every call that did not succeed, under errscope.model_text), whichever service the host runs as, "
            "or the failure record of the server or errscope proxy that shaped it (an execution failure's text), "
            "and why the client sent no further attempt (errscope.retry.stop_reason: not_safe_to_repeat, "
            "retry_after_too_long, attempts_exhausted, circuit_open, retries_off). "
            "Empty when the host logs nothing or exports no logs.",
            loki_table_query(
                f"sum by ({LOKI_SERVICE_LABEL}, {loki_key(attrs.ERRSCOPE_MODEL_TEXT)}, "
                f"{loki_key(attrs.ERRSCOPE_RETRY_STOP_REASON)}) (count_over_time("
                f'{{{LOKI_SERVICE_LABEL}=~".+"}} | {loki_key(attrs.ERRSCOPE_ERROR_REF)} {REF_MATCH} '
                f'| {loki_key(attrs.ERRSCOPE_MODEL_TEXT)} != "" [$__range]))'
            ),
            grid.place(24, 4),
            LOKI,
        ).id(9),
        table_panel(
            "Tool span for error ref $ref",
            "The SERVER span whose errscope.error_ref is the ref the user quoted: tool, failure class, channel, "
            "the upstream system/status/address copied from the failing child span, the JSON-RPC request id. "
            "Empty means the ref is mistyped, older than Tempo's retention, or its trace was not kept.",
            tempo_query(by_ref + tool_span_fields),
            grid.place(12, 7),
            TEMPO,
            [_trace_link()],
        ).id(3),
        table_panel(
            "Failing descendants of $ref (the upstream call)",
            "CLIENT spans below the spans of the ref that failed (`>>` = descendant): usually the upstream HTTP call, "
            "with its status code and host. This is the upstream event behind the message the user saw. Only CLIENT "
            "spans: the host's span carries the ref too, and the SERVER spans below it (errscope proxy's hop, the "
            "server behind it) are the call itself, not its upstream.",
            tempo_query(
                f"{by_ref} >> {{ span:kind = client && (status = error || {span(HTTP_RESPONSE_STATUS_CODE)} >= 400) }}"
                + _select(span(HTTP_RESPONSE_STATUS_CODE), span(attrs.SERVER_ADDRESS), "span:statusMessage")
            ),
            grid.place(12, 7),
            TEMPO,
            [_trace_link()],
        ).id(4),
        table_panel(
            "Tool span for JSON-RPC request id $request_id",
            "The SERVER span of the tools/call with this JSON-RPC id, for when the client logged the id but the "
            "user has no ref (successful calls have no ref).",
            tempo_query(
                f'{{ span:kind = server && {span(attrs.JSONRPC_REQUEST_ID)} = "$request_id" && {service_filter} }}'
                + _select(
                    span(attrs.ERRSCOPE_ERROR_REF),
                    span(attrs.GEN_AI_TOOL_NAME),
                    span(attrs.ERRSCOPE_OUTCOME),
                    span(attrs.ERRSCOPE_FAILURE_CLASS),
                    span(attrs.ERRSCOPE_UPSTREAM_STATUS),
                )
            ),
            grid.place(24, 6),
            TEMPO,
            [_trace_link()],
        ).id(5),
        table_panel(
            "Root cause of $ref",
            "The innermost meaningful exception behind the failure (past the frameworks' wrappers), from the "
            "failure's log record: its type, its scrubbed message and the fingerprint that groups it with "
            "every other failure of the same root and code path. The scrubbed stack trace is on the log record "
            "below and on the tool span's exception event. Behind `errscope proxy` there is no exception: the "
            "server's own words, scrubbed, are the upstream message.",
            loki_table_query(
                f"sum by ({loki_key(EXCEPTION_TYPE)}, {loki_key(EXCEPTION_MESSAGE)}, "
                f"{loki_key(attrs.ERRSCOPE_UPSTREAM_MESSAGE)}, "
                f"{loki_key(attrs.ERRSCOPE_ERROR_FINGERPRINT)}) (count_over_time("
                f'{{{LOKI_SERVICE_LABEL}=~"$service"}} | {loki_key(attrs.ERRSCOPE_ERROR_REF)} {REF_MATCH} [$__range]))'
            ),
            grid.place(24, 5),
            LOKI,
        ).id(8),
        traces_panel(
            "Trace $trace_id",
            "The whole trace: client span, tool SERVER span, upstream CLIENT spans. Span attributes carry the "
            "errscope vocabulary; the span links menu opens the log records for a span (Tempo → Loki).",
            tempo_query("$trace_id", limit=1),
            grid.place(24, 12),
        ).id(6),
        logs_panel(
            "Log records for trace $trace_id / ref $ref",
            "The errscope log record of each failure (one per failed call): scrubbed detail, class, channel, "
            "exception type, as Loki structured metadata. Query A matches the trace id, query B the error ref; "
            "the trace_id field links back to Tempo.",
            [
                loki_query(f'{{{LOKI_SERVICE_LABEL}=~"$service"}} | {LOKI_TRACE_ID} = "$trace_id"', ref="A"),
                loki_query(
                    f'{{{LOKI_SERVICE_LABEL}=~"$service"}} | {loki_key(attrs.ERRSCOPE_ERROR_REF)} {REF_MATCH}', ref="B"
                ),
            ],
            grid.place(24, 10),
        ).id(7),
    ]

    dashboard = (
        db.Dashboard("errscope: triage")
        .uid(TRIAGE_UID)
        .description("From the error ref a user saw to the tool span, the failing upstream span and the log record.")
        .tags(["errscope", "mcp", "generated"])
        .time("now-6h", "now")
        .refresh("")
        .timezone("utc")
        .readonly()
        .link(dashboard_link("Overview", f"/d/{OVERVIEW_UID}", "Call rates, failure ratios, latency"))
    )
    for variable in _variables():
        dashboard = dashboard.with_variable(variable)
    for panel in panels:
        dashboard = dashboard.with_panel(panel)  # type: ignore[arg-type]
    return dashboard
