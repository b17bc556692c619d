"""``configure_telemetry``'s OTLP exporters against a Collector that never answers: how long the flush may take."""

from __future__ import annotations

import time

import pytest

from errscope._setup import EXPORT_TIMEOUT, configure_telemetry
from tests.classification.upstreams import silent_listener


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
