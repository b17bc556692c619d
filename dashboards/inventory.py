"""Every query string the generated files contain, with where it lives and how to make it concrete.

Read from the committed files under ``deploy/`` (not from the builders), so the checks in
``tests/dashboards`` and the end-to-end test prove what Grafana will load. Grafana macros and
dashboard variables are replaced by :func:`concrete` with values like the ones Grafana sends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

__all__ = ["GRAFANA_MACROS", "Query", "all_queries", "concrete", "dashboard_queries", "load_yaml"]

Lang = Literal["promql", "logql", "traceql", "traceid"]

ROOT = Path(__file__).resolve().parent.parent
GRAFANA = ROOT / "deploy" / "grafana"

GRAFANA_MACROS: Mapping[str, str] = {
    "$__rate_interval": "1m",
    "$__interval": "15s",
    "$__range": "1h",
    "${__url_time_range}": "from=now-1h&to=now",
}
"""What Grafana substitutes for its macros; values typical of a 1h range with a 15 s interval."""


@dataclass(frozen=True)
class Query:
    """One query string in a generated file."""

    lang: Lang
    text: str
    where: str
    """File and location, e.g. ``errscope-overview.json panel 3 "Failure ratio by channel" A``."""
    instant: bool = False
    panel_id: int | None = None
    panel_title: str | None = None


def load_yaml(path: Path) -> Any:
    """Load a provisioning YAML file and undo Grafana's ``$$`` escape (what Grafana sees)."""
    return _unescape(yaml.safe_load(path.read_text()))


def _unescape(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("$$", "$")
    if isinstance(value, list):
        return [_unescape(item) for item in value]
    if isinstance(value, dict):
        return {key: _unescape(item) for key, item in value.items()}
    return value


def dashboard_queries(path: Path) -> Iterator[Query]:
    """Queries of one dashboard JSON: panel targets and query variables."""
    model = json.loads(path.read_text())
    for variable in model.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            yield Query("promql", _variable_query(variable["query"]), f"{path.name} variable {variable['name']}")
    for panel in model.get("panels", []):
        for target in panel.get("targets", []):
            kind = target.get("datasource", {}).get("type") or panel.get("datasource", {}).get("type")
            where = f'{path.name} panel {panel.get("id")} "{panel.get("title")}" {target.get("refId")}'
            common = {"where": where, "panel_id": panel.get("id"), "panel_title": panel.get("title")}
            if kind == "prometheus":
                yield Query("promql", target["expr"], instant=bool(target.get("instant")), **common)
            elif kind == "loki":
                yield Query("logql", target["expr"], **common)
            elif kind == "tempo":
                text = target["query"]
                lang: Lang = "traceid" if re.fullmatch(r"\$\{?\w+\}?", text) else "traceql"
                yield Query(lang, text, **common)


def _variable_query(query: str) -> str:
    """``label_values(selector, label)`` → the selector, which is PromQL."""
    match = re.fullmatch(r"label_values\((.*),\s*\w+\)", query)
    return match.group(1) if match else query


def all_queries() -> list[Query]:
    """Every query in every generated dashboard, alert rule file and datasource file."""
    queries: list[Query] = []
    for path in sorted((GRAFANA / "dashboards").glob("*.json")):
        queries.extend(dashboard_queries(path))
    rules = load_yaml(GRAFANA / "provisioning" / "alerting" / "errscope-rules.yaml")
    for group in rules["groups"]:
        for rule in group["rules"]:
            for data in rule["data"]:
                if "expr" in data["model"]:
                    queries.append(Query("promql", data["model"]["expr"], f"alert {rule['uid']}", instant=True))
    sources = load_yaml(GRAFANA / "provisioning" / "datasources" / "errscope.yaml")
    for source in sources["datasources"]:
        data = source.get("jsonData", {})
        logs = data.get("tracesToLogsV2", {})
        if logs.get("customQuery"):
            queries.append(Query("logql", logs["query"], f"datasource {source['uid']} tracesToLogsV2"))
        for item in data.get("tracesToMetrics", {}).get("queries", []):
            queries.append(Query("promql", item["query"], f"datasource {source['uid']} tracesToMetrics {item['name']}"))
        for field in data.get("derivedFields", []):
            if field["url"].lstrip().startswith("{"):
                queries.append(Query("traceql", field["url"], f"datasource {source['uid']} derived field {field['name']}"))
    return queries


def concrete(text: str, variables: Mapping[str, str]) -> str:
    """Replace Grafana macros and ``$var`` / ``${var}`` / ``${var:regex}`` dashboard variables with concrete values
    (``regex``: escaped as Grafana's regex format escapes a value).

    Args:
        text: a query as stored in a generated file.
        variables: values for dashboard variables and data-link macros, e.g. ``{"service": ".*",
            "__tags": 'job="demo"'}``.
    """
    for macro, value in GRAFANA_MACROS.items():
        text = text.replace(macro, value)
    for name in sorted(variables, key=len, reverse=True):
        regex = re.sub(r"[\\^$*+?.()|[\]{}/]", lambda m: "\\" + m.group(), variables[name])
        text = text.replace("${" + name + ":regex}", regex)
        text = text.replace("${" + name + "}", variables[name]).replace("$" + name, variables[name])
    return text
