"""Proxy side of tests/heldout_cases.md, fourth round (J85, J86, J98): a stdio host reaching an HTTP upstream through
``errscope proxy --upstream URL``, where a CDN or reverse proxy in front of the upstream answers with its own HTML
error page, or the connection drops while the answer is on its way; and a stdio upstream that is itself a gateway
relaying a cancellation.

The upstream is a real ``MCPServer`` over streamable HTTP on 127.0.0.1 behind the ASGI gates of the client tests
(``tests/client/test_heldout_cases_4.py``), or the raw foreign stdio peer; the host is ``ToolClient`` over stdio.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass, Outcome
from errscope.client import ToolClient
from tests.client.test_heldout_cases_3 import gated
from tests.client.test_heldout_cases_4 import CLOUDFLARE_524, FAST_RETRY, HTML, cut_mid_answer, first_refused, pages_server
from tests.proxy.conftest import ROOT, proxy_command

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def through(tmp_path: Path, url: str) -> StdioServerParameters:
    command = proxy_command(tmp_path, "--upstream", url)
    return StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))


async def test_j85_cdn_error_page_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J85 (obot-platform/obot #3266: a gateway relayed Cloudflare's 524 page as "Error POSTing to endpoint (HTTP
    524): <!DOCTYPE html>…"; smart-mcp-proxy/mcpproxy-go PR #1042: a relay flattened every non-2xx answer into one
    string). Behind ``errscope proxy --upstream``, the host learns that the upstream is unavailable and that the
    call may have run (524: the origin took the request and did not answer in time), without any of the page; the
    tool is not sent again; the next call works."""
    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    gate = first_refused("create_page", 524, CLOUDFLARE_524, seen, HTML)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=5, retry=FAST_RETRY) as tc:
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
            after = await tc.call_tool("status", {})
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert len(seen) == 1 and result.side_effect_possible is not False
    for fragment in ("<html", "DOCTYPE", "cf-wrapper", "203.0.113.77", "8f00FAKE"):
        assert fragment not in result.text
    assert after.text == "up"


async def test_j86_connection_cut_mid_answer_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J86 (tya5/reyn PR #2600 and NousResearch/hermes-agent PR #88821, seen one hop further: a relay that re-sends a
    call whose upstream connection dropped after the request was written re-runs a write). The upstream ran
    ``create_page`` and the connection dropped mid-answer: the host's call ends as a failure that may have run,
    the proxy did not send it upstream a second time, and the next call works through the same proxy."""
    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    async with serve(cut_mid_answer(server.streamable_http_app(host="127.0.0.1"), "create_page", seen)) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=5, retry=FAST_RETRY) as tc:
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
            after = await tc.call_tool("status", {})
    assert result.outcome is not Outcome.OK and result.side_effect_possible is not False, result
    assert server.ran == ["create_page:Q3 plan"] and len(seen) == 1
    assert "peer closed" not in result.text and "chunked" not in result.text
    assert after.text == "up"


async def test_j98_a_relayed_cancellation_behind_a_stdio_proxy(tmp_path: Path) -> None:
    """J98 (mindstone/Super-MCP #1 and J92, one hop further: the server behind ``errscope proxy`` is itself a gateway and
    answers -32800 "Request cancelled" for a call the host never cancelled). The proxy's span and the host read it
    alike: ``upstream_unavailable``, not ``unknown`` (the mapping-gap alert), the call may have taken effect and is
    not sent again; the model reads the ref once (the proxy appends it to the message, the client ends its note with
    it); the next call works."""
    from tests.client.test_heldout_cases import ok, tool
    from tests.proxy.test_heldout_cases_3 import through_proxy

    params = through_proxy(tmp_path, [tool("send_invoice"), tool("echo")],
                           {"send_invoice": {"error": {"code": -32800, "message": "Request cancelled"}}, "echo": ok("echo")})
    async with ToolClient(params, timeout=5, retry=FAST_RETRY) as tc:
        result = await tc.call_tool("send_invoice", {"invoice": "INV-7"})
        after = await tc.call_tool("echo", {})
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert result.side_effect_possible is not False and result.attempts == 1, result
    assert "may have taken effect" in result.text and after.text == "echo"
    assert result.text.count(result.error_ref or "ERR-") == 1, result.text  # the proxy's "(Ref …)" is not repeated
