"""The overview dashboard: how MCP tool calls are doing, per service and tool, split the errscope way.

Every query reads the ``mcp.server.operation.duration`` / ``mcp.client.operation.duration``
histograms (their ``_count`` is the call counter). Server panels filter on ``$service`` and
``$tool``; client panels filter on ``$tool`` only, because the client reports under its own
``service.name``.
"""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.builders import common as cb
from grafana_foundation_sdk.models import dashboard as dm
from grafana_foundation_sdk.models import prometheus as pm
from opentelemetry.semconv.attributes.exception_attributes import EXCEPTION_TYPE

from dashboards.common import (
    LOKI,
    PROMETHEUS,
    RATE,
    Grid,
    dashboard_link,
    loki_table_query,
    prom_query,
    stat_panel,
    table_panel,
    timeseries_panel,
)
from dashboards.names import (
    CLIENT_DURATION,
    LOKI_SERVICE_LABEL,
    OVERVIEW_UID,
    PROM_SERVICE_LABEL,
    SERVER_DURATION,
    TOOLS_CALL,
    TRIAGE_UID,
    Label,
    loki_key,
)
from errscope import FailureClass, Outcome
from errscope import _attributes as attrs

__all__ = ["build", "server_selector"]

SERVER_CALLS = f"{SERVER_DURATION}_count"
SERVER_BUCKETS = f"{SERVER_DURATION}_bucket"
CLIENT_CALLS = f"{CLIENT_DURATION}_count"
FINGERPRINT = loki_key(attrs.ERRSCOPE_ERROR_FINGERPRINT)
ROOT_TYPE = loki_key(EXCEPTION_TYPE)
TOOL_VARIABLE_SELECTOR = f'{PROM_SERVICE_LABEL}=~"$service", {Label.METHOD}="{TOOLS_CALL}"'


def eq(label: str, value: str) -> str:
    """``label="value"``."""
    return f'{label}="{value}"'


def present(label: str) -> str:
    """``label!=""``: the series carries the label (absent labels are empty in PromQL)."""
    return f'{label}!=""'


def server_selector(*extra: str) -> str:
    """Label matchers for server series on the dashboard's ``$service`` and ``$tool`` variables."""
    return ", ".join([f'{PROM_SERVICE_LABEL}=~"$service"', eq(Label.METHOD, TOOLS_CALL), f'{Label.TOOL}=~"$tool"', *extra])


def client_selector(*extra: str) -> str:
    """Label matchers for client series on the ``$tool`` variable."""
    return ", ".join([eq(Label.METHOD, TOOLS_CALL), f'{Label.TOOL}=~"$tool"', *extra])


def _rate(series: str, selector: str) -> str:
    return f"rate({series}{{{selector}}}[{RATE}])"


def _variables() -> list[db.QueryVariable | db.CustomVariable]:
    service = (
        db.QueryVariable("service")
        .label("Service")
        .description("service.name of the MCP server (the job label).")
        .datasource(PROMETHEUS)
        .query(f"label_values({SERVER_CALLS}, {PROM_SERVICE_LABEL})")
        .definition(f"label_values({SERVER_CALLS}, {PROM_SERVICE_LABEL})")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.ALPHABETICAL_ASC)
        .include_all(True)
        .all_value(".*")
        .multi(True)
    )
    tool = (
        db.QueryVariable("tool")
        .label("Tool")
        .description("gen_ai.tool.name; only tools in the server's registry ever become label values.")
        .datasource(PROMETHEUS)
        .query(f"label_values({SERVER_CALLS}{{{TOOL_VARIABLE_SELECTOR}}}, {Label.TOOL})")
        .definition(f"label_values({SERVER_CALLS}{{{TOOL_VARIABLE_SELECTOR}}}, {Label.TOOL})")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.ALPHABETICAL_ASC)
        .include_all(True)
        .all_value(".*")
        .multi(True)
    )
    failure_class = (
        db.CustomVariable("class")
        .label("Failure class")
        .description("errscope.failure_class: the closed set every failure lands on exactly once.")
        .values(",".join(member.value for member in FailureClass))
        .include_all(True)
        .all_value(".+")
        .multi(True)
    )
    return [service, tool, failure_class]


def build() -> db.Dashboard:
    """Build the overview dashboard."""
    grid = Grid()
    ids = iter(range(1, 100))
    calls = server_selector()
    failed = server_selector(f'{Label.OUTCOME}="{Outcome.ERROR}"')
    with_class = server_selector(f'{Label.CLASS}=~"$class"')

    panels: list[object] = [
        db.Row("Calls and failures").id(next(ids)).grid_pos(grid.row()),
        timeseries_panel(
            "Calls per second by outcome",
            "Server-side tool calls per second, stacked by errscope.outcome. `error` is a failed call (either "
            "channel); `cancelled` got no response; `timeout` means the server gave up waiting on its upstream "
            "and the side effect may or may not have happened. Read the height for load, the colours for health.",
            "reqps",
            [prom_query(f"sum by ({Label.OUTCOME}) ({_rate(SERVER_CALLS, calls)})", f"{{{{{Label.OUTCOME}}}}}")],
            grid.place(12, 8),
            stacked=True,
        ).id(next(ids)),
        timeseries_panel(
            "Failure ratio by channel",
            "Share of all calls that failed, per channel. `protocol` = a JSON-RPC error: the call did not happen "
            "(caller mistakes or server faults). `execution` = an isError result: the tool ran, failed, and the "
            "model was told why. A rising protocol line is usually ours; a rising execution line is usually an "
            "upstream.",
            "percentunit",
            [
                prom_query(
                    f"sum by ({Label.CHANNEL}) ({_rate(SERVER_CALLS, server_selector(present(Label.CHANNEL)))})"
                    f" / on () group_left () sum ({_rate(SERVER_CALLS, calls)})",
                    f"{{{{{Label.CHANNEL}}}}}",
                )
            ],
            grid.place(12, 8),
        ).id(next(ids)),
        timeseries_panel(
            "Failure ratio per tool",
            "Failed calls (outcome=error, either channel) divided by all calls, per tool. The per-tool failure "
            "ratio alert fires on the same ratio (without invalid_input, which is the caller's mistake). Click a "
            "line's exemplars in the latency panels to jump to a failing trace.",
            "percentunit",
            [
                prom_query(
                    f"sum by ({Label.TOOL}) ({_rate(SERVER_CALLS, failed)})"
                    f" / sum by ({Label.TOOL}) ({_rate(SERVER_CALLS, calls)})",
                    f"{{{{{Label.TOOL}}}}}",
                )
            ],
            grid.place(12, 8),
        ).id(next(ids)),
        timeseries_panel(
            "Failures per second by class",
            "Failed calls per second, stacked by errscope.failure_class (filtered by $class). The class decides "
            "the model's wording and the client's retry policy: rate_limited and upstream_unavailable are "
            "retryable, not_found / permission_denied / invalid_input are not, unknown is a gap in the mapping.",
            "reqps",
            [prom_query(f"sum by ({Label.CLASS}) ({_rate(SERVER_CALLS, with_class)})", f"{{{{{Label.CLASS}}}}}")],
            grid.place(12, 8),
            stacked=True,
        ).id(next(ids)),
        stat_panel(
            "Share of failures classed unknown",
            "Failures that landed on `unknown` divided by all classified failures, over the dashboard's time "
            "range. Anything above zero means an exception or status reached errscope that the taxonomy does not "
            "map: find one with the triage dashboard (class = unknown) and add a mapping. Alerted above 1%.",
            "percentunit",
            prom_query(
                f"(sum (increase({SERVER_CALLS}{{{server_selector(eq(Label.CLASS, FailureClass.UNKNOWN))}}}"
                f"[$__range])) or vector(0))"
                f" / sum (increase({SERVER_CALLS}{{{server_selector(present(Label.CLASS))}}}[$__range]))",
                "unknown share",
                instant=True,
            ),
            grid.place(6, 8),
            [(None, "green"), (0.001, "orange"), (0.01, "red")],
        ).id(next(ids)),
        table_panel(
            "Failures by tool and class (time range)",
            "How many calls failed, per tool and class, over the selected range. Sort by the count to see where "
            "the failures concentrate; open the triage dashboard with a ref from a user report to see one.",
            prom_query(
                f"sum by ({Label.TOOL}, {Label.CLASS}) (increase({SERVER_CALLS}{{{with_class}}}[$__range])) > 0",
                "",
                instant=True,
            ).format(pm.PromQueryFormat.TABLE),
            grid.place(18, 8),
            PROMETHEUS,
        )
        .id(next(ids))
        .unit("short")
        .sort_by([cb.TableSortByFieldState().display_name("Value").desc(True)]),
        table_panel(
            "Top error fingerprints per tool (time range)",
            "Failures grouped the way an issue tracker groups them: by fingerprint (a hash of the root "
            "exception type and the tool's own frames, no line numbers or values), per tool, from the failure "
            "log records in Loki. One fingerprint is one bug or one upstream behaviour; the root exception "
            "type says what it is. Open the triage dashboard with a ref of the same fingerprint to see one.",
            loki_table_query(
                f"topk(10, sum by ({loki_key(attrs.GEN_AI_TOOL_NAME)}, {FINGERPRINT}, {ROOT_TYPE}) "
                f'(count_over_time({{{LOKI_SERVICE_LABEL}=~"$service"}} | {FINGERPRINT} != "" [$__range])))'
            ),
            grid.place(24, 8),
            LOKI,
        )
        .id(next(ids))
        .unit("short")
        .sort_by([cb.TableSortByFieldState().display_name("Value").desc(True)]),
        db.Row("Latency").id(next(ids)).grid_pos(grid.row()),
        timeseries_panel(
            "Server latency percentiles",
            "p50/p95/p99 of mcp.server.operation.duration for the selected services and tools, from the "
            "histogram buckets (0.01 s to 300 s). The dots are exemplars: each is one real call; click one to "
            "open its trace in Tempo. Failed calls' traces are always kept; successful ones are sampled by the "
            "Collector, so an exemplar of an ok call may point at a trace that was not kept.",
            "s",
            [
                prom_query(
                    f"histogram_quantile({q}, sum by (le) ({_rate(SERVER_BUCKETS, calls)}))",
                    f"p{round(q * 100)}",
                    ref=ref,
                    exemplar=True,
                )
                for ref, q in (("A", 0.5), ("B", 0.95), ("C", 0.99))
            ],
            grid.place(12, 8),
        ).id(next(ids)),
        timeseries_panel(
            "p95 latency per tool",
            "95th percentile of server-side duration per tool. A tool whose p95 approaches the client timeout "
            "produces timeouts with an unknown side effect: look at the timeouts row below. Exemplars link to "
            "traces.",
            "s",
            [
                prom_query(
                    f"histogram_quantile(0.95, sum by (le, {Label.TOOL}) ({_rate(SERVER_BUCKETS, calls)}))",
                    f"{{{{{Label.TOOL}}}}}",
                    exemplar=True,
                )
            ],
            grid.place(12, 8),
        ).id(next(ids)),
        db.Row("Upstreams").id(next(ids)).grid_pos(grid.row()),
        timeseries_panel(
            "Failures per second by upstream status",
            "Failed calls that carry the upstream's own status (HTTP code, gRPC status, SQLSTATE), by upstream "
            "system and status. 429 / RESOURCE_EXHAUSTED point to rate limits, 5xx / UNAVAILABLE / 57P01 to an "
            "upstream outage; the triage dashboard shows the failing child span with the upstream address.",
            "reqps",
            [
                prom_query(
                    f"sum by ({Label.UPSTREAM_SYSTEM}, {Label.UPSTREAM_STATUS}) "
                    f"({_rate(SERVER_CALLS, server_selector(present(Label.UPSTREAM_STATUS)))})",
                    f"{{{{{Label.UPSTREAM_SYSTEM}}}}} {{{{{Label.UPSTREAM_STATUS}}}}}",
                )
            ],
            grid.place(12, 8),
            stacked=True,
        ).id(next(ids)),
        timeseries_panel(
            "upstream_unavailable and rate_limited per tool",
            "The two retryable classes per tool. A burst of upstream_unavailable is an outage of whatever that "
            "tool calls; a flat, sustained rate_limited line means the tool's quota is too small for its "
            "traffic. Both have alerts.",
            "reqps",
            [
                prom_query(
                    f"sum by ({Label.TOOL}, {Label.CLASS}) ("
                    + _rate(
                        SERVER_CALLS,
                        server_selector(
                            f'{Label.CLASS}=~"{FailureClass.UPSTREAM_UNAVAILABLE}|{FailureClass.RATE_LIMITED}"'
                        ),
                    )
                    + ")",
                    f"{{{{{Label.TOOL}}}}} {{{{{Label.CLASS}}}}}",
                )
            ],
            grid.place(12, 8),
        ).id(next(ids)),
        db.Row("Timeouts, cancellations, retries").id(next(ids)).grid_pos(grid.row()),
        timeseries_panel(
            "Server: cancelled and timed-out calls",
            "Server-side calls that ended cancelled (the client sent notifications/cancelled; no response went "
            "out) or timeout, per tool. Cancellations after long waits mean clients gave up: compare with p95.",
            "reqps",
            [
                prom_query(
                    f"sum by ({Label.TOOL}, {Label.OUTCOME}) ("
                    + _rate(SERVER_CALLS, server_selector(f'{Label.OUTCOME}=~"{Outcome.CANCELLED}|{Outcome.TIMEOUT}"'))
                    + ")",
                    f"{{{{{Label.TOOL}}}}} {{{{{Label.OUTCOME}}}}}",
                )
            ],
            grid.place(12, 8),
        ).id(next(ids)),
        timeseries_panel(
            "Client: timeouts (side effect unknown)",
            "Client-side calls per second that ended in a timeout, per tool. The tool may or may not have run: "
            "only an idempotency key makes a retry safe. Alerted whenever it happens.",
            "reqps",
            [
                prom_query(
                    f"sum by ({Label.TOOL}) ("
                    + _rate(CLIENT_CALLS, client_selector(f'{Label.OUTCOME}="{Outcome.TIMEOUT}"'))
                    + ")",
                    f"{{{{{Label.TOOL}}}}}",
                )
            ],
            grid.place(12, 8),
        ).id(next(ids)),
        timeseries_panel(
            "Client retries per tool",
            "Attempts after the first (errscope.retry=true) per second. Clients retry only the retryable classes; "
            "retries of non-idempotent tools without a key would be a bug.",
            "reqps",
            [
                prom_query(
                    f"sum by ({Label.TOOL}) ({_rate(CLIENT_CALLS, client_selector(eq(Label.RETRY, 'true')))})",
                    f"{{{{{Label.TOOL}}}}}",
                )
            ],
            grid.place(12, 8),
        ).id(next(ids)),
        timeseries_panel(
            "Server: idempotent replays per tool",
            "Calls answered from the idempotency store (errscope.idempotency.replayed=true): a retry whose first "
            "attempt had already done the work. Replays after client timeouts are the system working as designed.",
            "reqps",
            [
                prom_query(
                    f"sum by ({Label.TOOL}) ({_rate(SERVER_CALLS, server_selector(eq(Label.REPLAYED, 'true')))})",
                    f"{{{{{Label.TOOL}}}}}",
                )
            ],
            grid.place(12, 8),
        ).id(next(ids)),
    ]

    dashboard = (
        db.Dashboard("errscope: MCP tool calls")
        .uid(OVERVIEW_UID)
        .description("Call rate, failure ratio by channel and class, latency, upstreams, timeouts and retries.")
        .tags(["errscope", "mcp", "generated"])
        .time("now-1h", "now")
        .refresh("30s")
        .timezone("utc")
        .tooltip(dm.DashboardCursorSync.CROSSHAIR)
        .readonly()
        .link(dashboard_link("Triage", f"/d/{TRIAGE_UID}", "From an error ref, request id or trace id to the upstream event"))
    )
    for variable in _variables():
        dashboard = dashboard.with_variable(variable)
    for panel in panels:
        if isinstance(panel, db.Row):
            dashboard = dashboard.with_row(panel)
        else:
            dashboard = dashboard.with_panel(panel)  # type: ignore[arg-type]
    return dashboard
