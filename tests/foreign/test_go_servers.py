"""ToolClient against real MCP servers built on the Go SDKs, whose tools fail every way, on stdio and HTTP.

The servers are ``tests/foreign/go/gosdk`` (the official ``modelcontextprotocol/go-sdk``) and
``tests/foreign/go/mcpgo`` (``mark3labs/mcp-go``), built by ``scripts/build-foreign-go.sh``. Their SDKs word
every failure their own way (their rejections of bad arguments are in ``tests/foreign/data/invalid_params_corpus.json``);
each must still get its class and an honest note, only an unknown tool re-lists, and the fake secret a tool puts
into its error, with the Go stack trace around it, reaches neither the model text nor any span, metric or log.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from errscope import FailureClass, Outcome
from errscope.client import ToolCallResult, ToolClient
from errscope.testing import CapturedTelemetry
from tests.foreign.peers import (
    FAKE_SECRET,
    GO_OLD_RELEASES,
    GO_SDKS,
    REJECTED_ARGUMENTS,
    go_server_http,
    go_server_stdio,
)
from tests.foreign.test_ts_server import telemetry_text

pytestmark = [pytest.mark.anyio, pytest.mark.stack]

COMBOS = [(sdk, transport) for sdk in (*GO_SDKS, *GO_OLD_RELEASES) for transport in ("stdio", "http")]
STACK_FRAGMENTS = ("goroutine", "runtime/debug", ".go:", "+0x")


@pytest.fixture
def telemetry() -> Any:
    with CapturedTelemetry.installed() as captured:
        yield captured


@asynccontextmanager
async def client(sdk: str, transport: str, telemetry: CapturedTelemetry, **options: Any) -> AsyncIterator[ToolClient]:
    if transport == "stdio":
        async with ToolClient(go_server_stdio(sdk), **options, **telemetry.providers) as tc:
            yield tc
    else:
        with go_server_http(sdk) as url:
            async with ToolClient(url, **options, **telemetry.providers) as tc:
                yield tc


def relists(telemetry: CapturedTelemetry) -> int:
    return len(telemetry.spans("tools/list"))


@pytest.mark.parametrize(("sdk", "transport"), COMBOS)
async def test_each_failure_gets_its_class_and_an_honest_note(sdk: str, transport: str, telemetry: Any) -> None:
    """Rejected arguments, an unknown tool, isError texts and Go errors, through one session per SDK and transport."""
    results: dict[str, ToolCallResult] = {}
    async with client(sdk, transport, telemetry, timeout=10, retry=None) as tc:
        await tc.list_tools()
        listed = relists(telemetry)
        for label, tool, arguments in REJECTED_ARGUMENTS:
            results[label] = await tc.call_tool(tool, arguments)
        after_rejections = relists(telemetry)
        results["unknown"] = await tc.call_tool("add_numbers", {"a": 1, "b": 2})
        after_unknown = relists(telemetry)
        for label, tool, arguments in [
            ("not_found", "find_order", {"order_id": "ORD-4242"}),
            ("denied", "delete_repo", {"repo": "payments"}),
            ("limited", "search", {"query": "refunds"}),
            ("refused", "charge_card", {"amount": 12}),
            ("go_error", "refund", {"amount": 3}),
            ("stack", "export_report", {"month": "2026-05"}),
            ("ok", "add", {"a": 2, "b": 3}),
        ]:
            results[label] = await tc.call_tool(tool, arguments)

    for label in ("wrong_type", "missing", "enum", "pattern", "bound"):
        assert results[label].failure_class is FailureClass.INVALID_INPUT, (label, results[label].text)
        assert "was rejected: invalid arguments — " in results[label].text, label
        assert "does not exist" not in results[label].text, label
    assert results["wrong_type"].text.startswith("add was rejected: invalid arguments — `a` must be a number.")
    assert "seven" not in results["wrong_type"].text
    assert "`b` is required" in results["missing"].text
    assert "`service` must be one of ground, express" in results["enum"].text
    assert "hovercraft" not in results["enum"].text
    assert "`order_id`" in results["pattern"].text and "parcel-17" not in results["pattern"].text
    assert "`weight_kg`" in results["bound"].text and "7.25" not in results["bound"].text
    if sdk.startswith("gosdk"):  # its reports name the failed keyword and the schema's value
        assert "`order_id` must be a string matching ^ORD-\\d{4}$" in results["pattern"].text
        assert "`weight_kg` must be greater than 0" in results["bound"].text
    else:  # its reports name the argument, not the rule: what it must be comes from the listed inputSchema
        assert re.search(r"`order_id` must be a string like ORD-\d{4}\b", results["pattern"].text)
        assert "`weight_kg` must be a number greater than 0 and at most 30" in results["bound"].text
    # go-sdk 1.2.0 sends a notifications/tools/list_changed of its own shortly after the session starts (its AddTool
    # notice, debounced); the client re-lists once on it after the next failure, wherever that lands.
    spurious = 1 if sdk in GO_OLD_RELEASES else 0
    assert listed <= after_rejections <= listed + spurious  # a rejected argument is no reason to re-list

    unknown = results["unknown"]
    assert unknown.failure_class is FailureClass.NOT_FOUND
    assert unknown.text.startswith("Tool `add_numbers` does not exist. Available: add, ")
    assert listed + 1 <= after_unknown <= listed + 1 + spurious  # the unknown tool, and only it, re-listed

    assert results["not_found"].failure_class is FailureClass.NOT_FOUND
    assert "ORD-4242" in results["not_found"].text  # the tool's own words about the order, not a tool lookup
    assert (results["denied"].failure_class, results["denied"].retryable) == (FailureClass.PERMISSION_DENIED, False)
    assert (results["limited"].failure_class, results["limited"].retry_after) == (FailureClass.RATE_LIMITED, 2.0)
    for label in ("refused", "go_error"):  # "connection refused" / "upstream returned 503", isError or -32603
        assert results[label].failure_class is FailureClass.UPSTREAM_UNAVAILABLE and results[label].retryable, label
    stack = results["stack"]
    assert stack.failure_class is FailureClass.UNKNOWN  # a panic's dump: "invalid memory address" is no bad input
    assert stack.text.startswith("export_report failed: export failed: panic: runtime error")
    assert (results["ok"].outcome, results["ok"].text) == (Outcome.OK, "5")

    recorded = telemetry_text(telemetry)
    for label, result in results.items():
        assert FAKE_SECRET not in result.text, label
        assert not any(fragment in result.text for fragment in STACK_FRAGMENTS), (label, result.text)
        assert len(result.text) <= 300, label
    assert FAKE_SECRET not in recorded
    assert not any(fragment in recorded for fragment in STACK_FRAGMENTS)


@pytest.mark.parametrize(("sdk", "transport"), COMBOS)
async def test_progress_keeps_a_slow_tool_alive_and_silence_times_out(sdk: str, transport: str, telemetry: Any) -> None:
    """Progress every 0.2 s keeps a 1 s call within a 0.5 s idle timeout; a silent 1 s sleep does not."""
    async with client(sdk, transport, telemetry, timeout=0.5, retry=None, late_response_grace=0.1) as tc:
        chatty = await tc.call_tool("slow_report", {"steps": 5, "delay_ms": 200})
        silent = await tc.call_tool("sleep", {"seconds": 1})
        after = await tc.call_tool("add", {"a": 1, "b": 1})
    assert (chatty.outcome, chatty.text) == (Outcome.OK, "report done after 5 steps")
    assert silent.outcome is Outcome.TIMEOUT and silent.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
    assert "may already have been done" in silent.text
    assert (after.outcome, after.text) == (Outcome.OK, "2")


@pytest.mark.parametrize("sdk", GO_SDKS)
async def test_a_panicking_tool(sdk: str, telemetry: Any) -> None:
    """go-sdk does not recover a handler's panic (the server dies); mcp-go's WithRecovery answers -32603.

    Either way the call fails without a stack trace in the model text and the next call works (ToolClient
    starts the stdio server again).
    """
    async with client(sdk, "stdio", telemetry, timeout=10, retry=None) as tc:
        exploded = await tc.call_tool("explode", {})
        after = await tc.call_tool("add", {"a": 2, "b": 3})
    if sdk == "gosdk":
        assert exploded.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert "may or may not have taken effect" in exploded.text
    else:
        assert exploded.failure_class is FailureClass.UNKNOWN and not exploded.retryable
        assert "runtime error: index out of range" in exploded.text
    assert not any(fragment in exploded.text for fragment in STACK_FRAGMENTS)
    assert (after.outcome, after.text) == (Outcome.OK, "5")


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_mcp_go_argument_helpers(transport: str, telemetry: Any) -> None:
    """A tool checking its own arguments with mcp-go's helpers (RequireString, BindArguments) rejects them too.

    The helpers answer ``required argument "customer" not found``, ``argument "customer" is not a string`` and Go's
    ``json: cannot unmarshal string into Go struct field .limit of type int``: each is a rejected argument
    (``invalid_input``, a note, no re-list), never "not found".
    """
    async with client("mcpgo", transport, telemetry, timeout=10, retry=None) as tc:
        await tc.list_tools()
        listed = relists(telemetry)
        missing = await tc.call_tool("list_orders", {"limit": 5})
        wrong = await tc.call_tool("list_orders", {"customer": 4242, "limit": 5})
        decoded = await tc.call_tool("list_orders", {"customer": "c-1", "limit": "twenty"})
        ok = await tc.call_tool("list_orders", {"customer": "c-1", "limit": 3})
        assert relists(telemetry) == listed
    for result in (missing, wrong, decoded):
        assert result.failure_class is FailureClass.INVALID_INPUT, result.text
        assert result.text.startswith("list_orders was rejected: invalid arguments — ")
    assert "`customer` is required" in missing.text
    assert "`customer` must be a string" in wrong.text and "4242" not in wrong.text
    assert "`limit` must be an integer" in decoded.text and "twenty" not in decoded.text
    assert (ok.outcome, ok.text) == (Outcome.OK, "3 orders of c-1")


@pytest.mark.parametrize(("sdk", "transport"), [("gosdk", "stdio"), ("gosdk", "http"), ("gosdk@v1.2.0", "stdio")])
async def test_an_oversized_error_answer(sdk: str, transport: str, telemetry: Any) -> None:
    """A tool's Go error of 2 MiB (an upstream's HTML table, the key at its end) becomes a short note of its class in
    bounded time (the argument parser reads at most MAX_PARSED characters): no key, nothing past the model text's
    bound in the text or in telemetry; the session goes on."""
    async with client(sdk, transport, telemetry, timeout=30, retry=None) as tc:
        dumped = await tc.call_tool("dump", {})
        after = await tc.call_tool("add", {"a": 1, "b": 1})
    assert dumped.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and dumped.retryable, dumped.text[:300]
    assert len(dumped.text) <= 300 and FAKE_SECRET not in dumped.text  # (cells of the table may remain: a fragment
    # of markup is no page errscope reduces to its headline)
    recorded = telemetry_text(telemetry)
    assert FAKE_SECRET not in recorded and len(recorded) < 200_000
    assert (after.outcome, after.text) == (Outcome.OK, "2")
