"""``errscope proxy`` side of tests/heldout_cases.md, twenty-ninth round (J464): J459's session gone under a resumed
stream, one hop further.

The upstream is two real ``MCPServer`` instances behind a balancer without sticky sessions on 127.0.0.1
(``tests/client/test_heldout_cases_29.FailingOver``); the relay is the real ``errscope proxy --upstream`` as a
subprocess; the host is ``ToolClient`` over its stdio. The count is the upstream's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errscope import Outcome
from errscope.client import ToolClient
from tests.client.test_heldout_cases_29 import FAST_RETRY, FailingOver, orders_instance
from tests.proxy.test_heldout_cases_4 import through

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j464_a_session_gone_under_a_resumed_stream_behind_a_proxy(tmp_path: Path) -> None:
    """J464 (J459 across the relay: typescript-sdk #2499, tya5/reyn PR #2600; MCP 2025-06-18 and later, Transports >
    Protocol Version Header: the client MUST send ``MCP-Protocol-Version`` on every request after ``initialize``, and a
    server that gets none assumes 2025-03-26). The proxy's upstream session ends while ``place_order`` (a write, no
    hints) runs: the upstream took the call, ran it and closed its stream (SEP-1699, a 2025-11-25 server's priming event),
    and the relay's resuming GET meets an instance that answers 404. The relay resumes the stream (it stamps the
    negotiated version, so the upstream offers resumption at all), does not tell the host the call was not run: the
    upstream ran it once, the host is told it may have taken effect, and the next call works on a new upstream session."""
    from tests.client.servers.app import serve

    ran: list[str] = []
    balancer: list[FailingOver] = []
    balancer.append(FailingOver(orders_instance(ran, balancer, first=True), orders_instance(ran, balancer, first=False)))
    async with serve(balancer[0]) as base:
        async with ToolClient(through(tmp_path, base + "/mcp"), timeout=10, connect_timeout=15, retry=FAST_RETRY,
                              mode="legacy") as tc:  # 2025-11-25: the era with sessions and resumable streams
            result = await tc.call_tool("place_order", {"sku": "FAKE-SKU-1"})
            after = await tc.call_tool("place_order", {"sku": "FAKE-SKU-2"})
    assert balancer[0].resumed and balancer[0].resumed[0] == 1, balancer[0].resumed
    assert ran == ["place_order", "place_order"], (ran, result, after)
    assert result.outcome is Outcome.ERROR and result.side_effect_possible is not False, result
    assert "not run" not in result.text and "no request was sent" not in result.text, result.text
    assert (after.outcome, after.text) == (Outcome.OK, "place_order done"), after
