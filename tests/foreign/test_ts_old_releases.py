"""ToolClient against older releases of the TypeScript SDK, whose servers word rejections differently.

The server is ``tests/npm/servers/ts_failing_server.mjs`` on three v1 releases installed as npm aliases
(``tests/npm/package.json``): 1.12.1 and 1.17.5 (zod 3) answer bad arguments and unknown tools with a JSON-RPC
``-32602`` error holding zod's JSON issue list; 1.24.3 (zod 4) sends the same kind of text, ``MCP error -32602``
prefix included, inside an ``isError`` result, and an unknown tool too. Each must still be read as what it is:
a note naming the argument and the rule for a rejection, "does not exist" (and a re-list) only for a missing tool.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from errscope import FailureClass, Outcome
from errscope.client import ToolCallResult, ToolClient
from tests.foreign.peers import FAKE_SECRET, REJECTED_ARGUMENTS, ts_server_stdio
from tests.foreign.test_ts_server import telemetry_text

pytestmark = [pytest.mark.anyio, pytest.mark.stack]

RELEASES = ("sdk-1-12", "v1-old", "sdk-1-24")  # 1.12.1, 1.17.5, 1.24.3


@pytest.mark.parametrize("release", RELEASES)
async def test_each_failure_gets_its_class_and_an_honest_note(release: str, telemetry: Any) -> None:
    """Rejected arguments (type, missing, enum, pattern, bound, nested), an unknown tool, thrown errors."""
    results: dict[str, ToolCallResult] = {}
    async with ToolClient(ts_server_stdio(release), timeout=15, retry=None, **telemetry.providers) as tc:
        await tc.list_tools()
        listed = len(telemetry.spans("tools/list"))
        for label, tool, arguments in [
            *REJECTED_ARGUMENTS,
            ("nested", "ship", {"address": {"city": "Paris", "zip": "75001"}, "items": [{"sku": "A-1", "qty": 0}]}),
        ]:
            results[label] = await tc.call_tool(tool, arguments)
        after_rejections = len(telemetry.spans("tools/list"))
        results["unknown"] = await tc.call_tool("add_numbers", {"a": 1, "b": 2})
        after_unknown = len(telemetry.spans("tools/list"))
        for label, tool, arguments in [
            ("not_found", "find_order", {"order_id": "ORD-4242"}),
            ("thrown", "charge_card", {"amount": 12}),
            ("limited", "search", {"query": "refunds"}),
            ("ok", "add", {"a": 2, "b": 3}),
        ]:
            results[label] = await tc.call_tool(tool, arguments)

    for label in ("wrong_type", "missing", "enum", "pattern", "bound", "nested"):
        assert results[label].failure_class is FailureClass.INVALID_INPUT, (label, results[label].text)
        assert "was rejected: invalid arguments — " in results[label].text, label
        assert "does not exist" not in results[label].text and "[" not in results[label].text, label
    assert results["wrong_type"].text.startswith("add was rejected: invalid arguments — `a` must be a number.")
    assert "seven" not in results["wrong_type"].text
    assert "`b` is required" in results["missing"].text
    assert "`service` must be one of ground, express" in results["enum"].text
    assert "hovercraft" not in results["enum"].text
    # zod 4 quotes the pattern; zod 3 says only "Invalid" (regex): the listed inputSchema's pattern fills in.
    pattern = re.compile(r"`order_id` must be a string (matching /?\^ORD-\\d\{4\}\$/?|like ORD-\d{4}\b)")
    assert pattern.search(results["pattern"].text), results["pattern"].text
    assert "parcel-17" not in results["pattern"].text
    assert "`weight_kg` must be greater than 0" in results["bound"].text and "7.25" not in results["bound"].text
    assert "`items.0.qty` must be at least 1" in results["nested"].text
    assert after_rejections == listed  # a rejected argument is no reason to re-list

    unknown = results["unknown"]
    assert unknown.failure_class is FailureClass.NOT_FOUND
    assert unknown.text.startswith("Tool `add_numbers` does not exist. Available: add, create_label, ship, find_order")
    assert after_unknown == listed + 1
    assert results["not_found"].failure_class is FailureClass.NOT_FOUND
    assert "ORD-4242" in results["not_found"].text
    thrown = results["thrown"]
    assert thrown.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and thrown.retryable
    assert (results["limited"].failure_class, results["limited"].retry_after) == (FailureClass.RATE_LIMITED, 2.0)
    assert (results["ok"].outcome, results["ok"].text) == (Outcome.OK, "5")
    for label, result in results.items():
        assert FAKE_SECRET not in result.text, label
        assert len(result.text) <= 300, label
    assert FAKE_SECRET not in telemetry_text(telemetry)
