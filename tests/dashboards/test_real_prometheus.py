"""Every PromQL of every panel, variable, alert rule and datasource link runs on a real Prometheus.

The data is real: ``tests/dashboards/feed.py`` drives an ``errscope.instrument``-ed MCP server through
``errscope.client.ToolClient``; the OpenTelemetry SDK exports OTLP to the project's Collector binary,
whose ``prometheusremotewrite`` exporter writes into Debian's Prometheus (remote-write receiver,
exemplar storage). Each query is made concrete the way Grafana does (variables, ``$__rate_interval``)
and must return the series the feed's calls imply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from dashboards.inventory import Query, all_queries, concrete
from dashboards.names import CLIENT_DURATION, PROM_INSTANCE_LABEL, PROM_SERVICE_LABEL, SERVER_DURATION, Label, prom_label
from errscope import FailureClass
from errscope._attributes import METRIC_ATTRIBUTES
from tests.dashboards import feed
from tests.dashboards.conftest import SERVICE, Fed, server_refs

pytestmark = pytest.mark.stack

VARIABLES = {
    "service": SERVICE,
    "tool": ".*",
    "class": ".+",
    "__tags": f'{PROM_SERVICE_LABEL}="{SERVICE}", {Label.TOOL}="get_order"',
}
TOOLS = {tool for tool, *_ in feed.PLAN} | {"create_ticket"}
FAILING = {"get_order": "not_found", "charge_card": "upstream_unavailable", "get_quote": "rate_limited",
           "crash": "unknown", "internal": "unknown", "read_secret": "permission_denied", "schedule": "invalid_input"}
UNKNOWN_SHARE = 3 / 12  # per round: crash 2 + internal 1 unknown of 12 server-side failures (get_quote retried once)

Samples = list[dict[str, Any]]


def labels(samples: Samples, *names: str) -> set[tuple[str, ...]]:
    return {tuple(s["metric"].get(n, "") for n in names) for s in samples}


def value(samples: Samples, **match: str) -> float:
    [hit] = [s for s in samples if all(s["metric"].get(k) == v for k, v in match.items())]
    return float(hit["value"][1])


def _single_between(low: float, high: float) -> Callable[[Samples], None]:
    def check(samples: Samples) -> None:
        assert 1 == len(samples) and low < float(samples[0]["value"][1]) < high, samples
    return check


def _failure_ratio_per_tool(samples: Samples) -> None:
    assert set(FAILING) == {t for (t,) in labels(samples, Label.TOOL)}
    assert abs(value(samples, **{Label.TOOL: "get_order"}) - 3 / 9) < 0.02
    assert all(float(s["value"][1]) == 1.0 for s in samples if s["metric"][Label.TOOL] != "get_order")


EXPECTED: dict[str, Callable[[Samples], None]] = {
    "variable service": lambda s: SERVICE in {m for (m,) in labels(s, PROM_SERVICE_LABEL)},
    "variable tool": lambda s: TOOLS == {t for (t,) in labels(s, Label.TOOL)},
    "Calls per second by outcome": lambda s: {("ok",), ("error",), ("cancelled",)} == labels(s, Label.OUTCOME),
    "Failure ratio by channel": lambda s: (
        {("protocol",), ("execution",)} == labels(s, Label.CHANNEL) and all(0 < float(x["value"][1]) <= 1 for x in s)),
    "Failure ratio per tool": _failure_ratio_per_tool,
    "Failures per second by class": lambda s: {(c.value,) for c in FailureClass} == labels(s, Label.CLASS),
    "Share of failures classed unknown": _single_between(UNKNOWN_SHARE - 0.08, UNKNOWN_SHARE + 0.08),
    "Failures by tool and class (time range)": lambda s: set(FAILING.items()) == labels(s, Label.TOOL, Label.CLASS),
    "Server latency percentiles": _single_between(0, 2),
    "p95 latency per tool": lambda s: TOOLS == {t for (t,) in labels(s, Label.TOOL)},
    "Failures per second by upstream status": lambda s: (
        {("http", "503"), ("http", "429")} == labels(s, Label.UPSTREAM_SYSTEM, Label.UPSTREAM_STATUS)),
    "upstream_unavailable and rate_limited per tool": lambda s: (
        {("charge_card", "upstream_unavailable"), ("get_quote", "rate_limited")} == labels(s, Label.TOOL, Label.CLASS)),
    "Server: cancelled and timed-out calls": lambda s: {("slow", "cancelled")} == labels(s, Label.TOOL, Label.OUTCOME),
    "Client: timeouts (side effect unknown)": lambda s: {("slow",)} == labels(s, Label.TOOL),
    "Client retries per tool": lambda s: {("get_quote",)} == labels(s, Label.TOOL),
    # The feed sends create_ticket twice per round with one key: the second call is a replay.
    "Server: idempotent replays per tool": lambda s: {("create_ticket",)} == labels(s, Label.TOOL),
    "alert errscope-tool-failure-ratio": lambda s: (
        {(SERVICE, t) for t, c in FAILING.items() if c != "invalid_input"} == labels(s, PROM_SERVICE_LABEL, Label.TOOL)),
    "alert errscope-unknown-class-share": _single_between(UNKNOWN_SHARE - 0.08, UNKNOWN_SHARE + 0.08),
    "alert errscope-protocol-internal-error": lambda s: {(SERVICE, "internal")} == labels(s, PROM_SERVICE_LABEL, Label.TOOL),
    "alert errscope-upstream-unavailable-burst": lambda s: (
        {("charge_card", "http")} == labels(s, Label.TOOL, Label.UPSTREAM_SYSTEM) and value(s) > 0),
    "alert errscope-rate-limited-sustained": lambda s: {("get_quote",)} == labels(s, Label.TOOL) and value(s) > 0,
    "alert errscope-client-timeouts": lambda s: {(SERVICE, "slow")} == labels(s, PROM_SERVICE_LABEL, Label.TOOL),
    "tracesToMetrics Failure ratio of this tool": _single_between(3 / 9 - 0.02, 3 / 9 + 0.02),
    "tracesToMetrics p95 latency of this tool": _single_between(0, 2),
}

PROMQL = [q for q in all_queries() if q.lang == "promql"]


def _expectation(query: Query) -> Callable[[Samples], Any]:
    keys = [key for key in EXPECTED if (query.panel_title == key) or query.where.endswith(key)
            or f" {key}" in query.where and key.startswith(("variable", "alert", "tracesToMetrics"))]
    assert len(keys) == 1, f"no (or ambiguous) expectation for {query.where}: {keys}"
    return EXPECTED[keys[0]]


def test_every_promql_has_an_expectation() -> None:
    """Adding a panel, variable or rule without saying what it must return fails here."""
    for query in PROMQL:
        _expectation(query)


@pytest.mark.parametrize("query", [pytest.param(q, id=q.where) for q in PROMQL])
def test_query_returns_expected_series(fed: Fed, query: Query) -> None:
    """The query, made concrete as Grafana would, returns the series the feed's calls imply."""
    expr = concrete(query.text.replace("$__rate_interval", fed.rate_interval), VARIABLES)
    samples = fed.query(expr)
    check = _expectation(query)
    assert check(samples) in (None, True), (expr, samples)


def test_alert_expressions_fire_on_the_feed(fed: Fed) -> None:
    """The Prometheus rendering of each rule (value > threshold) fires where the feed makes it fire."""
    from dashboards.alerts import RULES

    firing = {spec.uid: labels(fed.query(spec.alert_expr), Label.TOOL) for spec in RULES}
    assert {("charge_card",), ("crash",), ("get_order",), ("get_quote",), ("internal",), ("read_secret",)} == (
        firing["errscope-tool-failure-ratio"])
    assert {("",)} == firing["errscope-unknown-class-share"]
    assert {("internal",)} == firing["errscope-protocol-internal-error"]
    assert {("slow",)} == firing["errscope-client-timeouts"]
    assert set() == firing["errscope-rate-limited-sustained"]  # one 429 a round is not sustained


class TestSeriesShape:
    def test_exact_series_names(self, fed: Fed) -> None:
        """The remote-write translation gives exactly these errscope series names."""
        names = set(fed.prometheus.api("/api/v1/label/__name__/values"))
        expected = {f"{base}_{suffix}" for base in (SERVER_DURATION, CLIENT_DURATION) for suffix in ("bucket", "count", "sum")}
        assert expected == {n for n in names if n.startswith("mcp_")}
        assert ("mcp_server_operation_duration_seconds", "mcp_client_operation_duration_seconds") == (
            SERVER_DURATION, CLIENT_DURATION)

    def test_labels_are_translated_attributes(self, fed: Fed) -> None:
        """Labels on errscope series are METRIC_ATTRIBUTES translated, plus job/instance/le and the scope labels."""
        series = fed.prometheus.api("/api/v1/series", **{"match[]": '{__name__=~"mcp_.*"}'})
        seen = {key for s in series for key in s}
        # Resource attributes reach series labels only through target_info, or on every series when the
        # exporter's resource_to_telemetry_conversion is on (the project's config turns it on).
        resource = {key for s in fed.prometheus.api("/api/v1/series", **{"match[]": "target_info"}) for key in s}
        resource |= {prom_label("service.name"), prom_label("service.instance.id")}
        allowed = {prom_label(a) for a in METRIC_ATTRIBUTES} | resource | {
            "__name__", PROM_SERVICE_LABEL, PROM_INSTANCE_LABEL, "le", "otel_scope_name", "otel_scope_version"}
        assert set() == seen - allowed
        assert {SERVICE} == {s[PROM_SERVICE_LABEL] for s in series}
        assert {"true", "false"} == {s[Label.RETRY] for s in series if Label.RETRY in s}

    def test_exemplars_carry_trace_ids_of_exported_traces(self, fed: Fed) -> None:
        """Latency panels' exemplars have a trace_id label (the datasource's exemplar name) of a real trace."""
        expr = concrete(
            next(q.text for q in PROMQL if q.panel_title == "Server latency percentiles"), VARIABLES)
        data = fed.prometheus.api("/api/v1/query_exemplars", query=expr,
                                  start=f"{fed.at - 600:.3f}", end=f"{fed.at:.3f}")
        trace_ids = {e["labels"]["trace_id"] for series in data for e in series["exemplars"]}
        assert trace_ids
        exported = {span["traceId"] for batch in fed.collector.read("traces") for rs in batch["resourceSpans"]
                    for ss in rs["scopeSpans"] for span in ss["spans"]}
        assert trace_ids <= exported


_ATTRIBUTE_REF = re.compile(r"\b(span|resource)\.([A-Za-z_][A-Za-z0-9_.]*)")
_LOGQL_LABEL = re.compile(r"(?:[{,|]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")


class TestAgainstExportedTelemetry:
    def test_traceql_attributes_exist_on_exported_spans(self, fed: Fed) -> None:
        """Every span./resource. attribute a TraceQL query names is on at least one span the Collector exported."""
        span_keys: set[str] = set()
        resource_keys: set[str] = set()
        for batch in fed.collector.read("traces"):
            for rs in batch["resourceSpans"]:
                resource_keys |= {a["key"] for a in rs["resource"].get("attributes", [])}
                for ss in rs["scopeSpans"]:
                    for span in ss["spans"]:
                        span_keys |= {a["key"] for a in span.get("attributes", [])}
        missing = set()
        for query in all_queries():
            if query.lang == "traceql":
                for scope, name in _ATTRIBUTE_REF.findall(query.text):
                    if name not in (span_keys if scope == "span" else resource_keys):
                        missing.add(f"{scope}.{name} ({query.where})")
        assert set() == missing

    def test_logql_labels_exist_on_exported_log_records(self, fed: Fed) -> None:
        """Every label a LogQL query filters on is what Loki makes of an exported record's attribute or resource."""
        from dashboards.names import LOKI_SERVICE_LABEL, loki_key

        keys = {LOKI_SERVICE_LABEL, "trace_id", "span_id", "severity_text"}
        for batch in fed.collector.read("logs"):
            for rl in batch["resourceLogs"]:
                for sl in rl["scopeLogs"]:
                    for record in sl["logRecords"]:
                        keys |= {loki_key(a["key"]) for a in record.get("attributes", [])}
        referenced = {name for q in all_queries() if q.lang == "logql" for name in _LOGQL_LABEL.findall(q.text)}
        assert referenced and set() == referenced - keys

    def test_replayed_call_is_marked_on_its_server_span(self, fed: Fed) -> None:
        """The repeated create_ticket call's SERVER span says errscope.idempotency.replayed = true."""
        replayed = []
        for batch in fed.collector.read("traces"):
            for rs in batch["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    for span in ss["spans"]:
                        attributes = {a["key"]: a["value"] for a in span.get("attributes", [])}
                        if span["kind"] == 2 and attributes.get("gen_ai.tool.name", {}).get("stringValue") == "create_ticket":
                            replayed.append(attributes.get("errscope.idempotency.replayed", {}).get("boolValue"))
        assert sorted(replayed, key=str) == sorted([False, True] * feed.ROUNDS, key=str)

    def test_failed_calls_are_in_the_traces_by_ref(self, fed: Fed) -> None:
        """Each server-answered failure's error ref is on an exported SERVER span (what the triage panels query).

        A client timeout's ref is minted by the client (the server never answered), so it is on the CLIENT span.
        """
        refs = {c["error_ref"] for c in fed.summary["calls"] if c["error_ref"] and c["outcome"] == "error"}
        assert refs and refs <= server_refs(fed.collector)


def test_grafana_and_prometheus_renderings_agree_on_real_data(fed: Fed) -> None:
    """Grafana's pipeline (A = instant query, B = reduce last, C = threshold gt) and the Prometheus rule
    (`expr > threshold`) pick the same series on the feed's data."""
    from dashboards.alerts import RULES
    from dashboards.inventory import GRAFANA, load_yaml

    doc = load_yaml(GRAFANA / "provisioning" / "alerting" / "errscope-rules.yaml")
    grafana = {rule["uid"]: {q["refId"]: q["model"] for q in rule["data"]} for rule in doc["groups"][0]["rules"]}
    for spec in RULES:
        models = grafana[spec.uid]
        assert ("reduce", "last", "threshold", "gt") == (
            models["B"]["type"], models["B"]["reducer"], models["C"]["type"], models["C"]["conditions"][0]["evaluator"]["type"])
        threshold = models["C"]["conditions"][0]["evaluator"]["params"][0]
        by_grafana = {tuple(sorted(s["metric"].items())) for s in fed.query(models["A"]["expr"])
                      if float(s["value"][1]) > threshold}
        by_prometheus = {tuple(sorted(s["metric"].items())) for s in fed.query(spec.alert_expr)}
        assert by_prometheus == by_grafana, spec.uid
