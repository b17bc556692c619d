"""Dashboards, alerts and datasource links reference only metric labels, span attributes and log keys
that the instrumentation emits (``errscope._attributes``), translated the way the backends translate them.

The same references are also checked against telemetry really exported through the Collector in
``test_real_prometheus.py``; this test needs no external component, so it runs everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

import pytest

from dashboards import alerts, generate
from dashboards.inventory import GRAFANA, Query, all_queries, load_yaml
from dashboards.names import (
    CLIENT_DURATION,
    LOKI_SERVICE_LABEL,
    LOKI_TRACE_ID,
    PROM_INSTANCE_LABEL,
    PROM_SERVICE_LABEL,
    SERVER_DURATION,
    loki_key,
    prom_label,
)
from dashboards.triage import UPSTREAM_SPAN_ATTRIBUTES
from errscope import _attributes
from errscope._attributes import METRIC_ATTRIBUTES
from opentelemetry.semconv.attributes.exception_attributes import EXCEPTION_MESSAGE, EXCEPTION_TYPE
from opentelemetry.semconv.attributes.service_attributes import SERVICE_NAME

SPAN_ATTRIBUTES = frozenset(
    value for name in _attributes.__all__ if isinstance(value := getattr(_attributes, name), str) and "." in value
) | UPSTREAM_SPAN_ATTRIBUTES
RESOURCE_ATTRIBUTES = frozenset({SERVICE_NAME})
PROM_LABELS = frozenset({prom_label(a) for a in METRIC_ATTRIBUTES} | {PROM_SERVICE_LABEL, PROM_INSTANCE_LABEL, "le"})
PROM_METRICS = frozenset(f"{base}_{s}" for base in (SERVER_DURATION, CLIENT_DURATION) for s in ("bucket", "count", "sum"))
LOKI_KEYS = frozenset(
    {loki_key(a) for a in SPAN_ATTRIBUTES | {EXCEPTION_TYPE, EXCEPTION_MESSAGE}}
    | {LOKI_SERVICE_LABEL, LOKI_TRACE_ID, "span_id", "severity_text"}
)

_MATCHER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)\s*\"")
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")
_METRIC = re.compile(r"([A-Za-z_:][A-Za-z0-9_:]*)\s*[{\[]")
_TRACEQL_ATTRIBUTE = re.compile(r"\b(span|resource)\.([A-Za-z_][A-Za-z0-9_.]*)")
_LOGQL_LABEL = re.compile(r"(?:[{,|]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")


def unknown_references(queries: Iterable[Query]) -> set[str]:
    """Return every label, metric, attribute or key a query names that the instrumentation does not emit."""
    unknown: set[str] = set()
    for query in queries:
        text = query.text.replace("${__tags}", "")
        if query.lang == "promql":
            names = set(_MATCHER.findall(text))
            for group in _GROUPING.findall(text):
                names |= {n.strip() for n in group.split(",") if n.strip()}
            unknown |= {f"label {n} ({query.where})" for n in names - PROM_LABELS}
            unknown |= {f"metric {m} ({query.where})" for m in set(_METRIC.findall(text)) - PROM_METRICS}
        elif query.lang == "traceql":
            for scope, name in _TRACEQL_ATTRIBUTE.findall(text):
                allowed = SPAN_ATTRIBUTES if scope == "span" else RESOURCE_ATTRIBUTES
                if name not in allowed:
                    unknown.add(f"{scope}.{name} ({query.where})")
        elif query.lang == "logql":
            unknown |= {f"log key {n} ({query.where})" for n in set(_LOGQL_LABEL.findall(text)) - LOKI_KEYS}
    return unknown


def test_every_query_references_emitted_names_only() -> None:
    """PromQL labels/metrics, TraceQL attributes and LogQL keys all exist in the instrumentation's vocabulary."""
    assert set() == unknown_references(all_queries())


@pytest.mark.parametrize(
    ("lang", "text", "culprit"),
    [
        ("promql", 'sum by (tenant) (rate(mcp_server_operation_duration_seconds_count[5m]))', "label tenant"),
        ("promql", 'rate(mcp_server_operation_duration_seconds_count{errscope_tenant="a"}[5m])', "label errscope_tenant"),
        ("promql", "rate(mcp_server_calls_total[5m])", "metric mcp_server_calls_total"),
        ("traceql", '{ span.errscope.tenant = "a" }', "span.errscope.tenant"),
        ("traceql", '{ resource.k8s.pod.name = "a" }', "resource.k8s.pod.name"),
        ("logql", '{service_name="a"} | errscope_tenant = "x"', "log key errscope_tenant"),
    ],
)
def test_unknown_reference_is_reported(lang: str, text: str, culprit: str) -> None:
    """A query naming something the instrumentation does not emit fails the check."""
    found = unknown_references([Query(lang, text, "synthetic")])  # type: ignore[arg-type]
    assert [culprit] == [f.split(" (")[0] for f in found]


def test_legend_and_variable_labels_are_emitted() -> None:
    """Legend templates ({{label}}) and label_values() variables name emitted labels only."""
    names: set[str] = set()
    for path in sorted((GRAFANA / "dashboards").glob("*.json")):
        model = json.loads(path.read_text())
        for panel in model["panels"]:
            for target in panel.get("targets", []):
                names |= set(re.findall(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}", target.get("legendFormat", "")))
        for variable in model["templating"]["list"]:
            match = re.fullmatch(r"label_values\(.*,\s*(\w+)\)", str(variable.get("query", "")))
            if match:
                names.add(match.group(1))
    assert names and set() == names - PROM_LABELS


def test_datasource_link_tags_are_emitted() -> None:
    """Tempo → Loki/Prometheus tag mappings map emitted span attributes to emitted labels."""
    sources = {ds["uid"]: ds for ds in load_yaml(GRAFANA / "provisioning" / "datasources" / "errscope.yaml")["datasources"]}
    tempo = sources["errscope-tempo"]["jsonData"]
    for tag in tempo["tracesToMetrics"]["tags"]:
        assert tag["key"] in SPAN_ATTRIBUTES | RESOURCE_ATTRIBUTES and tag["value"] in PROM_LABELS
    for tag in tempo["tracesToLogsV2"]["tags"]:
        assert tag["key"] in RESOURCE_ATTRIBUTES and tag["value"] in LOKI_KEYS
    assert tempo["spanBar"]["tag"] in SPAN_ATTRIBUTES
    for field in sources["errscope-loki"]["jsonData"]["derivedFields"]:
        assert field["matcherRegex"] in LOKI_KEYS


def test_alert_annotations_use_labels_the_expression_keeps() -> None:
    """`$labels.x` in a rule's annotations names a label its expression's `by (...)` keeps."""
    for spec in alerts.RULES:
        kept = {n.strip() for group in _GROUPING.findall(spec.expr) for n in group.split(",")}
        used = set(re.findall(r"\$labels\.([A-Za-z_][A-Za-z0-9_]*)", " ".join(spec.annotations.values())))
        assert used <= kept, (spec.uid, used - kept)


def test_generated_files_are_what_was_checked() -> None:
    """The inventory reads the committed files, so this check covers what Grafana loads."""
    assert {p.name for p in (GRAFANA / "dashboards").glob("*.json")} == set(generate.DASHBOARDS)
