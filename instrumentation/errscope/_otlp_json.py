"""Read OTLP-JSON lines files back: what ``errscope explain``, the demo's triage table and tests use.

Two writers produce the same format (OTLP/JSON, one ``Export*ServiceRequest`` object per line):
the OpenTelemetry SDK's file exporters (``traces.jsonl``, ``logs.jsonl``, ``metrics.jsonl``, what
:func:`errscope._setup.configure_telemetry` writes) and the Collector's ``file`` exporter
(``traces.json``, ``logs.json``, ``metrics.json`` in ``collector/overlays/file.yaml``). A folder
may hold one set at its top or one set per process in sub-folders (the demo writes ``agent/`` and
``refund-server/``); :func:`load` reads them all.

Spans and log records come out flattened, with attributes decoded to plain Python values
(``intValue`` strings become ``int``; arrays and maps are unpacked) and the resource's
``service.name`` copied on. Ids stay lowercase hex, as OTLP/JSON spells them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

__all__ = [
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_INTERNAL",
    "SPAN_KIND_SERVER",
    "LogRecord",
    "Span",
    "Telemetry",
    "TelemetryError",
    "decode_value",
    "load",
    "telemetry_files",
]

SPAN_KIND_INTERNAL: Final = 1
SPAN_KIND_SERVER: Final = 2
SPAN_KIND_CLIENT: Final = 3
_STATUS_ERROR: Final = 2
_SIGNALS: Final = ("traces", "logs", "metrics")
_MAX_DEPTH: Final = 3


class TelemetryError(Exception):
    """The folder is missing, empty, or holds something that is not OTLP-JSON. ``str()`` is one line."""


def decode_value(value: Mapping[str, Any] | None) -> Any:
    """Turn an OTLP/JSON ``AnyValue`` into a Python value (``None`` for an empty value)."""
    if not value:
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "arrayValue" in value:
        return [decode_value(item) for item in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return _attributes(value["kvlistValue"].get("values", []))
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _attributes(items: Iterable[Mapping[str, Any]] | None) -> dict[str, Any]:
    return {item["key"]: decode_value(item.get("value")) for item in items or () if "key" in item}


@dataclass(frozen=True, slots=True)
class Span:
    """One exported span. Times are Unix nanoseconds."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: int
    start: int
    end: int
    attributes: dict[str, Any]
    status_code: int
    status_message: str
    events: tuple[tuple[str, dict[str, Any]], ...]
    links: tuple[tuple[str, str, dict[str, Any]], ...]
    service: str
    scope: str

    @property
    def failed(self) -> bool:
        """Status ERROR."""
        return self.status_code == _STATUS_ERROR

    @property
    def duration_ms(self) -> float:
        return max(0, self.end - self.start) / 1e6

    @property
    def kind_name(self) -> str:
        return {1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}.get(self.kind, "UNSPECIFIED")

    def get(self, key: str, default: Any = None) -> Any:
        return self.attributes.get(key, default)


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One exported log record."""

    time: int
    severity: str
    body: Any
    attributes: dict[str, Any]
    trace_id: str
    span_id: str
    service: str
    scope: str

    def get(self, key: str, default: Any = None) -> Any:
        return self.attributes.get(key, default)


@dataclass
class Telemetry:
    """Everything read from one folder."""

    spans: list[Span] = field(default_factory=list)
    logs: list[LogRecord] = field(default_factory=list)
    metric_lines: int = 0
    files: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One line per damaged line that was left out (``"<file> line 3 is not JSON …"``): the rest is read."""

    def trace(self, trace_id: str) -> list[Span]:
        """The spans of one trace, oldest first."""
        return sorted((s for s in self.spans if s.trace_id == trace_id), key=lambda s: s.start)

    def children(self, span: Span) -> list[Span]:
        return sorted((s for s in self.spans if s.trace_id == span.trace_id and s.parent_span_id == span.span_id),
                      key=lambda s: s.start)

    def parent(self, span: Span) -> Span | None:
        if not span.parent_span_id:
            return None
        for other in self.spans:
            if other.trace_id == span.trace_id and other.span_id == span.parent_span_id:
                return other
        return None

    def spans_where(self, key: str, value: Any) -> list[Span]:
        return sorted((s for s in self.spans if s.attributes.get(key) == value), key=lambda s: s.start)

    def logs_where(self, key: str, value: Any) -> list[LogRecord]:
        return sorted((r for r in self.logs if r.attributes.get(key) == value), key=lambda r: r.time)


def telemetry_files(folder: Path) -> list[Path]:
    """The OTLP-JSON files under ``folder`` (``traces|logs|metrics`` ``.json``/``.jsonl``, up to 3 levels)."""
    found: list[Path] = []

    def visit(directory: Path, depth: int) -> None:
        try:
            entries = sorted(directory.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.is_dir() and depth < _MAX_DEPTH:
                visit(entry, depth + 1)
            elif entry.is_file() and entry.suffix in (".json", ".jsonl") and entry.stem in _SIGNALS:
                found.append(entry)

    visit(folder, 0)
    return found


def _lines(path: Path, into: Telemetry) -> Iterator[tuple[int, dict[str, Any]]]:
    """The export requests in ``path``, one a line. A damaged line (bytes that are not UTF-8 or JSON: a process killed
    mid-write, an export still being written) is left out and named in ``into.skipped``: the telemetry of a crash is
    what an on-call engineer reads, and one torn line must not hide the rest."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TelemetryError(f"{path}: cannot be read ({type(exc).__name__})") from None
    for number, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            document = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            into.skipped.append(f"{path} line {number} is not JSON (a corrupt or truncated export)")
            continue
        if not isinstance(document, dict):
            raise TelemetryError(f"{path} line {number} is not an OTLP-JSON export request")
        yield number, document


def _resource_service(resource: Mapping[str, Any] | None) -> str:
    return str(_attributes((resource or {}).get("attributes")).get("service.name", ""))


def _read_spans(path: Path, into: Telemetry) -> None:
    for number, document in _lines(path, into):
        batches = document.get("resourceSpans")
        if not isinstance(batches, list):
            raise TelemetryError(f"{path} line {number} has no resourceSpans (not an OTLP-JSON trace export)")
        try:
            for batch in batches:
                service = _resource_service(batch.get("resource"))
                for scope_spans in batch.get("scopeSpans", []):
                    scope = str((scope_spans.get("scope") or {}).get("name", ""))
                    for raw in scope_spans.get("spans", []):
                        status = raw.get("status") or {}
                        into.spans.append(
                            Span(
                                trace_id=str(raw["traceId"]).lower(),
                                span_id=str(raw["spanId"]).lower(),
                                parent_span_id=str(raw.get("parentSpanId") or "").lower(),
                                name=str(raw.get("name", "")),
                                kind=int(raw.get("kind", 0)),
                                start=int(raw.get("startTimeUnixNano", 0)),
                                end=int(raw.get("endTimeUnixNano", 0)),
                                attributes=_attributes(raw.get("attributes")),
                                status_code=int(status.get("code", 0)),
                                status_message=str(status.get("message", "")),
                                events=tuple(
                                    (str(e.get("name", "")), _attributes(e.get("attributes"))) for e in raw.get("events", [])
                                ),
                                links=tuple(
                                    (str(li.get("traceId", "")).lower(), str(li.get("spanId", "")).lower(),
                                     _attributes(li.get("attributes")))
                                    for li in raw.get("links", [])
                                ),
                                service=service,
                                scope=scope,
                            )
                        )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise TelemetryError(f"{path} line {number} is not a well-formed OTLP-JSON trace export") from None


def _read_logs(path: Path, into: Telemetry) -> None:
    for number, document in _lines(path, into):
        batches = document.get("resourceLogs")
        if not isinstance(batches, list):
            raise TelemetryError(f"{path} line {number} has no resourceLogs (not an OTLP-JSON log export)")
        try:
            for batch in batches:
                service = _resource_service(batch.get("resource"))
                for scope_logs in batch.get("scopeLogs", []):
                    scope = str((scope_logs.get("scope") or {}).get("name", ""))
                    for raw in scope_logs.get("logRecords", []):
                        into.logs.append(
                            LogRecord(
                                time=int(raw.get("timeUnixNano") or raw.get("observedTimeUnixNano") or 0),
                                severity=str(raw.get("severityText", "")),
                                body=decode_value(raw.get("body")),
                                attributes=_attributes(raw.get("attributes")),
                                trace_id=str(raw.get("traceId") or "").lower(),
                                span_id=str(raw.get("spanId") or "").lower(),
                                service=service,
                                scope=scope,
                            )
                        )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise TelemetryError(f"{path} line {number} is not a well-formed OTLP-JSON log export") from None


def _count_metrics(path: Path, into: Telemetry) -> None:
    for number, document in _lines(path, into):
        if not isinstance(document.get("resourceMetrics"), list):
            raise TelemetryError(f"{path} line {number} has no resourceMetrics (not an OTLP-JSON metric export)")
        into.metric_lines += 1


def load(folder: str | Path) -> Telemetry:
    """Read every OTLP-JSON file under ``folder``.

    Damaged lines (not UTF-8 or not JSON) are left out and listed in :attr:`Telemetry.skipped`.

    Raises:
        TelemetryError: the folder does not exist or cannot be read, holds no telemetry files, a file is not
            OTLP-JSON, or the files hold no spans and no log records at all.
    """
    root = Path(folder)
    try:  # stat and list it here: an unreadable folder is not a missing or an empty one
        if not root.exists():
            raise TelemetryError(f"{root} does not exist")
        if not root.is_dir():
            raise TelemetryError(f"{root} is not a folder")
        os.scandir(root).close()
    except OSError as exc:  # EACCES, ENAMETOOLONG, EIO: pathlib's exists() lets all but four errnos through
        raise TelemetryError(f"{root} cannot be read ({exc.strerror or type(exc).__name__})") from None
    files = telemetry_files(root)
    if not files:
        raise TelemetryError(f"{root} holds no telemetry (no traces/logs/metrics .json or .jsonl files)")
    result = Telemetry(files=files)
    readers = {"traces": _read_spans, "logs": _read_logs, "metrics": _count_metrics}
    for path in files:
        readers[path.stem](path, result)
    if not result.spans and not result.logs:
        damaged = f"; {len(result.skipped)} damaged lines left out, the first: {result.skipped[0]}" if result.skipped else ""
        raise TelemetryError(f"{root} holds no spans and no log records (empty export files){damaged}")
    return result
