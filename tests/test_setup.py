"""``configure_telemetry``'s OTLP exporters against a Collector that never answers, is not there or refuses: how long
the flush may take, and what the process's log says."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from errscope._setup import EXPORT_TIMEOUT, configure_telemetry
from tests.classification.upstreams import answering, closed_port, silent_listener


def _flush_one_span(monkeypatch: pytest.MonkeyPatch) -> float:
    """Seconds ``Telemetry.shutdown()`` takes to give up on one span sent to a listener that never answers."""
    with silent_listener() as port:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{port}")
        telemetry = configure_telemetry("setup-test", set_global=False)
        with telemetry.tracer_provider.get_tracer(__name__).start_as_current_span("one"):
            pass
        start = time.monotonic()
        telemetry.shutdown()
        return time.monotonic() - start


def test_the_standard_timeout_variable_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    """``OTEL_EXPORTER_OTLP_TIMEOUT`` (seconds in the Python SDK) replaces errscope's default: a slow Collector may
    be given longer, a dead one shorter."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5")
    assert _flush_one_span(monkeypatch) < EXPORT_TIMEOUT - 1


def test_without_it_an_export_is_abandoned_after_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    assert EXPORT_TIMEOUT - 0.5 <= _flush_one_span(monkeypatch) < 3 * EXPORT_TIMEOUT + 5


def _exporter_lines(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, endpoint: str) -> list[str]:
    """What the OTLP exporters log while two rounds of a span, a metric point and a log record fail to reach
    ``endpoint`` (one export each, then the flush at shutdown)."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1.5")  # room for two retries a batch
    caplog.set_level(logging.WARNING, logger="opentelemetry")
    telemetry = configure_telemetry("setup-test", set_global=False)
    for _ in range(2):
        with telemetry.tracer_provider.get_tracer(__name__).start_as_current_span("one"):
            telemetry.meter_provider.get_meter(__name__).create_counter("calls").add(1)
        telemetry.tracer_provider.force_flush()
        telemetry.meter_provider.force_flush()
    telemetry.shutdown()
    return [record.getMessage() for record in caplog.records if record.name.startswith("opentelemetry.exporter")]


def test_a_collector_that_is_not_there_is_said_once_with_what_to_check(monkeypatch: pytest.MonkeyPatch,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    """A wrong or dead ``OTEL_EXPORTER_OTLP_ENDPOINT``: one line naming the endpoint (its password scrubbed), the cause
    and what to check, where the SDK wrote one per retry, batch and signal (~30 beside the demo's table)."""
    lines = _exporter_lines(monkeypatch, caplog, f"http://otel:FAKE-pw-4471@127.0.0.1:{closed_port()}")
    assert len(lines) == 1, lines
    assert lines[0].startswith("errscope: telemetry cannot be exported to http://[REDACTED]@127.0.0.1:")
    assert "(ConnectionError)" in lines[0] and "check OTEL_EXPORTER_OTLP_ENDPOINT" in lines[0]


def test_a_collector_that_refuses_is_said_with_its_status(monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    """A Collector that answers 401 (the headers lack its token) is named by the status it gave."""
    with answering(401, "missing credentials") as port:
        lines = _exporter_lines(monkeypatch, caplog, f"http://127.0.0.1:{port}")
    assert len(lines) == 1, lines
    assert f"to http://127.0.0.1:{port} (HTTP 401)" in lines[0] and "OTEL_EXPORTER_OTLP_HEADERS" in lines[0]


def test_a_collector_that_asks_to_retry_later_is_not_said_to_be_silent(monkeypatch: pytest.MonkeyPatch,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    """A Collector that answers 503 with a ``Retry-After`` past the export timeout (RFC 9110 §10.2.3) makes the SDK
    give up at once with "due to timeout, max retries or shutdown", which names no status: the line must not say the
    Collector gave no answer, as it did ("no answer within the export timeout")."""
    with answering(503, "busy", headers={"Retry-After": "30"}) as port:
        lines = _exporter_lines(monkeypatch, caplog, f"http://127.0.0.1:{port}")
    assert len(lines) == 1, lines
    assert f"to http://127.0.0.1:{port} (not accepted within the export timeout: no answer, or only answers asking to " \
           "retry later)" in lines[0], lines[0]


def test_other_exporter_records_pass_and_the_filter_leaves_with_the_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    telemetry = configure_telemetry("setup-test", set_global=False)
    logger = logging.getLogger("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    record = logger.makeRecord(logger.name, logging.WARNING, __file__, 1, "Exporter already shutdown, ignoring batch",
                               (), None)
    assert logger.filter(record) and record.getMessage() == "Exporter already shutdown, ignoring batch"
    telemetry.shutdown()
    assert logger.filters == []


_ENDED_BY_SIGTERM = """
import os, signal, sys, time
from errscope._setup import configure_telemetry
telemetry = configure_telemetry("sigterm-test", output_dir=sys.argv[1])
telemetry.tracer_provider.get_tracer("t").start_span("tools/call refund_order").end()
if sys.argv[2] == "handled":  # an application's own handler is left alone
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
    telemetry = configure_telemetry("sigterm-test", output_dir=sys.argv[1] + "-second")
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(30)
"""


@pytest.mark.parametrize(("mode", "returncode"), [("default", -15), ("handled", 3)])
def test_sigterm_flushes_the_spans_then_ends_the_process_as_sigterm_would(
    tmp_path: Path, mode: str, returncode: int
) -> None:
    """A process ended by SIGTERM (Kubernetes, systemd, uvicorn re-raising it after its shutdown) keeps the spans still
    in the batch processor, and still ends by SIGTERM (they were lost); a handler the application installed is not
    replaced by a later ``configure_telemetry`` (its exit runs the SDK's ``atexit`` flush)."""
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _ENDED_BY_SIGTERM, str(tmp_path / "out"), mode], timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, capture_output=True, text=True)
    assert done.returncode == returncode, done.stderr
    assert "tools/call refund_order" in (tmp_path / "out" / "traces.jsonl").read_text()
