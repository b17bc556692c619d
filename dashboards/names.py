"""Every name a dashboard or alert rule queries, derived from what the instrumentation emits.

Nothing here is spelled by hand that :mod:`errscope._attributes` already spells: metric labels are
the OpenTelemetry attribute names put through the translation the Collector's
``prometheusremotewrite`` exporter applies, Loki structured-metadata keys through Loki's OTLP
translation, and span attributes are used verbatim (TraceQL keeps the dots).

Prometheus translation (checked against the real Collector by
``tests/dashboards/test_real_prometheus.py``):

* metric ``mcp.server.operation.duration`` with unit ``s`` becomes
  ``mcp_server_operation_duration_seconds`` and the histogram series ``_bucket``/``_sum``/``_count``;
* every attribute name has each character outside ``[A-Za-z0-9_]`` replaced by ``_``;
* the resource attribute ``service.name`` becomes the ``job`` label (``service.namespace/`` is prefixed
  when set), ``service.instance.id`` becomes ``instance``; other resource attributes only reach
  ``target_info``.

Loki translation (OTLP ingestion, Loki >= 3): log attributes and ``trace_id``/``span_id`` become
structured metadata with ``.`` replaced by ``_``; ``service.name`` becomes the ``service_name`` index
label.
"""

from __future__ import annotations

import re
from typing import Final

from errscope import _attributes as attrs

__all__ = [
    "CLIENT_DURATION",
    "DS_LOKI",
    "DS_PROMETHEUS",
    "DS_TEMPO",
    "FOLDER_UID",
    "LOKI_SERVICE_LABEL",
    "LOKI_TRACE_ID",
    "Label",
    "OVERVIEW_UID",
    "PROM_INSTANCE_LABEL",
    "PROM_SERVICE_LABEL",
    "SERVER_DURATION",
    "TOOLS_CALL",
    "TRIAGE_UID",
    "loki_key",
    "prom_label",
    "prom_metric",
]

_NON_LABEL_CHAR = re.compile(r"[^A-Za-z0-9_]")

# Fixed UIDs: dashboards link to each other, alert rules link to the triage dashboard, and the
# datasource UIDs are what every panel and the provisioning files agree on.
DS_PROMETHEUS: Final = "errscope-prometheus"
DS_TEMPO: Final = "errscope-tempo"
DS_LOKI: Final = "errscope-loki"
OVERVIEW_UID: Final = "errscope-overview"
TRIAGE_UID: Final = "errscope-triage"
FOLDER_UID: Final = "errscope"

# OpenTelemetry unit -> Prometheus suffix, for the units errscope uses (prometheus translator,
# ``unitMap`` in the Collector's ``pkg/translator/prometheus``).
_UNIT_SUFFIX: Final = {"s": "seconds", "ms": "milliseconds", "By": "bytes", "1": ""}


def prom_label(attribute: str) -> str:
    """
    Return the Prometheus label an OpenTelemetry attribute becomes after remote-write translation.

    Args:
        attribute: the attribute name, e.g. ``gen_ai.tool.name``.
    """
    label = _NON_LABEL_CHAR.sub("_", attribute)
    if label[:1].isdigit():
        label = "key_" + label
    return label


def prom_metric(name: str, unit: str) -> str:
    """
    Return the Prometheus base name of an OpenTelemetry histogram after remote-write translation.

    Args:
        name: the instrument name, e.g. ``mcp.server.operation.duration``.
        unit: the instrument unit (UCUM), e.g. ``s``.
    """
    base = _NON_LABEL_CHAR.sub("_", name)
    suffix = _UNIT_SUFFIX[unit]
    if suffix and not base.endswith("_" + suffix):
        base = f"{base}_{suffix}"
    return base


def loki_key(attribute: str) -> str:
    """
    Return the Loki structured-metadata key an OTLP log attribute becomes.

    Args:
        attribute: the attribute name, e.g. ``errscope.error_ref``.
    """
    return _NON_LABEL_CHAR.sub("_", attribute)


SERVER_DURATION: Final = prom_metric(attrs.MCP_SERVER_OPERATION_DURATION, "s")
"""``mcp_server_operation_duration_seconds``: add ``_bucket``, ``_sum`` or ``_count``."""
CLIENT_DURATION: Final = prom_metric(attrs.MCP_CLIENT_OPERATION_DURATION, "s")
"""``mcp_client_operation_duration_seconds``: add ``_bucket``, ``_sum`` or ``_count``."""

TOOLS_CALL: Final = "tools/call"
"""The ``mcp.method.name`` of tool calls (MCP spec, Server > Tools); other methods share the histograms."""

PROM_SERVICE_LABEL: Final = "job"
"""Where ``service.name`` lands on every series (remote-write translation)."""
PROM_INSTANCE_LABEL: Final = "instance"
"""Where ``service.instance.id`` lands (absent when the SDK did not set it)."""
LOKI_SERVICE_LABEL: Final = "service_name"
"""Loki's index label for ``service.name``."""
LOKI_TRACE_ID: Final = "trace_id"
"""Structured-metadata key of an OTLP log record's trace id in Loki."""


class Label:
    """Prometheus label names of the errscope metric attributes (``METRIC_ATTRIBUTES``)."""

    METHOD: Final = prom_label(attrs.MCP_METHOD_NAME)
    TOOL: Final = prom_label(attrs.GEN_AI_TOOL_NAME)
    OPERATION: Final = prom_label(attrs.GEN_AI_OPERATION_NAME)
    PROTOCOL_VERSION: Final = prom_label(attrs.MCP_PROTOCOL_VERSION)
    TRANSPORT: Final = prom_label(attrs.NETWORK_TRANSPORT)
    ERROR_TYPE: Final = prom_label(attrs.ERROR_TYPE)
    STATUS_CODE: Final = prom_label(attrs.RPC_RESPONSE_STATUS_CODE)
    CHANNEL: Final = prom_label(attrs.ERRSCOPE_CHANNEL)
    CLASS: Final = prom_label(attrs.ERRSCOPE_FAILURE_CLASS)
    OUTCOME: Final = prom_label(attrs.ERRSCOPE_OUTCOME)
    UPSTREAM_SYSTEM: Final = prom_label(attrs.ERRSCOPE_UPSTREAM_SYSTEM)
    UPSTREAM_STATUS: Final = prom_label(attrs.ERRSCOPE_UPSTREAM_STATUS)
    REPLAYED: Final = prom_label(attrs.ERRSCOPE_IDEMPOTENT_REPLAY)
    RETRY: Final = prom_label(attrs.ERRSCOPE_RETRY)
    TABLE: Final = prom_label(attrs.ERRSCOPE_TABLE)
    SIDE_EFFECT_POSSIBLE: Final = prom_label(attrs.ERRSCOPE_SIDE_EFFECT_POSSIBLE)
