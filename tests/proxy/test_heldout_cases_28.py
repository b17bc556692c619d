"""``errscope proxy`` side of tests/heldout_cases.md, twenty-eighth round (J458): J450-J454's words across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from errscope._attributes import ERRSCOPE_SIDE_EFFECT_POSSIBLE

from tests.client.test_heldout_cases_28 import XAGENT
from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import relay_classes

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j458_foreign_sdks_words_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J458 (J450-J454 across the relay: modelcontextprotocol/java-sdk #433, modelcontextprotocol/csharp-sdk #350,
    nerding-io/n8n-nodes-mcp #42, langchain-ai/langchain-mcp-adapters #78, OpenBMB/XAgent #53). A foreign server's tool
    relays the Java SDK's failed handshake, the C# SDK's "The server shut down unexpectedly.", n8n's connect timeout,
    LangGraph's ``ClosedResourceError`` and a Python traceback of a refused connection. The relay's spans were
    ``unknown`` (and the connect timeout's "may have taken effect"); each is ``upstream_unavailable``, none of the
    handshake, timeout, closed-stream and refused ones says the call may have taken effect, and each call reached the
    upstream once."""
    classes, said = await relay_classes(tmp_path, hosts, {
        "list_models": "io.modelcontextprotocol.spec.McpError: Client failed to initialize by explicit API call",
        "web_search": "System.IO.IOException: The server shut down unexpectedly.",
        "list_tools_op": "Failed to execute operation: Failed to connect to MCP server: MCP error -32001: Request timed out",
        "k8s_get_pods": "Error: ClosedResourceError()\n Please fix your mistakes.",
        "execute_tool": XAGENT,
    })
    assert classes == dict.fromkeys(classes, "upstream_unavailable"), classes
    for name in ("list_models", "list_tools_op", "k8s_get_pods", "execute_tool"):
        span = (await exported_spans(tmp_path / "out", f"tools/call {name}"))[0]
        assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is not True, (name, dict(span.attributes))
        assert "may have" not in said[name], said[name]
