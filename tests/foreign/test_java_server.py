"""ToolClient against a real server on the Java MCP SDK (``io.modelcontextprotocol.sdk:mcp`` 1.1.5) over stdio.

The server is ``tests/foreign/java`` (built by ``scripts/build-foreign-java.sh``: Maven resolves the jars, javac
compiles). The Java SDK checks no arguments against a tool's input schema, answers an unknown tool with
``-32602 "Unknown tool: invalid_tool_name"`` (the name only in ``data``) and a tool's exception with ``-32603`` and
the exception's message. Each failure must still get its class and an honest note, and the fake secret in a
tool's exception reaches neither the model text nor any span, metric or log.
"""

from __future__ import annotations

from typing import Any

import pytest

from errscope import FailureClass, Outcome
from errscope.client import ToolCallResult, ToolClient
from tests.foreign.peers import FAKE_SECRET, JAVA_NEW_RELEASE, REJECTED_ARGUMENTS, java_server_stdio
from tests.foreign.test_ts_server import telemetry_text

pytestmark = [pytest.mark.anyio, pytest.mark.stack]

STACK_FRAGMENTS = ("\tat ", ".java:", "errscope.FailingServer")


async def test_each_failure_gets_its_class_and_an_honest_note(telemetry: Any) -> None:
    """An unknown tool, arguments the tool's own code chokes on, isError reports and thrown exceptions."""
    results: dict[str, ToolCallResult] = {}
    async with ToolClient(java_server_stdio(), timeout=30, retry=None, **telemetry.providers) as tc:
        await tc.list_tools()  # the first call pays the JVM's start
        listed = len(telemetry.spans("tools/list"))
        results["unknown"] = await tc.call_tool("add_numbers", {"a": 1, "b": 2})
        after_unknown = len(telemetry.spans("tools/list"))
        for label, tool, arguments in [
            ("wrong_type", "add", {"a": "seven", "b": 2}),
            ("missing", "add", {"a": 1}),
            ("not_found", "find_order", {"order_id": "ORD-4242"}),
            ("refused", "charge_card", {"amount": 12}),
            ("limited", "search", {"query": "refunds"}),
            ("stack", "export_report", {"month": "2026-05"}),
            ("ok", "add", {"a": 2, "b": 3}),
        ]:
            results[label] = await tc.call_tool(tool, arguments)
        after_all = len(telemetry.spans("tools/list"))

    unknown = results["unknown"]
    assert unknown.failure_class is FailureClass.NOT_FOUND, unknown.text
    assert unknown.text.startswith("Tool `add_numbers` does not exist. Available: add, create_label, find_order")
    assert "invalid_tool_name" not in unknown.text
    assert after_unknown == listed + 1 and after_all == after_unknown  # only the unknown tool re-lists
    # The SDK let a string and a missing number into the tool, whose cast and unboxing failed (-32603): the
    # server's own failure, not a missing tool and not a rejection it made.
    for label in ("wrong_type", "missing"):
        assert results[label].failure_class is FailureClass.UNKNOWN, (label, results[label].text)
        assert "does not exist" not in results[label].text and "seven" not in results[label].text, label
    assert results["not_found"].failure_class is FailureClass.NOT_FOUND
    assert "ORD-4242" in results["not_found"].text
    refused = results["refused"]
    assert refused.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and refused.retryable, refused.text
    assert "payments API refused the connection" in refused.text
    assert (results["limited"].failure_class, results["limited"].retry_after) == (FailureClass.RATE_LIMITED, 2.0)
    stack = results["stack"]
    assert stack.failure_class is FailureClass.UNKNOWN and not stack.retryable, stack.text
    assert "export of 2026-05 failed" in stack.text
    assert (results["ok"].outcome, results["ok"].text) == (Outcome.OK, "5")

    recorded = telemetry_text(telemetry)
    for label, result in results.items():
        assert FAKE_SECRET not in result.text, label
        assert not any(fragment in result.text for fragment in STACK_FRAGMENTS), (label, result.text)
        assert len(result.text) <= 300, label
    assert FAKE_SECRET not in recorded and not any(fragment in recorded for fragment in STACK_FRAGMENTS[:2])


@pytest.mark.parametrize("version", [None, JAVA_NEW_RELEASE])
async def test_a_stalled_tool_times_out_and_a_dead_jvm_is_restarted(telemetry: Any, version: str | None) -> None:
    """A tool sleeping past the idle timeout is a timeout that may have happened; a tool halting the JVM is
    ``upstream_unavailable`` (may or may not have taken effect), and the next call starts the server again."""
    async with ToolClient(java_server_stdio(version), timeout=3, retry=None, late_response_grace=0.1,
                          **telemetry.providers) as tc:
        await tc.list_tools()
        stalled = await tc.call_tool("sleep", {"seconds": 6})
        crashed = await tc.call_tool("explode", {})
        after = await tc.call_tool("add", {"a": 1, "b": 1})
    assert stalled.outcome is Outcome.TIMEOUT and stalled.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
    assert crashed.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, crashed.text
    assert "may or may not have taken effect" in crashed.text
    assert (after.outcome, after.text) == (Outcome.OK, "2")


async def test_java_sdk_2_validates_arguments_in_its_validators_words(telemetry: Any) -> None:
    """Java SDK 2.x (networknt json-schema-validator 3) rejects bad arguments itself, in an ``isError`` result:
    ``[/a: string found, number expected]``, ``/weight_kg: must have an exclusive minimum value of 0``, ``/service:
    does not have a value in the enumeration [...]``, ``/order_id: does not match the regex pattern ...``. Each is a
    rejection (a note naming the argument and the rule, no sent value, no re-list); the rest reads as on 1.1.5."""
    results: dict[str, ToolCallResult] = {}
    async with ToolClient(java_server_stdio(JAVA_NEW_RELEASE), timeout=30, retry=None, **telemetry.providers) as tc:
        await tc.list_tools()
        listed = len(telemetry.spans("tools/list"))
        for label, tool, arguments in [
            *REJECTED_ARGUMENTS,
            ("too_big", "create_label", {"order_id": "ORD-1234", "weight_kg": 31, "service": "ground"}),
            ("several", "create_label", {"order_id": "x-17", "weight_kg": -1, "service": "airmail"}),
        ]:
            results[label] = await tc.call_tool(tool, arguments)
        after_rejections = len(telemetry.spans("tools/list"))
        results["unknown"] = await tc.call_tool("add_numbers", {"a": 1, "b": 2})
        after_unknown = len(telemetry.spans("tools/list"))
        for label, tool, arguments in [
            ("not_found", "find_order", {"order_id": "ORD-4242"}),
            ("refused", "charge_card", {"amount": 12}),
            ("stack", "export_report", {"month": "2026-05"}),
            ("ok", "add", {"a": 2, "b": 3}),
        ]:
            results[label] = await tc.call_tool(tool, arguments)

    for label in ("wrong_type", "missing", "enum", "pattern", "bound", "too_big", "several"):
        result = results[label]
        assert result.failure_class is FailureClass.INVALID_INPUT, (label, result.text)
        assert result.text.startswith(f"{'add' if label in ('wrong_type', 'missing') else 'create_label'} was "
                                      "rejected: invalid arguments — `"), (label, result.text)
        assert "Validation failed" not in result.text and "found" not in result.text, (label, result.text)
    assert "`a` must be a number." in results["wrong_type"].text and "seven" not in results["wrong_type"].text
    assert "`b` is required" in results["missing"].text
    assert "`service` must be one of ground, express" in results["enum"].text
    assert "hovercraft" not in results["enum"].text
    assert "`order_id` must be a string matching ^ORD-\\d{4}$" in results["pattern"].text
    assert "parcel-17" not in results["pattern"].text
    assert "`weight_kg` must be greater than 0" in results["bound"].text and "7.25" not in results["bound"].text
    assert "`weight_kg` must be at most 30" in results["too_big"].text
    several = results["several"].text
    assert all(f"`{name}`" in several for name in ("order_id", "weight_kg", "service")), several
    assert "x-17" not in several and "airmail" not in several
    assert after_rejections == listed  # a rejected argument is no reason to re-list
    assert results["unknown"].failure_class is FailureClass.NOT_FOUND and after_unknown == listed + 1
    assert results["not_found"].failure_class is FailureClass.NOT_FOUND
    assert results["refused"].failure_class is FailureClass.UPSTREAM_UNAVAILABLE
    assert results["stack"].failure_class is FailureClass.UNKNOWN
    assert (results["ok"].outcome, results["ok"].text) == (Outcome.OK, "5")
    for label, result in results.items():
        assert FAKE_SECRET not in result.text, label
        assert not any(fragment in result.text for fragment in STACK_FRAGMENTS), (label, result.text)
    assert FAKE_SECRET not in telemetry_text(telemetry)
