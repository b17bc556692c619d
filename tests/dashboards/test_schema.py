"""Generated dashboards and alert objects validate against the foundation SDK's own JSON schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from dashboards import alerts, generate

SCHEMAS = Path(__file__).parent / "schemas" / "foundation-sdk"
DASHBOARD_FILES = sorted((generate.GRAFANA_DIR / "dashboards").glob("*.json"))
PANEL_KINDS_WITHOUT_SCHEMA = {"row", "traces"}


def _schema(kind: str, definition: str | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / f"{kind}.jsonschema.json").read_text())
    if definition is not None:
        schema = {**schema, "$ref": f"#/definitions/{definition}"}
    return schema


def _errors(instance: Any, schema: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(instance)]


@pytest.mark.parametrize("path", DASHBOARD_FILES, ids=lambda p: p.name)
class TestDashboardSchema:
    def test_dashboard_model(self, path: Path) -> None:
        """The dashboard JSON validates against dashboard.jsonschema.json."""
        assert [] == _errors(json.loads(path.read_text()), _schema("dashboard"))

    def test_panel_options_and_field_config(self, path: Path) -> None:
        """Each panel's options (and custom field config) validate against its panel kind's schema."""
        problems = []
        for panel in json.loads(path.read_text())["panels"]:
            kind = panel["type"]
            if kind in PANEL_KINDS_WITHOUT_SCHEMA:
                continue
            problems += [f"{panel['title']}: {e}" for e in _errors(panel.get("options", {}), _schema(kind, "Options"))]
            custom = panel.get("fieldConfig", {}).get("defaults", {}).get("custom")
            if custom is not None:
                problems += [f"{panel['title']} custom: {e}" for e in _errors(custom, _schema(kind, "FieldConfig"))]
        assert [] == problems

    def test_targets(self, path: Path) -> None:
        """Every target validates against its datasource's query schema."""
        problems = []
        for panel in json.loads(path.read_text())["panels"]:
            for target in panel.get("targets", []):
                kind = target["datasource"]["type"]
                problems += [f"{panel['title']}: {e}" for e in _errors(target, _schema(kind))]
        assert [] == problems

    def test_panel_kinds_are_known(self, path: Path) -> None:
        """A panel kind without a vendored schema is one of the known exceptions."""
        kinds = {panel["type"] for panel in json.loads(path.read_text())["panels"]}
        unknown = {k for k in kinds - PANEL_KINDS_WITHOUT_SCHEMA if not (SCHEMAS / f"{k}.jsonschema.json").exists()}
        assert set() == unknown


class TestAlertingSchema:
    def test_rule_group(self) -> None:
        """The SDK-built rule group validates against alerting.jsonschema.json's RuleGroup."""
        assert [] == _errors(alerts.sdk_rule_group(), _schema("alerting", "RuleGroup"))

    def test_expression_models(self) -> None:
        """The reduce/threshold expression models validate against expr.jsonschema.json."""
        problems = []
        for rule in alerts.sdk_rule_group()["rules"]:
            for query in rule["data"]:
                kind = "expr" if query["datasourceUid"] == "__expr__" else "prometheus"
                problems += [f"{rule['uid']} {query['refId']}: {e}" for e in _errors(query["model"], _schema(kind))]
        assert [] == problems

    def test_contact_points_and_policy(self) -> None:
        """Contact point receivers and the policy tree validate against the SDK's alerting schema."""
        problems = []
        for point in alerts.grafana_contact_points()["contactPoints"]:
            for receiver in point["receivers"]:
                instance = {"name": point["name"], **receiver}
                problems += _errors(instance, _schema("alerting", "ContactPoint"))
        policy = {k: v for k, v in alerts.grafana_policies()["policies"][0].items() if k != "orgId"}
        problems += _errors(policy, _schema("alerting", "NotificationPolicy"))
        assert [] == problems
