"""On call through the real Collector: from the sentence the model saw to the upstream's own answer, reading only the
Collector's file output (the ``file`` overlay, what Tempo and Loki would receive).

An errscope-instrumented ``MCPServer`` (stdio subprocess) and a ``ToolClient`` host both export OTLP to the Collector
built from ``collector/builder-config.yaml``; its scrubbing processors run on every record. An expired token (401 with
its RFC 6750 challenge) and a refused retry (a 503 to a tool not declared safe to repeat) must still be explained from
the Collector's folder: the challenge, the body and the stop reason survive the Collector's scrubbing, the token does not.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass
from errscope._setup import configure_telemetry
from errscope.client import ToolClient
from tests.classification.upstreams import HttpUpstream
from tests.integration.collector_harness import Collector

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "client" / "servers" / "oncall_orders.py"
TOKEN = "ghp_FAKEoncallToken0123456789abcdefghijklm"


def explain(query: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "errscope.cli", "explain", query, "--from", str(folder)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


async def test_explain_from_the_collectors_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Collector(env={"ERRSCOPE_SAMPLE_PERCENT": "100"}) as collector, HttpUpstream() as upstream:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.otlp_http)
        mail = upstream.scripted(503, b'{"error":"mail relay down"}', {"Content-Type": "application/json"})
        accounts = upstream.scripted(
            401, b'{"error":"invalid_token","error_description":"The access token expired"}',
            {"WWW-Authenticate": 'Bearer realm="accounts", error="invalid_token", '
                                 'error_description="The access token expired"', "Content-Type": "application/json"})
        host = configure_telemetry("oncall-host", set_global=False)
        params = StdioServerParameters(command=sys.executable, args=[str(SERVER), mail, str(tmp_path / "unused"), accounts],
                                       cwd=str(ROOT), env={"PATH": "/usr/bin:/bin", "OTEL_EXPORTER_OTLP_ENDPOINT":
                                                           collector.otlp_http})
        try:
            async with ToolClient(params, timeout=10, tracer_provider=host.tracer_provider,
                                  meter_provider=host.meter_provider) as tools:
                profile = await tools.call_tool("profile", {})
                email = await tools.call_tool("send_email", {"to": "ops@example.com"})
        finally:
            host.shutdown()
        assert profile.failure_class is FailureClass.PERMISSION_DENIED, profile.text
        assert email.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, email.text
        said: dict[str, str] = {}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(said) < 2:  # the Collector writes in batches
            for name, result in (("profile", profile), ("email", email)):
                done = explain(result.text, collector.workdir)
                if done.returncode == 0 and "4. log record\n   ERROR" in done.stdout and "1. what the model saw\n   " \
                        f"{result.text.strip()[:20]}" in done.stdout:
                    said[name] = done.stdout
            time.sleep(1)
        recorded = "".join(path.read_text() for path in collector.workdir.glob("*.json"))
    assert set(said) == {"profile", "email"}, said
    assert 'WWW-Authenticate: Bearer realm="accounts", error="invalid_token", error_description="The access token ' \
        'expired"' in said["profile"], said["profile"]
    assert '{"error":"mail relay down"}' in said["email"], said["email"]
    assert "not retried automatically: send_email is not declared safe to repeat" in said["email"], said["email"]
    assert TOKEN not in recorded
