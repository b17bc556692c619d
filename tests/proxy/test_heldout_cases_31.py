"""``errscope proxy`` side of tests/heldout_cases.md, thirty-first round (J477, J480): a server's failures under its SDK's
or host's lead, across the relay.

The upstream is a real FastMCP and a real MCPServer without errscope (``tests/client/servers/wrapping_sdks.py``) whose
tools fail for real on 127.0.0.1 (the OpenAI SDK against a closed port, the tools' own bugs); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout. J480's upstream is the
raw foreign stdio peer (``tests/client/servers/heldout_peer.py``) standing for servers on the C# and Go SDKs and Node
hosts, which do not run here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from errscope._attributes import ERRSCOPE_FAILURE_CLASS

from tests.classification.upstreams import closed_port
from tests.proxy.test_heldout_cases_3 import RawHost, proxy_command
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.client.test_heldout_cases_31 import HOSTS_LEADS, PEER_GONE
from tests.proxy.test_heldout_cases_12 import relay_classes, text_of

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]

CALLS = {"summarise": {"text": "refund order 17"}, "get_rate_limit": {}, "crawl_404_pages": {"site": "shop.test"}}


@pytest.mark.parametrize("style", ["fastmcp", "mcpserver"])
async def test_j477_an_sdks_lead_behind_a_proxy(style: str, tmp_path: Path, hosts: list[RawHost]) -> None:
    """J477 (J472 and J473 across the relay). The relay's span for "Error calling tool 'summarise': Connection error."
    (FastMCP) and "Error executing tool summarise: Connection error." (MCPServer) was ``unknown``; for the tools'
    own crashes under names that read as a rate limit and a 404 it was ``rate_limited`` and ``not_found``. Now
    ``upstream_unavailable`` for the refused model call and ``unknown`` for each crash; each tool ran once."""
    runs = tmp_path / "runs.txt"
    env = [f"WRAP_MODEL_URL=http://127.0.0.1:{closed_port()}/v1", "WRAP_SILENT_URL=http://127.0.0.1:9",
           "WRAP_LIMITED_URL=http://127.0.0.1:9", f"WRAP_RUNS={runs}"]
    host = RawHost(proxy_command(tmp_path / "out", "--", "env", *env, sys.executable, "-m",
                                 "tests.client.servers.wrapping_sdks", style))
    hosts.append(host)
    host.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    host.frames_until(lambda f: f.get("id") == 0, timeout=30)
    host.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    said = {}
    for request_id, (name, arguments) in enumerate(CALLS.items(), start=10):
        host.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})
        frame = host.frames_until(lambda f, i=request_id: f.get("id") == i, timeout=30)[-1]
        assert frame["result"]["isError"] is True, frame
        said[name] = text_of(frame)
    host.close()
    classes = {}
    for name in CALLS:
        spans = await exported_spans(tmp_path / "out", f"tools/call {name}")
        assert len(spans) == 1, (name, spans)
        classes[name] = spans[0].attributes.get(ERRSCOPE_FAILURE_CLASS)
    assert classes == {"summarise": "upstream_unavailable", "get_rate_limit": "unknown",
                       "crawl_404_pages": "unknown"}, (classes, said)
    assert "Wait" not in said["get_rate_limit"], said["get_rate_limit"]
    assert sorted(runs.read_text().split()) == sorted(CALLS), runs.read_text()


async def test_j480_leads_and_ended_peers_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J480 (J475, J478 and J479 across the relay: Cline's, the Agents SDK's and the C# SDK's leads, Node's "write EOF",
    the Go SDK's "client is closing: EOF"). The relay's spans were ``unknown`` for each lead over a lost connection and
    ``rate_limited`` for the C# SDK's bare text about ``get_rate_limit``; now ``upstream_unavailable`` and ``unknown``.
    Each call reached the upstream once."""
    texts = {**HOSTS_LEADS, **PEER_GONE, "get_rate_limit": "An error occurred invoking 'get_rate_limit'."}
    classes, said = await relay_classes(tmp_path, hosts, texts)
    expected = {**dict.fromkeys(texts, "upstream_unavailable"), "get_rate_limit": "unknown"}
    assert classes == expected, classes
    assert "Wait" not in said["get_rate_limit"], said["get_rate_limit"]
