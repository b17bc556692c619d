"""From the sentence a user saw to the upstream event, when the call went host → ``errscope proxy`` → errscope server.

Real: ``ToolClient`` exporting to files, the real ``errscope proxy`` (stdio in front of a stdio server, and streamable
HTTP in front of a streamable HTTP server), an errscope-instrumented ``MCPServer`` or FastMCP app
(``tests/oncall/deep_server.py``) whose tools fail deep inside anyio's and asyncio's task groups (an
``ExceptionGroup`` under the tool's own ``RuntimeError``; an ``except*`` raising ``LookupError``) and tenacity's
``RetryError``, against a real HTTP listener on 127.0.0.1. Every process writes OTLP-JSON files under one folder;
``errscope explain`` runs as a command on the text the model was shown, as a host's JSON log line escaped it.

Found: the relay and the server both record a SERVER span under the one ref (the proxy adopts the server's), and
explain printed "2 calls match" with the relay's view first (upstream ``mcp``/``isError``, no upstream call, no root
cause). And the server behind the HTTP relay, stopped with SIGTERM as process managers stop one, lost its tool spans
(uvicorn re-raises the signal after its shutdown; the SDK's batch of spans never flushed) while its log records
arrived.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass
from errscope._otlp_json import SPAN_KIND_CLIENT, SPAN_KIND_SERVER, load
from errscope._setup import configure_telemetry
from errscope.client import ToolCallResult, ToolClient
from tests.classification.upstreams import HttpUpstream
from tests.oncall.deep_server import SECRET
from tests.proxy.conftest import ROOT, free_port, serving

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]

CALLS = {"sync_ledger": {}, "get_rates": {}, "charge": {"order_id": "ord_1"}}
# tool -> (class, upstream status, root cause type)
EXPECTED = {
    "sync_ledger": (FailureClass.UPSTREAM_UNAVAILABLE, "503", "httpx.HTTPStatusError"),
    "get_rates": (FailureClass.RATE_LIMITED, "429", "httpx.HTTPStatusError"),
    "charge": (FailureClass.NOT_FOUND, "404", "httpx.HTTPStatusError"),
}


def _server(style: str, upstream: str, out: Path, *port: str) -> list[str]:
    return [sys.executable, "-m", "tests.oncall.deep_server", style, upstream, str(out / "server"), *port]


def _proxy(out: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "errscope.cli", "proxy", "--out", str(out / "proxy"), *args]


@contextmanager
def _stopped_with_sigterm(command: list[str], port: int) -> Iterator[None]:
    """Serve ``command`` on ``port``; stop it with SIGTERM (how Kubernetes, systemd and docker stop a server), and
    wait for it to end."""
    with serving(command, port) as process:
        yield
        process.send_signal(signal.SIGTERM)
        process.wait(30)


async def _call(server: object, out: Path) -> dict[str, ToolCallResult]:
    host = configure_telemetry("host", output_dir=out / "host", set_global=False)
    try:
        async with ToolClient(server, timeout=30, tracer_provider=host.tracer_provider,  # type: ignore[arg-type]
                              meter_provider=host.meter_provider) as tools:
            return {tool: await tools.call_tool(tool, arguments) for tool, arguments in CALLS.items()}
    finally:
        host.shutdown()


def _explain(query: str, folder: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "errscope.cli", "explain", query, "--from", str(folder)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _check(results: dict[str, ToolCallResult], out: Path, upstream: HttpUpstream, style: str) -> None:
    telemetry = load(out)
    address = f"127.0.0.1:{upstream.port}"
    for tool, (failure_class, status, root) in EXPECTED.items():
        result = results[tool]
        assert result.failure_class is failure_class, (tool, result.text)
        ref = result.error_ref
        # One trace: the host's CLIENT span, the relay's SERVER span, the server's SERVER span, its httpx CLIENT span.
        carrying = telemetry.spans_where("errscope.error_ref", ref)
        assert sorted((s.service, s.kind) for s in carrying) == [
            (f"deep-{style}", SPAN_KIND_SERVER), ("errscope-proxy", SPAN_KIND_SERVER),
            ("host", SPAN_KIND_CLIENT)], (tool, carrying)
        tool_span = next(s for s in carrying if s.service.startswith("deep-"))
        relay = telemetry.parent(tool_span)
        assert relay is not None and relay.service == "errscope-proxy", tool
        client = telemetry.parent(relay)
        assert client is not None and client.service == "host" and client.kind == SPAN_KIND_CLIENT, tool
        assert {s.get("http.response.status_code") for s in telemetry.children(tool_span)} >= {int(status)}, tool
        assert (tool_span.get("errscope.upstream.status"), tool_span.get("errscope.upstream.address")) == (status, address)
        # The text the model saw, as a host's JSON log line carries it: explain finds one call, the server's.
        said = _explain(json.dumps({"tool_result": f"\n{result.text}"}), out)
        assert "calls match" not in said, said
        assert said.startswith(f"{ref}  tool={tool}  trace={tool_span.trace_id}\n"), said
        section = said.split("2. tool span\n")[1].split("3. upstream")[0]
        assert section.startswith(f"   tools/call {tool}  [SERVER, deep-{style}]"), said
        assert f"errscope.upstream.system=http  errscope.upstream.status={status}  errscope.upstream.address={address}" \
            in section, said
        assert f"   root cause {root}: " in section, said
        assert f"   relayed by errscope-proxy: tools/call {tool}  [SERVER]" in section, said
        assert f"status {status}" in said.split("3. upstream")[1].split("4. log record")[0], said
    assert SECRET not in "".join(p.read_text() for p in out.rglob("*.jsonl"))


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_stdio_relay_in_front_of_an_errscope_server(tmp_path: Path, style: str) -> None:
    out = tmp_path / "telemetry"
    with HttpUpstream() as upstream:
        command = _proxy(out, "--", *_server(style, upstream.url, out))
        results = await _call(StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT)), out)
        _check(results, out, upstream, style)


async def test_http_relay_in_front_of_an_errscope_server_stopped_with_sigterm(tmp_path: Path) -> None:
    out = tmp_path / "telemetry"
    server_port, proxy_port = free_port(), free_port()
    with HttpUpstream() as upstream:
        with _stopped_with_sigterm(_server("mcpserver", upstream.url, out, str(server_port)), server_port), \
                _stopped_with_sigterm(_proxy(out, "--upstream", f"http://127.0.0.1:{server_port}/mcp", "--listen",
                                             f"127.0.0.1:{proxy_port}"), proxy_port):
            results = await _call(f"http://127.0.0.1:{proxy_port}/mcp", out)
        _check(results, out, upstream, "mcpserver")
