"""One call to configure the OpenTelemetry SDK for a process that runs errscope (servers, demo, CLI).

The library itself only uses the OpenTelemetry API; applications that already configure the SDK
skip this. Standard variables decide where telemetry goes (OpenTelemetry SDK environment variables
specification): with ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or a per-signal variant) set, OTLP/HTTP;
otherwise, when ``output_dir`` is given, OTLP-JSON lines files (``traces.jsonl``, ``metrics.jsonl``,
``logs.jsonl``), the format the Collector's ``file`` exporter writes.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from opentelemetry import metrics, trace
from opentelemetry._logs import set_logger_provider

from errscope._scrubbing import scrub

if TYPE_CHECKING:  # the SDK is the `cli` extra: imported when configure_telemetry() runs, not with errscope
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider

__all__ = ["Telemetry", "configure_telemetry"]

OTLP_VARIABLES: Final = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
)
"""The standard variables (OpenTelemetry SDK environment variables) that send telemetry to an OTLP endpoint."""
EXPORT_TIMEOUT: Final = 5.0
"""Seconds an export may take before it is abandoned, unless ``OTEL_EXPORTER_OTLP_TIMEOUT`` (or the signal's own
``OTEL_EXPORTER_OTLP_<SIGNAL>_TIMEOUT``, seconds in the Python SDK) says otherwise: a dead collector must not hold a
process."""


def _export_timeout(signal: str) -> float | None:
    """:data:`EXPORT_TIMEOUT`, or None (the exporter reads the OpenTelemetry variables) when one is set."""
    variables = ("OTEL_EXPORTER_OTLP_TIMEOUT", f"OTEL_EXPORTER_OTLP_{signal}_TIMEOUT")
    return None if any(os.environ.get(name) for name in variables) else EXPORT_TIMEOUT


_EXPORTER_LOGGERS: Final = {
    "TRACES": "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "METRICS": "opentelemetry.exporter.otlp.proto.http.metric_exporter",
    "LOGS": "opentelemetry.exporter.otlp.proto.http._log_exporter",
}
EXPORT_TROUBLE_INTERVAL: Final = 60.0
"""Seconds between two lines saying that telemetry cannot be exported."""


class _ExportTrouble(logging.Filter):
    """The OTLP/HTTP exporters' records of failed exports, said as one line per :data:`EXPORT_TROUBLE_INTERVAL`
    with what to check, where the SDK wrote one per retry and per signal (a dead collector put ~30 lines beside the
    demo's table). Other records of those loggers pass as they are."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._said_at: float | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if not isinstance(record.msg, str) or not record.msg.startswith(("Transient error", "Failed to export")):
            return True
        with self._lock:
            now = time.monotonic()
            if self._said_at is not None and now - self._said_at < EXPORT_TROUBLE_INTERVAL:
                return False
            self._said_at = now
        signal = next((name for name, logger in _EXPORTER_LOGGERS.items() if record.name == logger), "TRACES")
        endpoint = os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        why = _why(record)
        record.msg = ("errscope: telemetry cannot be exported to %s (%s); spans, metrics and log records are dropped "
                      "until it can: check OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS and that the "
                      "collector is running (said at most once a minute)")
        record.args = (scrub(endpoint or "the default endpoint"), why)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _why(record: logging.LogRecord) -> str:
    """What an exporter's record says went wrong: the exception's type, the collector's status, its reason phrase,
    or, for the SDK's "due to timeout, max retries or shutdown" (which names no status), that the export was not
    accepted in time: that record also ends a batch a collector answered 429/503 with a ``Retry-After`` past the
    export timeout (RFC 9110 §10.2.3; the OTLP/HTTP exporter gives up at once then), so it is not said to be silent."""
    args = record.args if isinstance(record.args, tuple) else ()
    if cause := next((arg for arg in args if isinstance(arg, BaseException)), None):
        return type(cause).__qualname__
    if status := next((arg for arg in args if type(arg) is int), None):
        return f"HTTP {status}"
    if record.msg.startswith("Transient error") and args and isinstance(args[0], str):
        return scrub(args[0][:120])  # the collector's reason phrase: foreign text, as any upstream's
    return "not accepted within the export timeout: no answer, or only answers asking to retry later"


@dataclass
class Telemetry:
    """The configured providers; :meth:`shutdown` flushes and stops them (bounded in time)."""

    tracer_provider: TracerProvider
    meter_provider: MeterProvider
    logger_provider: LoggerProvider
    destination: str
    _handler: logging.Handler | None = field(default=None, repr=False)
    _export_trouble: logging.Filter | None = field(default=None, repr=False)
    _on_sigterm: Any = field(default=None, repr=False)

    @property
    def providers(self) -> dict[str, Any]:
        return {"tracer_provider": self.tracer_provider, "meter_provider": self.meter_provider}

    def shutdown(self) -> None:
        if self._on_sigterm is not None and threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGTERM) is self._on_sigterm:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if self._handler is not None:
            logging.getLogger("errscope").removeHandler(self._handler)
        for provider in (self.tracer_provider, self.meter_provider, self.logger_provider):
            try:
                provider.shutdown()
            except Exception as exc:  # telemetry never breaks the process it observes
                # the type only: errscope's own records are not scrubbed after they are built
                logging.getLogger(__name__).debug("telemetry shutdown failed (%s)", type(exc).__qualname__)
        if self._export_trouble is not None:  # after the last flush, whose failures it says too
            for name in _EXPORTER_LOGGERS.values():
                logging.getLogger(name).removeFilter(self._export_trouble)


def otlp_configured() -> bool:
    """True when a standard OTLP endpoint variable is set."""
    return any(os.environ.get(name) for name in OTLP_VARIABLES)


def configure_telemetry(
    service_name: str,
    *,
    output_dir: str | os.PathLike[str] | None = None,
    metric_interval: float = 5.0,
    set_global: bool = True,
) -> Telemetry:
    """Configure tracer, meter and logger providers and route errscope's log records to OTLP logs.

    With an OTLP endpoint (the standard ``OTEL_EXPORTER_OTLP_*`` variables, OTLP/HTTP), each export may take
    :data:`EXPORT_TIMEOUT` seconds, or what ``OTEL_EXPORTER_OTLP_TIMEOUT`` says, and exports that fail are said in one
    line a minute with what to check, not the exporters' line per retry.

    Args:
        service_name: ``service.name`` of the resource (``OTEL_SERVICE_NAME`` wins when set).
        output_dir: where OTLP-JSON files go when no OTLP endpoint is configured.
        metric_interval: seconds between metric exports.
        set_global: also install the providers as the global ones.

    Raises:
        ValueError: neither an OTLP endpoint nor ``output_dir`` is available.
        errscope._extras.MissingExtra: the OpenTelemetry SDK or its exporters are not installed (an
            ``ImportError`` whose message gives the command that installs the ``cli`` extra).
    """
    from errscope._extras import needs_extra

    with needs_extra("errscope.configure_telemetry()"):
        from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({SERVICE_NAME: os.environ.get("OTEL_SERVICE_NAME") or service_name})
    if otlp_configured():
        with needs_extra("errscope.configure_telemetry() with OTEL_EXPORTER_OTLP_ENDPOINT set"):
            from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        span_exporter: Any = OTLPSpanExporter(timeout=_export_timeout("TRACES"))
        metric_exporter: Any = OTLPMetricExporter(timeout=_export_timeout("METRICS"))
        log_exporter: Any = OTLPLogExporter(timeout=_export_timeout("LOGS"))
        destination = "otlp"
        export_trouble: logging.Filter | None = _ExportTrouble()
        for name in _EXPORTER_LOGGERS.values():
            logging.getLogger(name).addFilter(export_trouble)
    elif output_dir is not None:
        with needs_extra("errscope.configure_telemetry(output_dir=...)"):
            from opentelemetry.exporter.otlp.json.file import FileMetricExporter, FileSpanExporter
            from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter

        directory = Path(output_dir)
        directory.mkdir(parents=True, exist_ok=True)
        span_exporter = FileSpanExporter(str(directory / "traces.jsonl"))
        metric_exporter = FileMetricExporter(str(directory / "metrics.jsonl"))
        log_exporter = FileLogExporter(str(directory / "logs.jsonl"))
        destination = str(directory)
        export_trouble = None
    else:
        raise ValueError("no telemetry destination: set OTEL_EXPORTER_OTLP_ENDPOINT or pass output_dir")

    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter, export_timeout_millis=EXPORT_TIMEOUT * 1000))
    reader = PeriodicExportingMetricReader(metric_exporter, export_interval_millis=metric_interval * 1000)
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(log_exporter))
    handler = LoggingHandler(level=logging.INFO, logger_provider=logger_provider)
    errscope_logger = logging.getLogger("errscope")
    errscope_logger.addHandler(handler)
    errscope_logger.setLevel(logging.INFO)
    if set_global:
        trace.set_tracer_provider(tracer_provider)
        metrics.set_meter_provider(meter_provider)
        set_logger_provider(logger_provider)
    telemetry = Telemetry(tracer_provider, meter_provider, logger_provider, destination, handler, export_trouble)
    _flush_on_sigterm(telemetry)
    return telemetry


def _flush_on_sigterm(telemetry: Telemetry) -> None:
    """Flush ``telemetry`` when SIGTERM ends the process, then end it as SIGTERM would have.

    SIGTERM is how process managers and orchestrators stop a server (Kubernetes, systemd, docker stop; an MCP host
    stops a stdio server with it after closing stdin). Its default action ends the process at once: no ``finally``,
    no ``atexit``, so the spans still in the batch processor (5 s of them, the failures of the last calls among
    them) are lost, while their log records, exported every second, arrive: a ref whose tool span is missing. uvicorn
    handles SIGTERM, shuts down, restores the handler it found and raises the signal again, which then lands here.

    Only when SIGTERM has its default action and this is the main thread (a handler the application installed is
    left alone); :meth:`Telemetry.shutdown` takes it back.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def flush_then_end(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        telemetry.shutdown()  # bounded: each export gives up after its timeout
        signal.raise_signal(signum)

    signal.signal(signal.SIGTERM, flush_then_end)
    telemetry._on_sigterm = flush_then_end


def write_copy(telemetry: Telemetry, folder: str | os.PathLike[str]) -> None:
    """Also write ``telemetry``'s spans and log records to OTLP-JSON files in ``folder`` (``traces.jsonl``,
    ``logs.jsonl``), beside its OTLP export: what ``errscope explain --from folder`` reads without asking a backend.

    Raises:
        OSError: ``folder`` cannot be created.
    """
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter
    from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    directory = Path(folder)
    directory.mkdir(parents=True, exist_ok=True)
    telemetry.tracer_provider.add_span_processor(BatchSpanProcessor(FileSpanExporter(str(directory / "traces.jsonl"))))
    telemetry.logger_provider.add_log_record_processor(BatchLogRecordProcessor(FileLogExporter(str(directory / "logs.jsonl"))))
