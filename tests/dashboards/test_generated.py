"""The generated dashboards and provisioning files: committed, deterministic, stable and readable."""

from __future__ import annotations

import json
import re
from itertools import combinations
from pathlib import Path

import pytest
import re2

from dashboards import generate
from dashboards.inventory import all_queries, concrete
from dashboards.names import DS_LOKI, DS_PROMETHEUS, DS_TEMPO, FOLDER_UID, OVERVIEW_UID, TRIAGE_UID

DASHBOARD_FILES = sorted((generate.GRAFANA_DIR / "dashboards").glob("*.json"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


class TestGeneration:
    def test_committed_files_match_the_generator(self) -> None:
        """Every generated file on disk is byte-identical to what `python -m dashboards` writes."""
        stale = [str(path.relative_to(generate.ROOT)) for path, text in generate.outputs().items()
                 if not path.exists() or path.read_text() != text]
        assert [] == stale, "run `make dashboards` and commit the result"

    def test_generation_is_deterministic(self) -> None:
        """Two generator runs give the same bytes."""
        assert generate.outputs() == generate.outputs()

    def test_make_dashboards_says_what_it_did(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
        """Each file written is named; a run that changed nothing says all are up to date (it was silent)."""
        files = {tmp_path / "deploy" / "a.json": "{}\n", tmp_path / "deploy" / "b.yaml": "b: 1\n"}
        monkeypatch.setattr(generate, "ROOT", tmp_path)
        monkeypatch.setattr(generate, "outputs", lambda: files)
        assert generate.main([]) == 0
        assert capsys.readouterr().err == "dashboards: wrote deploy/a.json\ndashboards: wrote deploy/b.yaml\n"
        assert generate.main([]) == 0
        assert capsys.readouterr().err == "dashboards: all 2 files under deploy/ are up to date\n"

    def test_every_dashboard_file_is_generated(self) -> None:
        """No hand-written or stale dashboard JSON sits next to the generated ones."""
        expected = {generate.GRAFANA_DIR / "dashboards" / name for name in generate.DASHBOARDS}
        assert expected == set(DASHBOARD_FILES)


class TestUids:
    def test_dashboard_uids_are_the_fixed_ones(self) -> None:
        """Dashboard UIDs never change: links, alert rules and bookmarks depend on them."""
        assert {OVERVIEW_UID, TRIAGE_UID} == {_load(path)["uid"] for path in DASHBOARD_FILES}
        assert {"errscope-overview", "errscope-triage"} == {OVERVIEW_UID, TRIAGE_UID}

    def test_datasource_uids_are_the_fixed_ones(self) -> None:
        """The datasource UIDs every panel uses are spelled the same in names.py and stay stable."""
        assert ("errscope-prometheus", "errscope-tempo", "errscope-loki", "errscope") == (
            DS_PROMETHEUS, DS_TEMPO, DS_LOKI, FOLDER_UID)

    def test_all_uids_unique(self) -> None:
        """Dashboard, datasource, alert rule and contact point UIDs are unique across everything generated."""
        from dashboards.inventory import load_yaml

        prov = generate.GRAFANA_DIR / "provisioning"
        uids = [_load(path)["uid"] for path in DASHBOARD_FILES]
        uids += [ds["uid"] for ds in load_yaml(prov / "datasources" / "errscope.yaml")["datasources"]]
        uids += [rule["uid"] for group in load_yaml(prov / "alerting" / "errscope-rules.yaml")["groups"]
                 for rule in group["rules"]]
        uids += [receiver["uid"] for point in load_yaml(prov / "alerting" / "errscope-contact-points.yaml")["contactPoints"]
                 for receiver in point["receivers"]]
        assert len(uids) == len(set(uids)), uids


@pytest.mark.parametrize("path", DASHBOARD_FILES, ids=lambda p: p.name)
class TestPanels:
    def test_panel_ids_unique_and_fixed(self, path: Path) -> None:
        """Panel ids are set explicitly and unique (alert rules point at a panel id)."""
        ids = [panel["id"] for panel in _load(path)["panels"]]
        assert len(ids) == len(set(ids)) and all(isinstance(i, int) and i > 0 for i in ids)

    def test_every_panel_has_description_and_unit(self, path: Path) -> None:
        """Each panel says how to read it and sets a unit."""
        for panel in _load(path)["panels"]:
            if panel["type"] == "row":
                continue
            assert len(panel.get("description", "")) > 30, panel["title"]
            assert panel["fieldConfig"]["defaults"].get("unit"), panel["title"]

    def test_panels_do_not_overlap(self, path: Path) -> None:
        """Grid positions stay inside 24 columns and no two panels overlap."""
        boxes = [(p["title"], p["gridPos"]) for p in _load(path)["panels"]]
        for _, pos in boxes:
            assert pos["x"] + pos["w"] <= 24
        for (ta, a), (tb, b) in combinations(boxes, 2):
            overlap = a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]
            assert not overlap, (ta, tb)

    def test_every_query_uses_a_provisioned_datasource(self, path: Path) -> None:
        """Panels and targets reference only the three provisioned datasource UIDs."""
        for panel in _load(path)["panels"]:
            for ref in [panel.get("datasource")] + [t.get("datasource") for t in panel.get("targets", [])]:
                if ref is not None:
                    assert ref["uid"] in {DS_PROMETHEUS, DS_TEMPO, DS_LOKI}, (panel["title"], ref)


class TestOverviewContent:
    def test_top_fingerprints_per_tool(self) -> None:
        """A Loki table counts failure log records by tool, fingerprint and root exception type."""
        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-overview.json")
        (panel,) = [p for p in model["panels"] if p["title"].startswith("Top error fingerprints per tool")]
        (target,) = panel["targets"]
        assert target["datasource"]["type"] == "loki"
        assert "sum by (gen_ai_tool_name, errscope_error_fingerprint, exception_type)" in target["expr"]

    def test_has_the_variables_the_issue_asks_for(self) -> None:
        """Overview variables: service, tool, class; class values are the closed FailureClass set."""
        from errscope import FailureClass

        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-overview.json")
        variables = {v["name"]: v for v in model["templating"]["list"]}
        assert ["service", "tool", "class"] == list(variables)
        assert ",".join(FailureClass) == variables["class"]["query"]

    def test_latency_panels_request_exemplars(self) -> None:
        """Latency panels ask for exemplars so metric points link to traces."""
        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-overview.json")
        latency = [p for p in model["panels"] if p["type"] == "timeseries" and p["fieldConfig"]["defaults"]["unit"] == "s"]
        assert latency and all(t["exemplar"] for p in latency for t in p["targets"])


class TestTriageContent:
    def test_has_text_inputs_for_ref_request_id_and_trace_id(self) -> None:
        """Triage starts from what a user or client log has: an error ref, a request id, a trace id."""
        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-triage.json")
        textboxes = [v["name"] for v in model["templating"]["list"] if v["type"] == "textbox"]
        assert ["ref", "request_id", "trace_id"] == textboxes

    def test_table_rows_link_to_the_trace(self) -> None:
        """Every Tempo table has a data link that sets $trace_id from the row."""
        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-triage.json")
        tables = [p for p in model["panels"] if p["type"] == "table" and p["datasource"]["type"] == "tempo"]
        assert len(tables) == 4
        for panel in tables:
            urls = [link["url"] for link in panel["fieldConfig"]["defaults"]["links"]]
            assert any("var-trace_id=${__data.fields.traceIdHidden}" in url for url in urls), panel["title"]

    def test_root_cause_of_the_ref(self) -> None:
        """A Loki table gives the root exception type, message and fingerprint of the log record under $ref, and the
        server's own words behind ``errscope proxy`` (no exception there)."""
        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-triage.json")
        (panel,) = [p for p in model["panels"] if p["title"] == "Root cause of $ref"]
        (target,) = panel["targets"]
        assert target["datasource"]["type"] == "loki"
        for key in ("exception_type", "exception_message", "errscope_upstream_message", "errscope_error_fingerprint",
                    'errscope_error_ref =~ "(?i)^${ref:regex}$"'):
            assert key in target["expr"]

    def test_what_the_model_saw_says_why_no_retry(self) -> None:
        """The host's record of what the model saw is grouped by its text and by why the client sent no further
        attempt (``errscope.retry.stop_reason``, as Loki names an OTLP log attribute), under $ref."""
        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-triage.json")
        (panel,) = [p for p in model["panels"] if p["title"] == "What the model saw for $ref"]
        (target,) = panel["targets"]
        assert "errscope_model_text" in target["expr"] and "errscope_retry_stop_reason" in target["expr"]
        assert 'errscope_error_ref =~ "(?i)^${ref:regex}$"' in target["expr"]

    def test_has_a_trace_view_and_logs_for_it(self) -> None:
        """A traces panel shows $trace_id and a logs panel queries Loki by that trace id."""
        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-triage.json")
        types = {p["type"]: p for p in model["panels"]}
        assert "$trace_id" == types["traces"]["targets"][0]["query"]
        assert any('trace_id = "$trace_id"' in t["expr"] for t in types["logs"]["targets"])

    def test_descendant_query_uses_structural_operator(self) -> None:
        """The failing-descendants panel finds upstream spans below the tool span with `>>`."""
        model = _load(generate.GRAFANA_DIR / "dashboards" / "errscope-triage.json")
        queries = [t["query"] for p in model["panels"] for t in p.get("targets", []) if "query" in t]
        assert any('{ span.errscope.error_ref =~ "(?i)^${ref:regex}$" } >> {' in q for q in queries)

    @pytest.mark.parametrize("typed", ["ERR-7K3M9QXZ", "err-7k3m9qxz", "Err-7k3M9qxz"])
    def test_the_ref_matches_as_typed(self, typed: str) -> None:
        """Every triage query that selects by the ref finds the span or record of ERR-7K3M9QXZ however its letters
        were typed, and no other ref: the query's regex, with Grafana's regex escaping, run by RE2 (Tempo's and Loki's
        engine)."""
        queries = [q.text for q in all_queries() if "${ref:regex}" in q.text]
        assert len(queries) == 5
        for query in queries:
            (pattern,) = re.findall(r'error_ref =~ "([^"]*)"', concrete(query, {"ref": typed}))
            assert re2.fullmatch(pattern, "ERR-7K3M9QXZ"), query
            assert not re2.fullmatch(pattern, "ERR-7K3M9QXZA") and not re2.fullmatch(pattern, "ERR-7K3M9QX"), query
