"""Grafana provisioning documents: datasources with the cross-links, and the dashboard provider.

The datasource UIDs are the ones every panel and alert query names (:mod:`dashboards.names`); the
URLs are the service names of ``docker-compose.yml``. Grafana interpolates environment variables in
provisioning files, so every literal ``$`` (Grafana's own ``${__value.raw}`` macros) is written ``$$``
by :func:`escape_env`.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.semconv.attributes.service_attributes import SERVICE_NAME

from dashboards.names import (
    DS_LOKI,
    DS_PROMETHEUS,
    DS_TEMPO,
    FOLDER_UID,
    LOKI_SERVICE_LABEL,
    LOKI_TRACE_ID,
    PROM_SERVICE_LABEL,
    SERVER_DURATION,
    TOOLS_CALL,
    Label,
    loki_key,
)
from errscope import Outcome
from errscope import _attributes as attrs

__all__ = [
    "DASHBOARDS_MOUNT",
    "LOKI_DERIVED_TRACEQL",
    "TEMPO_LOGS_QUERY",
    "TEMPO_METRICS_QUERIES",
    "dashboard_provider",
    "datasources",
    "escape_env",
]

DASHBOARDS_MOUNT = "/var/lib/grafana/dashboards/errscope"
"""Where docker-compose.yml mounts ``deploy/grafana/dashboards`` in the Grafana container."""

TEMPO_LOGS_QUERY = f'{{${{__tags}}}} | {LOKI_TRACE_ID} = "${{__trace.traceId}}"'
"""Tempo → Loki: the log records of the trace (``__tags`` expands to ``service_name="…"``)."""

_TAGS = "${__tags}, " + f'{Label.METHOD}="{TOOLS_CALL}"'
TEMPO_METRICS_QUERIES: tuple[tuple[str, str], ...] = (
    (
        "Failure ratio of this tool",
        f'sum(rate({SERVER_DURATION}_count{{{_TAGS}, {Label.OUTCOME}="{Outcome.ERROR}"}}[5m]))'
        f" / sum(rate({SERVER_DURATION}_count{{{_TAGS}}}[5m]))",
    ),
    (
        "p95 latency of this tool",
        f"histogram_quantile(0.95, sum by (le) (rate({SERVER_DURATION}_bucket{{{_TAGS}}}[5m])))",
    ),
)
"""Tempo → Prometheus: queries offered on a span (``__tags`` expands to ``job="…", gen_ai_tool_name="…"``)."""

LOKI_DERIVED_TRACEQL = f'{{ span.{attrs.ERRSCOPE_ERROR_REF} = "${{__value.raw}}" }}'
"""Loki → Tempo: the tool span of a log record's error ref."""


def escape_env(value: Any) -> Any:
    """Return ``value`` with every ``$`` in every string doubled (Grafana's provisioning escape)."""
    if isinstance(value, str):
        return value.replace("$", "$$")
    if isinstance(value, list):
        return [escape_env(item) for item in value]
    if isinstance(value, dict):
        return {key: escape_env(item) for key, item in value.items()}
    return value


def datasources() -> dict[str, Any]:
    """``provisioning/datasources/errscope.yaml``: Prometheus, Tempo, Loki with fixed UIDs and links."""
    prometheus = {
        "name": "Prometheus",
        "type": "prometheus",
        "uid": DS_PROMETHEUS,
        "orgId": 1,
        "access": "proxy",
        "url": "http://prometheus:9090",
        "isDefault": True,
        "editable": False,
        "jsonData": {
            "httpMethod": "POST",
            "timeInterval": "15s",
            "exemplarTraceIdDestinations": [
                {"name": "trace_id", "datasourceUid": DS_TEMPO, "urlDisplayLabel": "Open trace in Tempo"}
            ],
        },
    }
    tempo = {
        "name": "Tempo",
        "type": "tempo",
        "uid": DS_TEMPO,
        "orgId": 1,
        "access": "proxy",
        "url": "http://tempo:3200",
        "editable": False,
        "jsonData": {
            "tracesToLogsV2": {
                "datasourceUid": DS_LOKI,
                "spanStartTimeShift": "-5m",
                "spanEndTimeShift": "5m",
                "tags": [{"key": SERVICE_NAME, "value": LOKI_SERVICE_LABEL}],
                "filterByTraceID": True,
                "filterBySpanID": False,
                "customQuery": True,
                "query": TEMPO_LOGS_QUERY,
            },
            "tracesToMetrics": {
                "datasourceUid": DS_PROMETHEUS,
                "spanStartTimeShift": "-5m",
                "spanEndTimeShift": "5m",
                "tags": [
                    {"key": SERVICE_NAME, "value": PROM_SERVICE_LABEL},
                    {"key": attrs.GEN_AI_TOOL_NAME, "value": Label.TOOL},
                ],
                "queries": [{"name": name, "query": query} for name, query in TEMPO_METRICS_QUERIES],
            },
            "lokiSearch": {"datasourceUid": DS_LOKI},
            "nodeGraph": {"enabled": True},
            "search": {"hide": False},
            "traceQuery": {"timeShiftEnabled": True, "spanStartTimeShift": "-1h", "spanEndTimeShift": "1h"},
            "spanBar": {"type": "Tag", "tag": attrs.ERRSCOPE_FAILURE_CLASS},
        },
    }
    loki = {
        "name": "Loki",
        "type": "loki",
        "uid": DS_LOKI,
        "orgId": 1,
        "access": "proxy",
        "url": "http://loki:3100",
        "editable": False,
        "jsonData": {
            "maxLines": 1000,
            "derivedFields": [
                {
                    "name": "Trace",
                    "matcherType": "label",
                    "matcherRegex": LOKI_TRACE_ID,
                    "datasourceUid": DS_TEMPO,
                    "url": "${__value.raw}",
                    "urlDisplayLabel": "Open trace in Tempo",
                },
                {
                    "name": "Error ref",
                    "matcherType": "label",
                    "matcherRegex": loki_key(attrs.ERRSCOPE_ERROR_REF),
                    "datasourceUid": DS_TEMPO,
                    "url": LOKI_DERIVED_TRACEQL,
                    "urlDisplayLabel": "Find the tool span in Tempo",
                },
            ],
        },
    }
    return escape_env({"apiVersion": 1, "datasources": [prometheus, tempo, loki]})  # type: ignore[no-any-return]


def dashboard_provider() -> dict[str, Any]:
    """``provisioning/dashboards/errscope.yaml``: one file provider for the generated dashboards."""
    return {
        "apiVersion": 1,
        "providers": [
            {
                "name": "errscope",
                "orgId": 1,
                "folder": "errscope",
                "folderUid": FOLDER_UID,
                "type": "file",
                "disableDeletion": True,
                "allowUiUpdates": False,
                "updateIntervalSeconds": 30,
                "options": {"path": DASHBOARDS_MOUNT, "foldersFromFilesStructure": False},
            }
        ],
    }
