"""Proxy side of tests/heldout_cases.md, sixth round (J137, J138): foreign runtimes' words for a failed connection seen
one hop further, behind ``errscope proxy`` over stdio. The proxy reads them with the same rules as the client (one
classifier), so its span and the host's result carry the same class.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``); the host is ``ToolClient``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errscope import Channel, FailureClass
from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope.client import ToolClient
from tests.client.test_heldout_cases import failed, tool
from tests.proxy.test_heldout_cases_3 import through_proxy
from tests.proxy.test_heldout_cases_5 import exported_spans

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def test_j137_nodes_fetch_failure_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J137 (J120 one hop further; TheLunarCompany/lunar #28: a gateway's tools failing with "TypeError: fetch failed …
    SocketError: other side closed"). The upstream's ``isError`` text in Node's words reaches the host as
    ``upstream_unavailable``, and the proxy's own span says the same."""
    params = through_proxy(tmp_path, [tool("list_services")], {
        "list_services": failed("TypeError: fetch failed\n  [cause]: SocketError: other side closed  code: 'UND_ERR_SOCKET'"),
    })
    async with ToolClient(params, timeout=10, retry=None) as tc:
        result = await tc.call_tool("list_services", {})
    found = await exported_spans(tmp_path / "out", "tools/call list_services")
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert len(found) == 1 and found[0].attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", found


async def test_j138_a_rust_servers_internal_error_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J138 (J123 one hop further; windmill-labs/windmill #6693: "MCP error -32603: Failed to execute request: error
    sending request for url (…"). A -32603 whose message is reqwest's failure to reach the server's upstream: the host
    and the proxy's span read ``upstream_unavailable`` from the message, on the protocol channel."""
    params = through_proxy(tmp_path, [tool("run_flow")], {
        "run_flow": {"error": {"code": -32603, "message": "Failed to execute request: error sending request for url "
                                                          "(http://127.0.0.1:8000/api/w/main/jobs/run/p/f/flow)"}},
    })
    async with ToolClient(params, timeout=10, retry=None) as tc:
        result = await tc.call_tool("run_flow", {})
    found = await exported_spans(tmp_path / "out", "tools/call run_flow")
    assert (result.channel, result.failure_class) == (Channel.PROTOCOL, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert len(found) == 1 and found[0].attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", found
