"""The name translations every query is built from (checked against real data in test_real_prometheus.py)."""

from __future__ import annotations

import pytest

from dashboards.names import CLIENT_DURATION, SERVER_DURATION, Label, loki_key, prom_label, prom_metric
from errscope._attributes import METRIC_ATTRIBUTES


class TestPromLabel:
    @pytest.mark.parametrize(
        ("attribute", "label"),
        [
            ("gen_ai.tool.name", "gen_ai_tool_name"),
            ("errscope.idempotency.replayed", "errscope_idempotency_replayed"),
            ("http.response.status_code", "http_response_status_code"),
            ("a-b/c", "a_b_c"),
            ("9lives", "key_9lives"),
        ],
    )
    def test_translation(self, attribute: str, label: str) -> None:
        """Characters outside [A-Za-z0-9_] become `_`; a leading digit gets the `key_` prefix."""
        assert label == prom_label(attribute)

    def test_label_class_covers_metric_attributes_exactly(self) -> None:
        """`Label` names every metric attribute, and nothing else."""
        names = {value for key, value in vars(Label).items() if key.isupper()}
        assert {prom_label(a) for a in METRIC_ATTRIBUTES} == names


class TestPromMetric:
    def test_histograms(self) -> None:
        """Seconds histograms get the `_seconds` suffix once."""
        assert "mcp_server_operation_duration_seconds" == SERVER_DURATION
        assert "mcp_client_operation_duration_seconds" == CLIENT_DURATION
        assert "x_duration_seconds" == prom_metric("x.duration.seconds", "s")
        assert "queue_size" == prom_metric("queue.size", "1")


def test_loki_key() -> None:
    """Loki's OTLP translation of attribute names: dots to underscores."""
    assert "errscope_error_ref" == loki_key("errscope.error_ref")
