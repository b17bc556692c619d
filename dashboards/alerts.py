"""Alert rules, defined once and rendered twice.

:data:`RULES` is the one source. :func:`grafana_rule_group` renders it as Grafana-managed rules (query
A = the PromQL, B = reduce last, C = threshold) in the file-provisioning shape Grafana loads from
``provisioning/alerting/``; :func:`prometheus_rules` renders the same expressions as a Prometheus
rules file that exists only so ``promtool check rules`` / ``promtool test rules`` can prove the alert
logic (``tests/dashboards/promtool/``). Annotations use ``$labels`` templating, which both engines
understand; Grafana's provisioning interpolates environment variables, so its rendering escapes ``$``
as ``$$``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from grafana_foundation_sdk.builders import alerting as ab
from grafana_foundation_sdk.builders import expr as eb
from grafana_foundation_sdk.builders import prometheus
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import alerting as am
from grafana_foundation_sdk.models import common as cm

from dashboards.names import (
    CLIENT_DURATION,
    DS_PROMETHEUS,
    FOLDER_UID,
    PROM_SERVICE_LABEL,
    SERVER_DURATION,
    TOOLS_CALL,
    TRIAGE_UID,
    Label,
)
from dashboards.provisioning import escape_env
from dashboards.triage import LATEST_FAILURES_PANEL_ID
from errscope import Channel, FailureClass, Outcome

__all__ = [
    "CONTACT_POINTS",
    "FOLDER_TITLE",
    "GROUP_NAME",
    "RULES",
    "AlertSpec",
    "grafana_contact_points",
    "grafana_policies",
    "grafana_rule_group",
    "prometheus_rules",
]

FOLDER_TITLE = "errscope"
GROUP_NAME = "errscope"
GROUP_INTERVAL_SECONDS = 60
TEAM_RECEIVER = "errscope-team"
ONCALL_RECEIVER = "errscope-oncall"
CONTACT_POINTS = (TEAM_RECEIVER, ONCALL_RECEIVER)

SERVER_CALLS = f"{SERVER_DURATION}_count"
CLIENT_CALLS = f"{CLIENT_DURATION}_count"
TRIAGE_URL = f"/d/{TRIAGE_UID}/errscope-triage"


@dataclass(frozen=True)
class AlertSpec:
    """One alert: a PromQL expression whose value per series is compared with a threshold."""

    uid: str
    """Fixed rule UID (Grafana) and ``alert`` name (Prometheus)."""
    title: str
    expr: str
    """PromQL returning one series per alerting entity; its value is compared with ``threshold``."""
    threshold: float
    """The rule fires while ``expr > threshold`` has held for ``for_``."""
    for_: str
    severity: str
    """``critical`` pages (on-call receiver); ``warning`` goes to the team channel."""
    summary: str
    runbook: str
    """What to check first."""
    triage_query: str = ""
    """Query string appended to the triage dashboard link, e.g. ``var-service={{ $labels.job }}``."""
    extra_labels: dict[str, str] = field(default_factory=dict)

    @property
    def labels(self) -> dict[str, str]:
        """Routing labels: severity, team, and which errscope concern this is."""
        return {"severity": self.severity, "team": "mcp", "component": "errscope", **self.extra_labels}

    @property
    def annotations(self) -> dict[str, str]:
        """Summary, runbook and triage link, with ``$labels`` templating."""
        link = TRIAGE_URL + (f"?{self.triage_query}" if self.triage_query else "")
        return {"summary": self.summary, "runbook": self.runbook, "triage_dashboard": link}

    @property
    def alert_name(self) -> str:
        """The Prometheus ``alert`` name: the UID in CamelCase (``errscope-client-timeouts`` → ``ErrscopeClientTimeouts``)."""
        return "".join(part.capitalize() for part in self.uid.split("-"))

    @property
    def alert_expr(self) -> str:
        """The Prometheus alerting expression: the value expression compared with the threshold."""
        return f"{self.expr} > {self.threshold:g}"


def _sel(*matchers: str) -> str:
    """A selector on tool calls only (the histograms also count tools/list, initialize, ...)."""
    return "{" + ", ".join([f'{Label.METHOD}="{TOOLS_CALL}"', *matchers]) + "}"


def _eq(label: str, value: str) -> str:
    return f'{label}="{value}"'


def _ne(label: str, value: str) -> str:
    return f'{label}!="{value}"'


_BY_TOOL = f"{PROM_SERVICE_LABEL}, {Label.TOOL}"
_SERVICE_TOOL_QUERY = "var-service={{ $labels.job }}"

RULES: tuple[AlertSpec, ...] = (
    AlertSpec(
        uid="errscope-tool-failure-ratio",
        title="MCP tool failure ratio above 20%",
        expr=(
            f"sum by ({_BY_TOOL}) (rate({SERVER_CALLS}"
            f"{_sel(_eq(Label.OUTCOME, Outcome.ERROR), _ne(Label.CLASS, FailureClass.INVALID_INPUT))}[5m]))"
            f" / sum by ({_BY_TOOL}) (rate({SERVER_CALLS}{_sel()}[5m]))"
        ),
        threshold=0.2,
        for_="10m",
        severity="warning",
        summary="{{ $labels.gen_ai_tool_name }} on {{ $labels.job }}: more than 20% of calls fail",
        runbook=(
            "Open the overview's 'Failures per second by class' for this tool: one class dominating points at "
            "its cause (upstream_unavailable/rate_limited: the upstream; permission_denied: credentials; "
            "unknown: a mapping gap). invalid_input (the model's mistakes) is excluded."
        ),
        triage_query=_SERVICE_TOOL_QUERY,
        extra_labels={"concern": "failure_ratio"},
    ),
    AlertSpec(
        uid="errscope-unknown-class-share",
        title="MCP failures classed unknown above 1%",
        expr=(
            f"sum by ({PROM_SERVICE_LABEL}) (rate({SERVER_CALLS}{_sel(_eq(Label.CLASS, FailureClass.UNKNOWN))}[15m]))"
            f" / sum by ({PROM_SERVICE_LABEL}) (rate({SERVER_CALLS}{_sel(_ne(Label.CLASS, ''))}[15m]))"
        ),
        threshold=0.01,
        for_="15m",
        severity="warning",
        summary="{{ $labels.job }}: more than 1% of failures land on the unknown class (the taxonomy has a gap)",
        runbook=(
            "Find an unknown failure in the triage dashboard's 'Latest failures' table, open its trace and read "
            "the exception type on the log record; add a mapping for it to the errscope taxonomy. Nothing is "
            "broken for users beyond vaguer messages and no retry advice."
        ),
        triage_query=_SERVICE_TOOL_QUERY,
        extra_labels={"concern": "taxonomy_gap"},
    ),
    AlertSpec(
        uid="errscope-protocol-internal-error",
        title="MCP protocol-channel internal error (-32603)",
        expr=(
            f"sum by ({_BY_TOOL}) (increase({SERVER_CALLS}"
            f"{_sel(_eq(Label.CHANNEL, Channel.PROTOCOL), _eq(Label.STATUS_CODE, '-32603'))}[5m]))"
        ),
        threshold=0,
        for_="0m",
        severity="critical",
        summary="{{ $labels.gen_ai_tool_name }} on {{ $labels.job }} answered with JSON-RPC -32603 (internal error)",
        runbook=(
            "A -32603 means the server itself failed before or around the tool: errscope maps tool failures to "
            "isError results, so this is a bug in the server or adapter. Open the latest failures with "
            "channel=protocol in the triage dashboard and read the exception type on the log record."
        ),
        triage_query=_SERVICE_TOOL_QUERY,
        extra_labels={"concern": "internal_error"},
    ),
    AlertSpec(
        uid="errscope-upstream-unavailable-burst",
        title="MCP upstream unavailable burst",
        expr=(
            f"sum by ({_BY_TOOL}, {Label.UPSTREAM_SYSTEM}) (increase({SERVER_CALLS}"
            f"{_sel(_eq(Label.CLASS, FailureClass.UPSTREAM_UNAVAILABLE))}[5m]))"
        ),
        threshold=5,
        for_="2m",
        severity="critical",
        summary=(
            "{{ $labels.gen_ai_tool_name }} on {{ $labels.job }}: more than 5 upstream_unavailable failures "
            "in 5 minutes ({{ $labels.errscope_upstream_system }})"
        ),
        runbook=(
            "Check the upstream first: the 'Failing descendants' table of any recent ref shows its address and "
            "status (5xx, UNAVAILABLE, 57P01). Clients retry this class with backoff, so users see delays before "
            "errors; a circuit breaker opening is expected."
        ),
        triage_query=_SERVICE_TOOL_QUERY,
        extra_labels={"concern": "upstream"},
    ),
    AlertSpec(
        uid="errscope-rate-limited-sustained",
        title="MCP tool rate-limited for 15 minutes",
        expr=(
            f"sum by ({_BY_TOOL}) (rate({SERVER_CALLS}"
            f"{_sel(_eq(Label.CLASS, FailureClass.RATE_LIMITED))}[10m]))"
        ),
        threshold=0.01,
        for_="15m",
        severity="warning",
        summary="{{ $labels.gen_ai_tool_name }} on {{ $labels.job }} has been rate-limited by its upstream for 15 minutes",
        runbook=(
            "A sustained rate_limited rate means the tool's upstream quota is below its traffic, not a blip. "
            "Check the upstream's quota and Retry-After values (errscope.retry_after on the tool spans) and "
            "whether one caller retries too eagerly (overview: client retries)."
        ),
        triage_query=_SERVICE_TOOL_QUERY,
        extra_labels={"concern": "rate_limit"},
    ),
    AlertSpec(
        uid="errscope-client-timeouts",
        title="MCP client timeouts (side effect unknown)",
        expr=(
            f"sum by ({_BY_TOOL}) (increase({CLIENT_CALLS}{_sel(_eq(Label.OUTCOME, Outcome.TIMEOUT))}[10m]))"
        ),
        threshold=0,
        for_="0m",
        severity="warning",
        summary=(
            "{{ $labels.job }} timed out calling {{ $labels.gen_ai_tool_name }}: the tool may or may not have "
            "run"
        ),
        runbook=(
            "A client timeout leaves the side effect unknown. Check whether the tool is idempotent (replays "
            "show on the overview) and compare the tool's server p95 with the client timeout; a slow upstream "
            "usually shows as upstream_unavailable on the server side too."
        ),
        extra_labels={"concern": "timeout"},
    ),
)


def _sdk_rule(spec: AlertSpec) -> ab.Rule:
    query = (
        ab.Query("A")
        .datasource_uid(DS_PROMETHEUS)
        .relative_time_range(am.RelativeTimeRange(from_val=900, to=0))
        .model(
            prometheus.Dataquery()
            .ref_id("A")
            .datasource(cm.DataSourceRef(type_val="prometheus", uid=DS_PROMETHEUS))
            .expr(spec.expr)
            .instant()
        )
    )
    reduce = (
        ab.Query("B")
        .datasource_uid("__expr__")
        .model(
            eb.TypeReduce()
            .ref_id("B")
            .expression("A")
            .reducer("last")
            .settings(eb.ExprTypeReduceSettings().mode("dropNN"))
            .datasource(cm.DataSourceRef(type_val="__expr__", uid="__expr__"))
        )
    )
    threshold = (
        ab.Query("C")
        .datasource_uid("__expr__")
        .model(
            eb.TypeThreshold()
            .ref_id("C")
            .expression("B")
            .conditions(
                [
                    eb.ExprTypeThresholdConditions().evaluator(
                        eb.ExprTypeThresholdConditionsEvaluator().type("gt").params([spec.threshold])
                    )
                ]
            )
            .datasource(cm.DataSourceRef(type_val="__expr__", uid="__expr__"))
        )
    )
    return (
        ab.Rule(spec.title)
        .uid(spec.uid)
        .queries([query, reduce, threshold])
        .condition("C")
        .for_val(spec.for_)
        .no_data_state("OK")
        .exec_err_state("Error")
        .is_paused(False)
        .rule_group(GROUP_NAME)
        .folder_uid(FOLDER_UID)
        .labels(spec.labels)
        .annotations(spec.annotations)
    )


def sdk_rule_group() -> dict[str, Any]:
    """The rule group as the SDK builds it (Grafana's provisioning-API shape)."""
    group = ab.RuleGroup(GROUP_NAME).folder_uid(FOLDER_UID).interval(GROUP_INTERVAL_SECONDS)
    group = group.rules([_sdk_rule(spec) for spec in RULES])
    result: dict[str, Any] = json.loads(JSONEncoder(sort_keys=True).encode(group.build()))
    return result


def grafana_rule_group() -> dict[str, Any]:
    """The file-provisioning document for ``provisioning/alerting/``: the SDK's rules, reshaped."""
    api = sdk_rule_group()
    keep = ("uid", "title", "condition", "data", "noDataState", "execErrState", "for", "annotations", "labels",
            "isPaused")
    rules = []
    for rule in api["rules"]:
        out = {key: rule[key] for key in keep if key in rule}
        out["dashboardUid"] = TRIAGE_UID
        out["panelId"] = LATEST_FAILURES_PANEL_ID
        rules.append(out)
    document = {
        "apiVersion": 1,
        "groups": [
            {
                "orgId": 1,
                "name": api["title"],
                "folder": FOLDER_TITLE,
                "interval": f"{api['interval']}s",
                "rules": rules,
            }
        ],
    }
    return escape_env(document)  # type: ignore[no-any-return]


def grafana_contact_points() -> dict[str, Any]:
    """Contact points: a team webhook and an on-call webhook, URLs from the environment."""
    points = []
    for name, env in ((TEAM_RECEIVER, "ERRSCOPE_ALERT_WEBHOOK_URL"), (ONCALL_RECEIVER, "ERRSCOPE_ONCALL_WEBHOOK_URL")):
        point = (
            ab.ContactPoint()
            .name(name)
            .uid(f"{name}-webhook")
            .type("webhook")
            .settings({"url": "${" + env + "}", "httpMethod": "POST"})
            .disable_resolve_message(False)
        )
        built = json.loads(JSONEncoder(sort_keys=True).encode(point.build()))
        points.append(
            {
                "orgId": 1,
                "name": built["name"],
                "receivers": [
                    {
                        "uid": built["uid"],
                        "type": built["type"],
                        "settings": built["settings"],
                        "disableResolveMessage": built["disableResolveMessage"],
                    }
                ],
            }
        )
    return {"apiVersion": 1, "contactPoints": points}


def grafana_policies() -> dict[str, Any]:
    """The notification policy tree: everything to the team, critical errscope alerts also page."""
    policy = (
        ab.NotificationPolicy()
        .receiver(TEAM_RECEIVER)
        .group_by(["grafana_folder", "alertname", PROM_SERVICE_LABEL])
        .group_wait("30s")
        .group_interval("5m")
        .repeat_interval("4h")
        .routes(
            [
                ab.NotificationPolicy()
                .receiver(ONCALL_RECEIVER)
                .object_matchers([["component", "=", "errscope"], ["severity", "=", "critical"]])
                .continue_val(True),
            ]
        )
    )
    built = json.loads(JSONEncoder(sort_keys=True).encode(policy.build()))
    return {"apiVersion": 1, "policies": [{"orgId": 1, **built}]}


def prometheus_rules() -> dict[str, Any]:
    """The same rules as a Prometheus rules file, for ``promtool check rules`` and ``promtool test rules``."""
    rules = []
    for spec in RULES:
        rule: dict[str, Any] = {"alert": spec.alert_name, "expr": spec.alert_expr}
        if spec.for_ != "0m":
            rule["for"] = spec.for_
        rule["labels"] = spec.labels
        rule["annotations"] = spec.annotations
        rules.append(rule)
    return {"groups": [{"name": GROUP_NAME, "interval": f"{GROUP_INTERVAL_SECONDS}s", "rules": rules}]}
