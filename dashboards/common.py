"""Panel, query and layout factories shared by every errscope dashboard.

Each factory fixes what every panel of its kind must have (datasource, unit, description) so a
dashboard module only says what is specific to its panels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grafana_foundation_sdk.builders import common as cb
from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.builders import logs, loki, prometheus, stat, table, tempo, text, timeseries
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.models import common as cm
from grafana_foundation_sdk.models import dashboard as dm
from grafana_foundation_sdk.models import tempo as tm
from grafana_foundation_sdk.models import text as txm

from dashboards.names import DS_LOKI, DS_PROMETHEUS, DS_TEMPO

__all__ = [
    "LOKI",
    "PROMETHEUS",
    "RATE",
    "TEMPO",
    "Grid",
    "dashboard_link",
    "logs_panel",
    "loki_query",
    "loki_table_query",
    "prom_query",
    "stat_panel",
    "table_panel",
    "tempo_query",
    "timeseries_panel",
    "text_panel",
    "traces_panel",
]

PROMETHEUS = cm.DataSourceRef(type_val="prometheus", uid=DS_PROMETHEUS)
TEMPO = cm.DataSourceRef(type_val="tempo", uid=DS_TEMPO)
LOKI = cm.DataSourceRef(type_val="loki", uid=DS_LOKI)

RATE = "$__rate_interval"
"""Range of every ``rate()`` in a panel: Grafana sizes it to the scrape/write interval."""


@dataclass
class Grid:
    """Places panels left to right, 24 columns wide, wrapping to a new row when one is full."""

    x: int = 0
    y: int = 0
    row_height: int = 0
    _placed: list[dm.GridPos] = field(default_factory=list)

    def place(self, w: int, h: int) -> dm.GridPos:
        """Return the position of the next ``w``x``h`` panel."""
        if self.x + w > 24:
            self.x, self.y, self.row_height = 0, self.y + self.row_height, 0
        pos = dm.GridPos(h=h, w=w, x=self.x, y=self.y)
        self.x += w
        self.row_height = max(self.row_height, h)
        return pos

    def row(self) -> dm.GridPos:
        """Return the position of a full-width row header on a fresh line."""
        if self.x:
            self.x, self.y, self.row_height = 0, self.y + self.row_height, 0
        pos = dm.GridPos(h=1, w=24, x=0, y=self.y)
        self.y += 1
        return pos


def prom_query(expr: str, legend: str, *, ref: str = "A", exemplar: bool = False, instant: bool = False) -> prometheus.Dataquery:
    """A PromQL target; ``exemplar`` asks Prometheus for exemplars (trace ids) on the series."""
    query = prometheus.Dataquery().ref_id(ref).datasource(PROMETHEUS).expr(expr).legend_format(legend)
    query = query.exemplar(exemplar)
    return query.instant() if instant else query.range()


def tempo_query(traceql: str, *, ref: str = "A", limit: int = 20, spans: bool = True) -> tempo.Dataquery:
    """A TraceQL search target; ``spans`` returns one row per matching span instead of per trace."""
    table_type = tm.SearchTableType.SPANS if spans else tm.SearchTableType.TRACES
    return (
        tempo.Dataquery()
        .ref_id(ref)
        .datasource(TEMPO)
        .query_type("traceql")
        .query(traceql)
        .limit(limit)
        .spss(10)
        .table_type(table_type)
    )


def loki_query(logql: str, *, ref: str = "A", max_lines: int = 200) -> loki.Dataquery:
    """A LogQL log-stream target."""
    return loki.Dataquery().ref_id(ref).datasource(LOKI).expr(logql).max_lines(max_lines).query_type("range")


def loki_table_query(logql: str, *, ref: str = "A") -> loki.Dataquery:
    """A LogQL metric query evaluated once over the dashboard's range (``$__range``), for a table."""
    return loki.Dataquery().ref_id(ref).datasource(LOKI).expr(logql).query_type("instant").instant(True)


def timeseries_panel(
    title: str,
    description: str,
    unit: str,
    targets: list[prometheus.Dataquery],
    pos: dm.GridPos,
    *,
    stacked: bool = False,
) -> timeseries.Panel:
    """A Prometheus time series panel; ``stacked`` for parts of a whole (rates split by a label)."""
    panel = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(PROMETHEUS)
        .unit(unit)
        .grid_pos(pos)
        .fill_opacity(20 if stacked else 0)
        .line_width(1)
        .min(0)
        .legend(
            cb.VizLegendOptions()
            .show_legend(True)
            .display_mode(cm.LegendDisplayMode.LIST)
            .placement(cm.LegendPlacement.BOTTOM)
        )
        .tooltip(cb.VizTooltipOptions().mode(cm.TooltipDisplayMode.MULTI).sort(cm.SortOrder.DESCENDING))
        .targets(targets)
    )
    if stacked:
        panel = panel.stacking(cb.StackingConfig().mode(cm.StackingMode.NORMAL))
    return panel


def stat_panel(title: str, description: str, unit: str, target: prometheus.Dataquery, pos: dm.GridPos,
               thresholds: list[tuple[float | None, str]]) -> stat.Panel:
    """A single-number Prometheus panel with colour thresholds ``[(value or None for base, colour)]``."""
    steps = [dm.Threshold(value=value, color=colour) for value, colour in thresholds]
    return (
        stat.Panel()
        .title(title)
        .description(description)
        .datasource(PROMETHEUS)
        .unit(unit)
        .grid_pos(pos)
        .thresholds(db.ThresholdsConfig().mode(dm.ThresholdsMode.ABSOLUTE).steps(steps))
        .color_mode(cm.BigValueColorMode.BACKGROUND)
        .with_target(target)
    )


def table_panel(title: str, description: str, target: cogbuilder.Builder[object], pos: dm.GridPos,
                datasource: cm.DataSourceRef, links: list[db.DashboardLink] | None = None) -> table.Panel:
    """A table of query results; ``links`` become data links on every cell."""
    panel = (
        table.Panel()
        .title(title)
        .description(description)
        .datasource(datasource)
        .unit("none")
        .grid_pos(pos)
        .with_target(target)  # type: ignore[arg-type]
    )
    if links:
        panel = panel.data_links(links)  # type: ignore[arg-type]
    return panel


def logs_panel(title: str, description: str, targets: list[loki.Dataquery], pos: dm.GridPos) -> logs.Panel:
    """A Loki logs panel, newest first, with details (structured metadata) expandable per line."""
    return (
        logs.Panel()
        .title(title)
        .description(description)
        .datasource(LOKI)
        .unit("none")
        .grid_pos(pos)
        .show_time(True)
        .enable_log_details(True)
        .wrap_log_message(True)
        .sort_order(cm.LogsSortOrder.DESCENDING)
        .targets(targets)  # type: ignore[arg-type]
    )


def traces_panel(title: str, description: str, target: tempo.Dataquery, pos: dm.GridPos) -> db.Panel:
    """A trace view; the SDK has no builder for the ``traces`` panel, so the generic one is used."""
    return (
        db.Panel()
        .type("traces")
        .title(title)
        .description(description)
        .datasource(TEMPO)
        .unit("none")
        .grid_pos(pos)
        .with_target(target)  # type: ignore[arg-type]
    )


def dashboard_link(title: str, url: str, tooltip: str) -> db.DashboardLink:
    """A link (header or data link) that keeps the time range and opens in the same tab."""
    return (
        db.DashboardLink(title)
        .type(dm.DashboardLinkType.LINK)
        .url(url)
        .tooltip(tooltip)
        .keep_time(True)
        .include_vars(False)
        .target_blank(False)
        .as_dropdown(False)
        .icon("external link")
        .tags([])
    )


def text_panel(title: str, markdown: str, pos: dm.GridPos) -> text.Panel:
    """A Markdown panel: how to use the dashboard, read top to bottom."""
    return (
        text.Panel()
        .title(title)
        .description("How to use this dashboard: the steps from a user report to the upstream event.")
        .unit("none")
        .grid_pos(pos)
        .mode(txm.TextMode.MARKDOWN)
        .content(markdown)
    )
