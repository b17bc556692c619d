"""The OTLP-JSON reader: both writers' layouts, decoding, and every way a folder can be unusable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errscope._otlp_json import (
    SPAN_KIND_CLIENT,
    SPAN_KIND_SERVER,
    TelemetryError,
    decode_value,
    load,
    telemetry_files,
)

TRACE = "5b8efff798038103d269b633813fc60c"


def _kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


def _span(span_id: str, parent: str, kind: int, name: str, **attributes: Any) -> dict[str, Any]:
    encoded = []
    for key, value in attributes.items():
        if isinstance(value, bool):
            encoded.append(_kv(key, {"boolValue": value}))
        elif isinstance(value, int):
            encoded.append(_kv(key, {"intValue": str(value)}))
        else:
            encoded.append(_kv(key, {"stringValue": value}))
    return {"traceId": TRACE.upper(), "spanId": span_id, "parentSpanId": parent, "name": name, "kind": kind,
            "startTimeUnixNano": "1000", "endTimeUnixNano": "3001000", "attributes": encoded,
            "status": {"code": 2, "message": "not_found"} if kind == SPAN_KIND_SERVER else {},
            "events": [{"name": "cancel_sent", "attributes": [_kv("reason", {"stringValue": "timeout after 1s"})]}]}


def _traces(service: str, *spans: dict[str, Any]) -> str:
    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": [_kv("service.name", {"stringValue": service})]},
        "scopeSpans": [{"scope": {"name": "errscope"}, "spans": list(spans)}],
    }]})


def _logs(service: str, ref: str) -> str:
    return json.dumps({"resourceLogs": [{
        "resource": {"attributes": [_kv("service.name", {"stringValue": service})]},
        "scopeLogs": [{"scope": {"name": "errscope"}, "logRecords": [{
            "timeUnixNano": "2000", "severityText": "ERROR", "body": {"stringValue": "tool call failed"},
            "attributes": [_kv("errscope.error_ref", {"stringValue": ref})], "traceId": TRACE, "spanId": "b" * 16,
        }]}],
    }]})


class TestDecodeValue:
    def test_every_value_kind(self) -> None:
        """intValue strings become ints; arrays and kvlists unpack; an empty value is None."""
        assert decode_value({"stringValue": "x"}) == "x"
        assert decode_value({"intValue": "42"}) == 42
        assert decode_value({"doubleValue": 1.5}) == 1.5
        assert decode_value({"boolValue": True}) is True
        assert decode_value({"arrayValue": {"values": [{"intValue": "1"}, {"stringValue": "a"}]}}) == [1, "a"]
        assert decode_value({"kvlistValue": {"values": [_kv("k", {"stringValue": "v"})]}}) == {"k": "v"}
        assert decode_value({}) is None
        assert decode_value(None) is None


class TestCollectorLayout:
    """What the Collector's file exporter writes: traces.json / logs.json / metrics.json at the top."""

    @pytest.fixture
    def folder(self, tmp_path: Path) -> Path:
        server = _span("b" * 16, "a" * 16, SPAN_KIND_SERVER, "tools/call refund_order",
                       **{"errscope.error_ref": "ERR-AAAAAAAA", "jsonrpc.request.id": "7", "errscope.retry": False})
        upstream = _span("c" * 16, "b" * 16, SPAN_KIND_CLIENT, "POST", **{"http.response.status_code": 404})
        client = _span("a" * 16, "", SPAN_KIND_CLIENT, "tools/call refund_order")
        (tmp_path / "traces.json").write_text(_traces("refunds", server, upstream) + "\n" + _traces("agent", client) + "\n")
        (tmp_path / "logs.json").write_text(_logs("refunds", "ERR-AAAAAAAA") + "\n")
        (tmp_path / "metrics.json").write_text(json.dumps({"resourceMetrics": []}) + "\n")
        return tmp_path

    def test_spans_are_flattened_and_decoded(self, folder: Path) -> None:
        telemetry = load(folder)
        assert 3 == len(telemetry.spans)
        [server] = telemetry.spans_where("errscope.error_ref", "ERR-AAAAAAAA")
        assert (server.trace_id, server.service, server.scope, server.kind_name) == (TRACE, "refunds", "errscope", "SERVER")
        assert server.get("jsonrpc.request.id") == "7" and server.get("errscope.retry") is False
        assert server.failed and server.status_message == "not_found" and server.duration_ms == 3.0
        assert server.events == (("cancel_sent", {"reason": "timeout after 1s"}),)

    def test_tree_navigation(self, folder: Path) -> None:
        telemetry = load(folder)
        [server] = telemetry.spans_where("errscope.error_ref", "ERR-AAAAAAAA")
        [upstream] = telemetry.children(server)
        assert upstream.get("http.response.status_code") == 404
        parent = telemetry.parent(server)
        assert parent is not None and parent.service == "agent"
        assert telemetry.parent(parent) is None
        assert [s.span_id for s in telemetry.trace(TRACE)] == ["b" * 16, "c" * 16, "a" * 16]

    def test_logs_and_metrics(self, folder: Path) -> None:
        telemetry = load(folder)
        [record] = telemetry.logs_where("errscope.error_ref", "ERR-AAAAAAAA")
        assert (record.severity, record.body, record.trace_id, record.service) == (
            "ERROR", "tool call failed", TRACE, "refunds")
        assert telemetry.metric_lines == 1


def test_sdk_layout_in_subfolders(tmp_path: Path) -> None:
    """The demo's layout: one .jsonl set per process in sub-folders; other files are ignored."""
    for name in ("agent", "server"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "traces.jsonl").write_text(_traces(name, _span(name[0] * 16, "", 1, name)) + "\n")
    (tmp_path / "triage.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("not telemetry")
    assert [p.relative_to(tmp_path).as_posix() for p in telemetry_files(tmp_path)] == [
        "agent/traces.jsonl", "server/traces.jsonl"]
    assert {s.service for s in load(tmp_path).spans} == {"agent", "server"}


class TestUnusable:
    """Each problem is a TelemetryError with one line naming the folder or file."""

    def _error(self, folder: Path) -> str:
        with pytest.raises(TelemetryError) as caught:
            load(folder)
        message = str(caught.value)
        assert "\n" not in message
        return message

    def test_missing(self, tmp_path: Path) -> None:
        assert self._error(tmp_path / "nope") == f"{tmp_path / 'nope'} does not exist"

    def test_a_file(self, tmp_path: Path) -> None:
        (tmp_path / "f").write_text("")
        assert self._error(tmp_path / "f").endswith("is not a folder")

    def test_cannot_stat(self, tmp_path: Path) -> None:
        """A stat that fails for a reason other than absence (ENAMETOOLONG here, EACCES alike) is named, not raised."""
        folder = tmp_path / ("o" * 300)
        assert self._error(folder) == f"{folder} cannot be read (File name too long)"

    def test_no_files(self, tmp_path: Path) -> None:
        assert "holds no telemetry" in self._error(tmp_path)

    def test_only_empty_files(self, tmp_path: Path) -> None:
        (tmp_path / "traces.json").write_text("\n\n")
        assert "no spans and no log records" in self._error(tmp_path)

    def test_only_torn_lines(self, tmp_path: Path) -> None:
        (tmp_path / "traces.json").write_text(_traces("s", _span("a" * 16, "", 1, "x"))[:40] + "\n")
        assert self._error(tmp_path) == (
            f"{tmp_path} holds no spans and no log records (empty export files); 1 damaged lines left out, the first:"
            f" {tmp_path / 'traces.json'} line 1 is not JSON (a corrupt or truncated export)")

    def test_wrong_signal_in_file(self, tmp_path: Path) -> None:
        (tmp_path / "logs.json").write_text(_traces("s", _span("a" * 16, "", 1, "x")) + "\n")
        assert "line 1 has no resourceLogs" in self._error(tmp_path)

    def test_malformed_span(self, tmp_path: Path) -> None:
        (tmp_path / "traces.json").write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{}]}]}]}))
        assert "not a well-formed OTLP-JSON trace export" in self._error(tmp_path)

    def test_json_array_line(self, tmp_path: Path) -> None:
        (tmp_path / "metrics.jsonl").write_text("[1, 2]\n")
        assert "line 1 is not an OTLP-JSON export request" in self._error(tmp_path)

    def test_undecodable_bytes(self, tmp_path: Path) -> None:
        (tmp_path / "logs.jsonl").write_bytes(b"\xff\xfe")
        assert "logs.jsonl line 1 is not JSON" in self._error(tmp_path)


def test_torn_lines_are_left_out_and_named(tmp_path: Path) -> None:
    """A line cut by a process killed mid-write, or bytes that are not UTF-8, cost that line only: the rest is read and
    each damaged line is named in ``skipped`` (one torn line refused the whole folder)."""
    good = _traces("s", _span("a" * 16, "", 1, "x"))
    (tmp_path / "traces.json").write_bytes((good + "\n" + good[:40] + "\n").encode() + b"\xff\xfe\n" + good.encode())
    telemetry = load(tmp_path)
    assert [s.span_id for s in telemetry.spans] == ["a" * 16, "a" * 16]
    assert telemetry.skipped == [
        f"{tmp_path / 'traces.json'} line {n} is not JSON (a corrupt or truncated export)" for n in (2, 3)]
