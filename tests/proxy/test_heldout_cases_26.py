"""``errscope proxy`` side of tests/heldout_cases.md, twenty-sixth round (J440): J432-J435's words across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the relay is the real
``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from errscope._attributes import ERRSCOPE_SIDE_EFFECT_POSSIBLE

from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import relay_classes

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j440_forgotten_sessions_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J440 (J432-J435 across the relay: metatool-ai/metamcp #166, Doist/todoist-mcp #309, python-sdk #1676,
    aplaceforallmystuff/mcp-arr #21). A foreign server's tool relays an MCP session one hop further that its server
    forgot or never set up. The relay's spans were ``not_found``, ``unknown`` and ``invalid_input``; they take the
    client's class, ``upstream_unavailable``, and none says the call may have taken effect; each call reached the
    upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "search_books": "Error POSTing to endpoint (HTTP 404): {\"error\":{\"code\":-32001,\"message\":\"Session not "
                        "found\"},\"id\":\"\",\"jsonrpc\":\"2.0\"}",
        "add_task": "Streamable HTTP error: Error POSTing to endpoint: {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32001,"
                    "\"message\":\"No transport found for sessionId\"},\"id\":null}",
        "run_agent": "mcp.shared.exceptions.McpError: Session terminated",
        "list_series": "MCP error -32600: Invalid Request: Server already initialized",
    })
    assert classes == dict.fromkeys(classes, "upstream_unavailable"), classes
    for name in classes:
        span = (await exported_spans(tmp_path / "out", f"tools/call {name}"))[0]
        assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is not True, (name, dict(span.attributes))
