"""Provisioning files have the structure Grafana's file provisioning loads, and their cross-references hold.

Grafana cannot run here (DESIGN.md), so the shapes are checked against the fields of Grafana's provisioning
readers (`pkg/services/provisioning/{datasources,dashboards,alerting}`): known keys only, required keys
present, enumerations in range, every UID/receiver/panel a file names exists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from dashboards import generate, provisioning
from dashboards.inventory import load_yaml
from dashboards.names import DS_LOKI, DS_PROMETHEUS, DS_TEMPO, FOLDER_UID, TRIAGE_UID

PROV = generate.GRAFANA_DIR / "provisioning"
DATASOURCE_KEYS = {"name", "type", "uid", "orgId", "access", "url", "user", "database", "basicAuth", "basicAuthUser",
                   "withCredentials", "isDefault", "jsonData", "secureJsonData", "version", "editable"}
PROVIDER_KEYS = {"name", "orgId", "folder", "folderUid", "type", "disableDeletion", "allowUiUpdates",
                 "updateIntervalSeconds", "options"}
RULE_KEYS = {"uid", "title", "condition", "data", "dashboardUid", "panelId", "noDataState", "execErrState", "for",
             "annotations", "labels", "isPaused", "notification_settings", "keepFiringFor", "record",
             "missingSeriesEvalsToResolve"}
QUERY_KEYS = {"refId", "queryType", "relativeTimeRange", "datasourceUid", "model"}
GO_DURATION = re.compile(r"^(\d+(ms|s|m|h))+$")
SINGLE_DOLLAR = re.compile(r"(?<!\$)\$(?!\$)")


def _raw(path: Path) -> str:
    return path.read_text()


class TestDatasources:
    def _sources(self) -> dict[str, dict[str, Any]]:
        doc = load_yaml(PROV / "datasources" / "errscope.yaml")
        assert 1 == doc["apiVersion"]
        return {ds["uid"]: ds for ds in doc["datasources"]}

    def test_known_keys_and_fixed_uids(self) -> None:
        """Three datasources with the fixed UIDs, only keys Grafana's datasource provisioning reads."""
        sources = self._sources()
        assert {DS_PROMETHEUS, DS_TEMPO, DS_LOKI} == set(sources)
        for ds in sources.values():
            assert set(ds) <= DATASOURCE_KEYS, ds["uid"]
            assert ds["access"] == "proxy" and ds["url"].startswith("http://")
        assert [DS_PROMETHEUS] == [uid for uid, ds in sources.items() if ds.get("isDefault")]

    def test_cross_links(self) -> None:
        """Exemplars → Tempo, traces → Loki and Prometheus, Loki derived fields → Tempo."""
        sources = self._sources()
        prom, tempo, loki = sources[DS_PROMETHEUS]["jsonData"], sources[DS_TEMPO]["jsonData"], sources[DS_LOKI]["jsonData"]
        assert [("trace_id", DS_TEMPO)] == [(d["name"], d["datasourceUid"]) for d in prom["exemplarTraceIdDestinations"]]
        assert DS_LOKI == tempo["tracesToLogsV2"]["datasourceUid"]
        assert DS_PROMETHEUS == tempo["tracesToMetrics"]["datasourceUid"]
        assert tempo["tracesToMetrics"]["queries"]
        assert {DS_TEMPO} == {field["datasourceUid"] for field in loki["derivedFields"]}
        assert {"label"} == {field["matcherType"] for field in loki["derivedFields"]}
        assert "trace_id" in {field["matcherRegex"] for field in loki["derivedFields"]}

    def test_grafana_macros_are_escaped_for_env_interpolation(self) -> None:
        """Grafana expands $VAR in provisioning files; its own ${__…} macros must be written $$."""
        text = _raw(PROV / "datasources" / "errscope.yaml")
        assert "$${__value.raw}" in text and "$${__trace.traceId}" in text
        assert [] == SINGLE_DOLLAR.findall(text)


class TestDashboardProvider:
    def test_one_file_provider(self) -> None:
        """One file provider into the errscope folder, reading the path compose mounts the JSON at."""
        doc = yaml.safe_load(_raw(PROV / "dashboards" / "errscope.yaml"))
        assert 1 == doc["apiVersion"]
        [provider] = doc["providers"]
        assert set(provider) <= PROVIDER_KEYS
        assert ("file", FOLDER_UID) == (provider["type"], provider["folderUid"])
        assert provisioning.DASHBOARDS_MOUNT == provider["options"]["path"]


class TestAlertRules:
    def _doc(self) -> dict[str, Any]:
        doc = load_yaml(PROV / "alerting" / "errscope-rules.yaml")
        assert 1 == doc["apiVersion"]
        return doc

    def test_group_shape(self) -> None:
        """One group with orgId, name, folder title and a Go-duration interval."""
        [group] = self._doc()["groups"]
        assert {"orgId", "name", "folder", "interval", "rules"} == set(group)
        assert GO_DURATION.match(group["interval"])

    def test_rule_shape(self) -> None:
        """Every rule has the keys Grafana's AlertRuleV1 reads, a condition naming one of its queries, valid states."""
        [group] = self._doc()["groups"]
        for rule in group["rules"]:
            assert set(rule) <= RULE_KEYS, rule["uid"]
            refs = [q["refId"] for q in rule["data"]]
            assert rule["condition"] in refs
            assert rule["noDataState"] in {"NoData", "Alerting", "OK", "KeepLast"}
            assert rule["execErrState"] in {"Error", "Alerting", "OK", "KeepLast"}
            assert GO_DURATION.match(rule["for"]), rule["for"]
            for query in rule["data"]:
                assert set(query) <= QUERY_KEYS
                assert query["datasourceUid"] in {DS_PROMETHEUS, "__expr__"}
                assert query["refId"] == query["model"]["refId"]

    def test_rules_carry_summary_runbook_routing_and_triage_link(self) -> None:
        """Each rule: summary, runbook, a link to the triage dashboard (annotation and dashboardUid/panelId), routing labels."""
        triage = json.loads((generate.GRAFANA_DIR / "dashboards" / "errscope-triage.json").read_text())
        panel_ids = {p["id"] for p in triage["panels"]}
        [group] = self._doc()["groups"]
        assert 6 == len(group["rules"])
        for rule in group["rules"]:
            annotations, labels = rule["annotations"], rule["labels"]
            assert annotations["summary"] and len(annotations["runbook"]) > 80
            assert annotations["triage_dashboard"].startswith(f"/d/{TRIAGE_UID}/")
            assert (TRIAGE_UID, True) == (rule["dashboardUid"], rule["panelId"] in panel_ids)
            assert labels["severity"] in {"critical", "warning"} and labels["team"] and labels["component"] == "errscope"

    def test_templating_dollars_are_escaped(self) -> None:
        """`{{ $labels.x }}` is written `{{ $$labels.x }}` so Grafana's env interpolation leaves it alone."""
        text = _raw(PROV / "alerting" / "errscope-rules.yaml")
        assert "$$labels." in text
        assert [] == SINGLE_DOLLAR.findall(text)


class TestContactPointsAndPolicies:
    def test_contact_points(self) -> None:
        """Webhook contact points whose URLs come from environment variables."""
        doc = yaml.safe_load(_raw(PROV / "alerting" / "errscope-contact-points.yaml"))
        assert 1 == doc["apiVersion"]
        for point in doc["contactPoints"]:
            assert {"orgId", "name", "receivers"} == set(point)
            for receiver in point["receivers"]:
                assert receiver["type"] == "webhook" and receiver["uid"]
                assert re.fullmatch(r"\$\{ERRSCOPE_[A-Z_]+\}", receiver["settings"]["url"])

    def test_policy_routes_to_existing_receivers(self) -> None:
        """The policy tree's receivers are all defined contact points; critical alerts route to on-call."""
        points = {p["name"] for p in yaml.safe_load(_raw(PROV / "alerting" / "errscope-contact-points.yaml"))["contactPoints"]}
        doc = yaml.safe_load(_raw(PROV / "alerting" / "errscope-policies.yaml"))
        assert 1 == doc["apiVersion"]
        [policy] = doc["policies"]
        assert policy["receiver"] in points
        assert all(route["receiver"] in points for route in policy["routes"])
        assert any(["severity", "=", "critical"] in route["object_matchers"] for route in policy["routes"])


@pytest.mark.parametrize("path", sorted(PROV.rglob("*.yaml")), ids=lambda p: str(p.relative_to(PROV)))
def test_every_provisioning_file_has_api_version_1(path: Path) -> None:
    """Grafana skips provisioning files without apiVersion 1."""
    assert 1 == yaml.safe_load(path.read_text())["apiVersion"]
