"""In-memory telemetry for tests, yours and ours: spans, duration points and failure log records.

Example::

    telemetry = errscope.testing.CapturedTelemetry()
    errscope.instrument(server, **telemetry.providers)
    ...                                   # drive the server
    (span,) = telemetry.spans("tools/call get_order")
    assert span.attributes["errscope.failure_class"] == "not_found"
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from errscope._extras import needs_extra

with needs_extra("errscope.testing"):  # the SDK: the `cli` extra
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

__all__ = ["CapturedTelemetry"]


class _ListHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class CapturedTelemetry:
    """An SDK tracer and meter provider wired to in-memory exporters, plus errscope's log records."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self._logs = _ListHandler()
        logging.getLogger("errscope").addHandler(self._logs)

    @property
    def providers(self) -> dict[str, Any]:
        """Keyword arguments for :func:`errscope.instrument` and the client hooks."""
        return {"tracer_provider": self.tracer_provider, "meter_provider": self.meter_provider}

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        """Finished spans, optionally only those called ``name``."""
        return [s for s in self.exporter.get_finished_spans() if name is None or s.name == name]

    def histogram_points(self, metric: str) -> list[HistogramDataPoint]:
        """Current data points of a histogram (cumulative)."""
        data = self.reader.get_metrics_data()
        points: list[HistogramDataPoint] = []
        for resource_metrics in data.resource_metrics if data else ():
            for scope_metrics in resource_metrics.scope_metrics:
                for found in scope_metrics.metrics:
                    if found.name == metric:
                        points.extend(p for p in found.data.data_points if isinstance(p, HistogramDataPoint))
        return points

    @property
    def log_records(self) -> list[logging.LogRecord]:
        """Records errscope logged (one per failed call), with their ``extra`` fields as attributes."""
        return list(self._logs.records)

    def close(self) -> None:
        logging.getLogger("errscope").removeHandler(self._logs)
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()

    @classmethod
    @contextmanager
    def installed(cls) -> Iterator[CapturedTelemetry]:
        """Context manager form: closes the providers and detaches the log handler on exit."""
        captured = cls()
        try:
            yield captured
        finally:
            captured.close()
