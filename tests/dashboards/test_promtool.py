"""The alert logic, unit-tested with ``promtool test rules`` on the rules derived from ``dashboards.alerts.RULES``.

``deploy/prometheus/rules/errscope-alerts.rules.yaml`` is generated from the same specs as the
Grafana-provisioned rules (same PromQL, same threshold and ``for``). Each case below gives input series
and says which alerts must fire, with which labels and annotations, and when they must not.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from dashboards import generate
from dashboards.alerts import RULES, AlertSpec
from tests.conftest import require_executable

pytestmark = pytest.mark.stack

SERVER = "mcp_server_operation_duration_seconds_count"
CLIENT = "mcp_client_operation_duration_seconds_count"
CALL = 'mcp_method_name="tools/call"'


def series(metric: str, values: str, **labels: str) -> dict[str, str]:
    matchers = ", ".join([CALL, *(f'{k}="{v}"' for k, v in labels.items())])
    return {"series": f"{metric}{{{matchers}}}", "values": values}


@dataclass(frozen=True)
class Case:
    """Input series for one rule, and at each evaluation time the output label sets that must be firing."""

    uid: str
    inputs: list[dict[str, str]]
    expect: dict[str, list[dict[str, str]]]


CASES = [
    Case(
        "errscope-tool-failure-ratio",
        [
            series(SERVER, "0+3x30", job="svc", gen_ai_tool_name="get_order", errscope_outcome="error",
                   errscope_failure_class="not_found"),
            series(SERVER, "0+7x30", job="svc", gen_ai_tool_name="get_order", errscope_outcome="ok"),
            # invalid_input is the model's mistake, not an incident: 90% of calls, no alert.
            series(SERVER, "0+9x30", job="svc", gen_ai_tool_name="search", errscope_outcome="error",
                   errscope_failure_class="invalid_input"),
            series(SERVER, "0+1x30", job="svc", gen_ai_tool_name="search", errscope_outcome="ok"),
            # 10% failures: below the threshold.
            series(SERVER, "0+1x30", job="svc", gen_ai_tool_name="list", errscope_outcome="error",
                   errscope_failure_class="upstream_unavailable"),
            series(SERVER, "0+9x30", job="svc", gen_ai_tool_name="list", errscope_outcome="ok"),
        ],
        {"5m": [], "20m": [{"job": "svc", "gen_ai_tool_name": "get_order"}]},
    ),
    Case(
        "errscope-unknown-class-share",
        [
            series(SERVER, "0+1x40", job="svc", gen_ai_tool_name="a", errscope_outcome="error",
                   errscope_channel="execution", errscope_failure_class="unknown"),
            series(SERVER, "0+20x40", job="svc", gen_ai_tool_name="a", errscope_outcome="error",
                   errscope_channel="execution", errscope_failure_class="not_found"),
            series(SERVER, "0+20x40", job="clean", gen_ai_tool_name="a", errscope_outcome="error",
                   errscope_channel="execution", errscope_failure_class="not_found"),
        ],
        {"10m": [], "35m": [{"job": "svc"}]},
    ),
    Case(
        "errscope-protocol-internal-error",
        [
            series(SERVER, "0 0 0 1 1 1 1 1 1 1 1 1 1 1 1", job="svc", gen_ai_tool_name="refund",
                   errscope_channel="protocol", rpc_response_status_code="-32603", errscope_outcome="error"),
            # -32602 is the caller's mistake: never this alert.
            series(SERVER, "0+5x14", job="svc", gen_ai_tool_name="refund", errscope_channel="protocol",
                   rpc_response_status_code="-32602", errscope_outcome="error"),
        ],
        {"2m": [], "4m": [{"job": "svc", "gen_ai_tool_name": "refund"}], "14m": []},
    ),
    Case(
        "errscope-upstream-unavailable-burst",
        [
            series(SERVER, "0+2x20", job="svc", gen_ai_tool_name="charge", errscope_failure_class="upstream_unavailable",
                   errscope_upstream_system="http", errscope_upstream_status="503", errscope_outcome="error"),
            series(SERVER, "0+0.5x20", job="svc", gen_ai_tool_name="lookup", errscope_failure_class="upstream_unavailable",
                   errscope_upstream_system="postgresql", errscope_upstream_status="57P01", errscope_outcome="error"),
        ],
        {"3m": [], "10m": [{"job": "svc", "gen_ai_tool_name": "charge", "errscope_upstream_system": "http"}]},
    ),
    Case(
        "errscope-rate-limited-sustained",
        [
            series(SERVER, "0+1x40", job="svc", gen_ai_tool_name="quote", errscope_failure_class="rate_limited",
                   errscope_outcome="error"),
            series(SERVER, "0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", job="svc",
                   gen_ai_tool_name="blip", errscope_failure_class="rate_limited", errscope_outcome="error"),
        ],
        {"15m": [], "35m": [{"job": "svc", "gen_ai_tool_name": "quote"}]},
    ),
    Case(
        "errscope-client-timeouts",
        [
            series(CLIENT, "0 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1", job="agent", gen_ai_tool_name="export",
                   errscope_outcome="timeout"),
            series(CLIENT, "0+10x15", job="agent", gen_ai_tool_name="export", errscope_outcome="ok"),
        ],
        {"1m": [], "3m": [{"job": "agent", "gen_ai_tool_name": "export"}], "15m": []},
    ),
]

SPECS = {spec.uid: spec for spec in RULES}


def _expand(template: str, labels: dict[str, str]) -> str:
    return re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels[m.group(1)], template)


def _alert_tests(case: Case, spec: AlertSpec) -> list[dict[str, Any]]:
    tests = []
    for at, firing in case.expect.items():
        exp = [
            {"exp_labels": {**output, **spec.labels},
             "exp_annotations": {k: _expand(v, output) for k, v in spec.annotations.items()}}
            for output in firing
        ]
        tests.append({"eval_time": at, "alertname": spec.alert_name, "exp_alerts": exp})
    return tests


def _test_file(tmp: Path) -> Path:
    document = {
        "rule_files": [str(generate.PROMETHEUS_RULES)],
        "evaluation_interval": "1m",
        "tests": [
            {"interval": "1m", "input_series": case.inputs, "alert_rule_test": _alert_tests(case, SPECS[case.uid])}
            for case in CASES
        ],
    }
    path = tmp / "errscope-alerts.test.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def test_every_rule_has_a_case() -> None:
    """Each rule is unit-tested, both firing and not firing."""
    assert set(SPECS) == {case.uid for case in CASES}
    for case in CASES:
        assert any(case.expect.values()) and not all(case.expect.values()), case.uid


def test_promtool_check_rules() -> None:
    """The derived rules file is valid for Prometheus (syntax, PromQL, templates)."""
    promtool = require_executable("promtool")
    result = subprocess.run([promtool, "check", "rules", str(generate.PROMETHEUS_RULES)],  # noqa: S603
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(RULES)} rules found" in result.stdout


def test_promtool_test_rules(tmp_path: Path) -> None:
    """`promtool test rules`: every case fires exactly the expected alerts, with labels and annotations."""
    promtool = require_executable("promtool")
    path = _test_file(tmp_path)
    result = subprocess.run([promtool, "test", "rules", str(path)], capture_output=True, text=True,  # noqa: S603
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_rules_file_is_derived_from_the_specs() -> None:
    """The Prometheus rendering carries each spec's expression, threshold, `for`, labels and annotations."""
    doc = yaml.safe_load(generate.PROMETHEUS_RULES.read_text())
    rules = {rule["alert"]: rule for rule in doc["groups"][0]["rules"]}
    for spec in RULES:
        rule = rules[spec.alert_name]
        assert (spec.alert_expr, spec.labels, spec.annotations) == (rule["expr"], rule["labels"], rule["annotations"])
        assert rule.get("for", "0m") == spec.for_


def test_grafana_rules_use_the_same_expressions(tmp_path: Path) -> None:
    """Grafana's query A is the spec's expression and its threshold C the spec's threshold."""
    from dashboards.inventory import load_yaml

    doc = load_yaml(generate.GRAFANA_DIR / "provisioning" / "alerting" / "errscope-rules.yaml")
    grafana = {rule["uid"]: rule for rule in doc["groups"][0]["rules"]}
    for spec in RULES:
        data = {q["refId"]: q["model"] for q in grafana[spec.uid]["data"]}
        assert spec.expr == data["A"]["expr"]
        assert [spec.threshold] == data["C"]["conditions"][0]["evaluator"]["params"]
        assert (spec.for_, spec.labels, spec.annotations) == (
            grafana[spec.uid]["for"], grafana[spec.uid]["labels"], grafana[spec.uid]["annotations"])


@pytest.mark.parametrize("spec", RULES, ids=lambda s: s.uid)
def test_alert_names_are_valid(spec: AlertSpec) -> None:
    """Prometheus alert names are identifiers derived from the UID."""
    assert re.fullmatch(r"[A-Z][A-Za-z0-9]*", spec.alert_name)
