"""ToolClient against a real server on the official Rust MCP SDK (``rmcp``, crates.io), on stdio and HTTP.

The server is ``tests/foreign/rust`` (built by ``scripts/build-foreign-rust.sh``). rmcp checks no arguments against
a tool's input schema: ``Parameters<T>`` deserializes them with serde and answers a failure as an ``isError`` result
``failed to deserialize parameters: <serde's words>`` (serde names a missing field, but echoes the *value* of a
wrong one: ``invalid type: string "seven", expected f64``); rules serde cannot express are the tool's own checks
(``ErrorData::invalid_params``, -32602). An unknown tool is ``-32602 "tool not found"``, naming no tool; a tool's
``Err`` is a JSON-RPC error with its code (-32603, -32002) and the author's message; a panicking tool's task dies
and no answer ever comes. Each failure must get its channel, its class and an honest note, only the unknown tool
re-lists, and the fake secret in a tool's error, with the Rust backtrace around it, reaches neither the model text
nor any span, metric or log.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from errscope import Channel, FailureClass, Outcome
from errscope.client import ToolCallResult, ToolClient
from errscope.testing import CapturedTelemetry
from tests.foreign.peers import FAKE_SECRET, REJECTED_ARGUMENTS, rust_server_http, rust_server_stdio
from tests.foreign.test_ts_server import telemetry_text

pytestmark = [pytest.mark.anyio, pytest.mark.stack]

STACK_FRAGMENTS = ("stack backtrace", ".rs:", "rmcp_failing_server::", "/rustc/", "core::ops::function")


@asynccontextmanager
async def client(
    transport: str, telemetry: CapturedTelemetry, *flags: str, **options: Any
) -> AsyncIterator[ToolClient]:
    if transport == "stdio":
        async with ToolClient(rust_server_stdio(*flags), **options, **telemetry.providers) as tc:
            yield tc
    else:  # rmcp's StreamableHttpService, served by axum (ToolClient and rmcp 3.11 agree on 2026-07-28: stateless)
        with rust_server_http(*flags) as url:
            async with ToolClient(url, **options, **telemetry.providers) as tc:
                yield tc


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_each_failure_gets_its_channel_class_and_an_honest_note(transport: str, telemetry: Any) -> None:
    """serde's rejections, the tool's own -32602s, an unknown tool, isError texts and -32603/-32002 errors."""
    results: dict[str, ToolCallResult] = {}
    async with client(transport, telemetry, timeout=10, retry=None) as tc:
        await tc.list_tools()
        listed = len(telemetry.spans("tools/list"))
        for label, tool, arguments in REJECTED_ARGUMENTS:
            results[label] = await tc.call_tool(tool, arguments)
        results["nested_type"] = await tc.call_tool(
            "ship", {"address": {"city": 75001, "zip": "75001"}, "items": [{"sku": "A-1", "qty": 1}]})
        results["nested_missing"] = await tc.call_tool("ship", {"address": {"city": "Paris"}, "items": []})
        results["unsigned"] = await tc.call_tool(
            "ship", {"address": {"city": "Paris", "zip": "75001"}, "items": [{"sku": "A-1", "qty": -2}]})
        results["map"] = await tc.call_tool(  # serde names the kind it got, not the value: "invalid type: map"
            "ship", {"address": {"city": {"name": "Paris"}, "zip": "75001"}, "items": []})
        results["non_ascii"] = await tc.call_tool(  # serde echoes "Zürich" as it is, JSON would escape the ü
            "ship", {"address": {"city": "Paris", "zip": "75001"}, "items": [{"sku": "A-1", "qty": "Zürich"}]})
        after_rejections = len(telemetry.spans("tools/list"))
        results["unknown"] = await tc.call_tool("add_numbers", {"a": 1, "b": 2})
        after_unknown = len(telemetry.spans("tools/list"))
        for label, tool, arguments in [
            ("not_found", "find_order", {"order_id": "ORD-4242"}),
            ("denied", "delete_repo", {"repo": "payments"}),
            ("limited", "search", {"query": "refunds"}),
            ("refused", "charge_card", {"amount": 12}),
            ("internal", "refund", {"amount": 3}),
            ("no_invoice", "get_invoice", {"invoice_id": "INV-77"}),
            ("stack", "export_report", {"month": "2026-05"}),
            ("no_file", "read_report", {"path": "/nonexistent/errscope/2026-05.csv"}),
            ("io_kind", "sync_inventory", {}),
            ("elapsed", "fetch_quote", {"symbol": "ACME"}),
            ("bad_body", "price_feed", {"symbol": "ACME"}),
            ("caught_panic", "parse_amount", {"amount": "12,50"}),
            ("ok", "add", {"a": 2, "b": 3}),
        ]:
            results[label] = await tc.call_tool(tool, arguments)
        after_all = len(telemetry.spans("tools/list"))

    # serde's reports are isError results; the tool's own checks are -32602: both are rejected arguments.
    serde_labels = ("wrong_type", "missing", "enum", "nested_type", "nested_missing", "unsigned", "map", "non_ascii")
    for label in serde_labels:
        assert results[label].channel is Channel.EXECUTION, label
    for label in ("pattern", "bound"):
        assert results[label].channel is Channel.PROTOCOL, label
    for label in ("pattern", "bound", *serde_labels):
        assert results[label].failure_class is FailureClass.INVALID_INPUT, (label, results[label].text)
        assert "was rejected: invalid arguments — " in results[label].text, (label, results[label].text)
        assert "does not exist" not in results[label].text and "deserialize" not in results[label].text, label
    assert results["wrong_type"].text.startswith("add was rejected: invalid arguments — `a` must be a number.")
    assert "seven" not in results["wrong_type"].text
    assert "`b` is required" in results["missing"].text
    assert "`service` must be one of ground, express" in results["enum"].text
    assert "hovercraft" not in results["enum"].text
    assert "`order_id` must be a string matching ^ORD-\\d{4}$" in results["pattern"].text
    assert "parcel-17" not in results["pattern"].text
    assert "`weight_kg` must be greater than 0 and at most 30" in results["bound"].text
    assert "7.25" not in results["bound"].text
    assert "`address.city` must be a string" in results["nested_type"].text  # serde echoed 75001, not the path
    assert "75001" not in results["nested_type"].text
    assert "`address.zip` is required" in results["nested_missing"].text  # serde said "missing field `zip`"
    assert "`items.0.qty` must be a non-negative integer" in results["unsigned"].text  # "expected u32"
    assert "`address.city` must be a string" in results["map"].text
    assert "`items.0.qty` must be a non-negative integer" in results["non_ascii"].text
    assert "Zürich" not in results["non_ascii"].text
    assert after_rejections == listed  # a rejected argument is no reason to re-list

    unknown = results["unknown"]  # "tool not found" names no tool: the call's own name is the one missing
    assert (unknown.channel, unknown.failure_class) == (Channel.PROTOCOL, FailureClass.NOT_FOUND), unknown.text
    assert unknown.text.startswith("Tool `add_numbers` does not exist. Available: add, charge_card, create_label")
    assert after_unknown == listed + 1 and after_all == after_unknown  # the unknown tool, and only it, re-listed

    assert results["not_found"].failure_class is FailureClass.NOT_FOUND
    assert "ORD-4242" in results["not_found"].text
    assert (results["denied"].failure_class, results["denied"].retryable) == (FailureClass.PERMISSION_DENIED, False)
    assert (results["limited"].failure_class, results["limited"].retry_after) == (FailureClass.RATE_LIMITED, 2.0)
    refused = results["refused"]  # reqwest's "tcp connect error: Connection refused (os error 111)"
    assert (refused.channel, refused.failure_class, refused.retryable) == (
        Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE, True), refused.text
    internal = results["internal"]  # -32603 "refunds API unavailable: upstream returned 503 (token ...)"
    assert (internal.channel, internal.failure_class) == (Channel.PROTOCOL, FailureClass.UPSTREAM_UNAVAILABLE)
    no_invoice = results["no_invoice"]  # -32002, rmcp's resource-not-found code, from a tool
    assert (no_invoice.channel, no_invoice.failure_class) == (Channel.PROTOCOL, FailureClass.NOT_FOUND), no_invoice
    assert "INV-77" in no_invoice.text and "does not exist" not in no_invoice.text
    stack = results["stack"]  # a panic's message and backtrace: "unwrap() on a None value" is no bad input
    assert stack.failure_class is FailureClass.UNKNOWN and not stack.retryable, stack.text
    assert stack.text.startswith("export_report failed: export of 2026-05 failed"), stack.text
    assert (results["ok"].outcome, results["ok"].text) == (Outcome.OK, "5")
    # Rust's own failures, passed on as isError texts (real std, tokio, serde_json and panic output):
    assert results["no_file"].failure_class is FailureClass.NOT_FOUND  # "No such file or directory (os error 2)"
    assert results["io_kind"].failure_class is FailureClass.UPSTREAM_UNAVAILABLE  # io::ErrorKind "ConnectionRefused"
    assert results["elapsed"].failure_class is FailureClass.UPSTREAM_UNAVAILABLE  # tokio: "deadline has elapsed"
    # serde_json failing on the upstream's body ("invalid type: null, expected f64"): the upstream's data, not the
    # caller's arguments
    assert results["bad_body"].failure_class is FailureClass.UNKNOWN, results["bad_body"].text
    assert "was rejected" not in results["bad_body"].text
    # "called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }": the tool's bug
    assert results["caught_panic"].failure_class is FailureClass.UNKNOWN, results["caught_panic"].text

    recorded = telemetry_text(telemetry)
    for label, result in results.items():
        assert FAKE_SECRET not in result.text, label
        assert not any(fragment in result.text for fragment in STACK_FRAGMENTS), (label, result.text)
        assert len(result.text) <= 300, label
    assert FAKE_SECRET not in recorded
    assert not any(fragment in recorded for fragment in STACK_FRAGMENTS[:2])


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_progress_keeps_a_slow_tool_alive_and_a_panicked_tool_times_out(transport: str, telemetry: Any) -> None:
    """Progress every 0.2 s keeps a 1 s call within a 0.5 s idle timeout; a silent sleep, and a tool whose
    panic killed its task (rmcp sends nothing then), time out honestly; the server lives on."""
    async with client(transport, telemetry, timeout=0.5, retry=None, late_response_grace=0.1) as tc:
        await tc.list_tools()
        chatty = await tc.call_tool("slow_report", {"steps": 5, "delay_ms": 200})
        silent = await tc.call_tool("sleep", {"seconds": 1})
        exploded = await tc.call_tool("explode", {})
        after = await tc.call_tool("add", {"a": 1, "b": 1}, timeout=10)  # the server lives on: not a race with the load
    assert (chatty.outcome, chatty.text) == (Outcome.OK, "report done after 5 steps")
    for result in (silent, exploded):
        assert result.outcome is Outcome.TIMEOUT and result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert "may already have been done" in result.text
        assert not any(fragment in result.text for fragment in STACK_FRAGMENTS)
    assert (after.outcome, after.text) == (Outcome.OK, "2")


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_server_without_tools(transport: str, telemetry: Any) -> None:
    """rmcp's default handlers answer tools/list and tools/call with -32601 whose message is only the method's name
    ("tools/call"); on HTTP at 2026-07-28 with status 404, the status of an expired session too. The call is an
    unknown tool on a server that lists none, after one re-list: not an expired session, not a retry loop."""
    async with client(transport, telemetry, "--no-tools", timeout=5, retry=None) as tc:
        result = await tc.call_tool("add", {"a": 1, "b": 2})
        again = await tc.call_tool("add", {"a": 1, "b": 2})
    for answer in (result, again):
        assert (answer.outcome, answer.channel, answer.failure_class) == (
            Outcome.ERROR, Channel.PROTOCOL, FailureClass.NOT_FOUND), answer.text
        assert answer.text.startswith("Tool `add` does not exist. Available: none."), answer.text
        assert "tools/call" not in answer.text
    assert len(telemetry.spans("tools/call add")) == 2  # one request per call: no re-initialise and retry
