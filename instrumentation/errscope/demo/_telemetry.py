"""Telemetry for the demo's processes: :func:`errscope._setup.configure_telemetry`, plus a local copy.

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, everything goes to OTLP (a Collector); spans and log
records are *also* written to the output folder, so the triage table and ``errscope explain`` work
on the run without asking the Collector. Without it, OTLP-JSON files are all there is.
"""

from __future__ import annotations

from pathlib import Path

from errscope._setup import Telemetry, configure_telemetry, otlp_configured, write_copy

__all__ = ["demo_telemetry"]


def demo_telemetry(service_name: str, folder: Path, *, metric_interval: float = 5.0) -> Telemetry:
    """Configure the global providers for one demo process writing under ``folder``."""
    telemetry = configure_telemetry(service_name, output_dir=folder, metric_interval=metric_interval)
    if otlp_configured():
        write_copy(telemetry, folder)
    return telemetry
