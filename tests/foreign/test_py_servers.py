"""ToolClient against real servers on the Python SDKs most servers in the wild still run: mcp 1.x and FastMCP 2.

The server is ``tests/foreign/servers/py_failing_server.py`` on ``mcp`` 1.9.4's and 1.30.0's bundled FastMCP and on
FastMCP 2.14.7, each in its own venv built by ``scripts/tools.sh`` (``mcp<2`` cannot share the project venv).
Their SDKs put rejected arguments, unknown tools and raised errors into ``isError`` texts (pydantic reports,
``Error executing tool ...``, ``Unknown tool: ...``); each must still get its class and an honest note, and a
Python traceback with a fake secret in it reaches neither the model text nor any span, metric or log.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from errscope import FailureClass, Outcome
from errscope.client import ToolCallResult, ToolClient
from tests.foreign.peers import FAKE_SECRET, PY_FAILING_PEERS, REJECTED_ARGUMENTS, py_failing_stdio
from tests.foreign.test_ts_server import telemetry_text

pytestmark = [pytest.mark.anyio, pytest.mark.stack]

TRACEBACK_FRAGMENTS = ("Traceback (most recent call last)", 'File "', "py_failing_server.py", "KeyError")


@pytest.mark.parametrize("peer", sorted(PY_FAILING_PEERS))
async def test_each_failure_gets_its_class_and_an_honest_note(peer: str, telemetry: Any) -> None:
    """Rejected arguments, an unknown tool, the tool's own failure reports and raised errors, in one session."""
    results: dict[str, ToolCallResult] = {}
    async with ToolClient(py_failing_stdio(peer), timeout=20, retry=None, **telemetry.providers) as tc:
        await tc.list_tools()
        listed = len(telemetry.spans("tools/list"))
        for label, tool, arguments in REJECTED_ARGUMENTS:
            results[label] = await tc.call_tool(tool, arguments)
        after_rejections = len(telemetry.spans("tools/list"))
        for label, tool, arguments in [
            ("unknown", "add_numbers", {"a": 1, "b": 2}),
            ("not_found", "find_order", {"order_id": "ORD-4242"}),
            ("refused", "charge_card", {"amount": 12}),
            ("traceback", "export_report", {"month": "2026-05"}),
            ("limited", "search", {"query": "refunds"}),
            ("ok", "add", {"a": 2, "b": 3}),
        ]:
            results[label] = await tc.call_tool(tool, arguments)

    for label in ("wrong_type", "missing", "enum", "pattern", "bound"):
        assert results[label].failure_class is FailureClass.INVALID_INPUT, (label, results[label].text)
        assert "was rejected: invalid arguments — " in results[label].text, label
        assert "does not exist" not in results[label].text, label
    wrong_type = re.compile(r"add was rejected: invalid arguments — `a` must be a (valid )?number\.")
    assert wrong_type.match(results["wrong_type"].text), results["wrong_type"].text
    assert "seven" not in results["wrong_type"].text
    assert "`b` is required" in results["missing"].text
    assert "`service` must be one of ground, express" in results["enum"].text
    assert "hovercraft" not in results["enum"].text
    assert "`order_id` must be a string matching ^ORD-\\d{4}$" in results["pattern"].text
    assert "parcel-17" not in results["pattern"].text
    assert "`weight_kg` must be greater than 0" in results["bound"].text and "7.25" not in results["bound"].text
    assert after_rejections == listed  # a rejected argument is no reason to re-list

    unknown = results["unknown"]
    assert unknown.failure_class is FailureClass.NOT_FOUND
    assert unknown.text.startswith("Tool `add_numbers` does not exist. Available: add, create_label, find_order")
    assert results["not_found"].failure_class is FailureClass.NOT_FOUND
    assert "ORD-4242" in results["not_found"].text  # the tool's own words about the order, not a tool lookup
    refused = results["refused"]
    assert refused.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and refused.retryable
    assert "payments API refused the connection" in refused.text
    traceback = results["traceback"]
    assert traceback.failure_class is FailureClass.UNKNOWN and not traceback.retryable
    assert "export of 2026-05 failed" in traceback.text
    assert (results["limited"].failure_class, results["limited"].retry_after) == (FailureClass.RATE_LIMITED, 2.0)
    assert (results["ok"].outcome, results["ok"].text) == (Outcome.OK, "5")

    recorded = telemetry_text(telemetry)
    for label, result in results.items():
        assert FAKE_SECRET not in result.text, label
        assert not any(fragment in result.text for fragment in TRACEBACK_FRAGMENTS), (label, result.text)
        assert len(result.text) <= 300, label
    assert FAKE_SECRET not in recorded
    assert not any(fragment in recorded for fragment in TRACEBACK_FRAGMENTS[:2])


@pytest.mark.parametrize("peer", sorted(PY_FAILING_PEERS))
async def test_a_stalled_tool_times_out_and_a_crash_is_survived(peer: str, telemetry: Any) -> None:
    """A tool blocking past the idle timeout is a timeout that may have happened; a tool killing the server is
    ``upstream_unavailable`` (may or may not have taken effect), and ToolClient starts the server again."""
    async with ToolClient(py_failing_stdio(peer), timeout=1.5, retry=None, late_response_grace=0.1,
                          **telemetry.providers) as tc:
        await tc.list_tools()  # the first call pays the server's start
        stalled = await tc.call_tool("sleep", {"seconds": 4})
        crashed = await tc.call_tool("explode", {})
        after = await tc.call_tool("add", {"a": 1, "b": 1})
    assert stalled.outcome is Outcome.TIMEOUT and stalled.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
    assert "may already have been done" in stalled.text
    assert crashed.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
    assert "may or may not have taken effect" in crashed.text
    assert (after.outcome, after.text) == (Outcome.OK, "2")
