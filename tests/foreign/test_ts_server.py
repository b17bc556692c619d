"""ToolClient against a real TypeScript SDK server whose tools fail every way, on stdio and streamable HTTP.

The server is ``tests/npm/servers/ts_failing_server.mjs`` on the v2 (``@modelcontextprotocol/server``) and v1
(``@modelcontextprotocol/sdk``) SDKs, run by Node 22. Each failure must get its class and an honest note, and
the fake secret a tool puts into its error must reach neither the model text nor any span, metric or log.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from errscope import FailureClass, Outcome
from errscope.client import ToolCallResult, ToolClient
from errscope.testing import CapturedTelemetry
from tests.foreign.peers import FAKE_SECRET, ts_server_http, ts_server_stdio

pytestmark = [pytest.mark.anyio, pytest.mark.stack]

COMBOS = [(sdk, transport) for sdk in ("v2", "v1") for transport in ("stdio", "http")]


@asynccontextmanager
async def client(sdk: str, transport: str, telemetry: CapturedTelemetry, **options: Any) -> AsyncIterator[ToolClient]:
    if transport == "stdio":
        async with ToolClient(ts_server_stdio(sdk), **options, **telemetry.providers) as tc:
            yield tc
    else:
        with ts_server_http(sdk) as url:
            async with ToolClient(url, **options, **telemetry.providers) as tc:
                yield tc


def telemetry_text(telemetry: CapturedTelemetry) -> str:
    """Everything the client recorded, as one string: span names, attributes, events, statuses, logs, metrics."""
    parts: list[str] = []
    for span in telemetry.spans():
        parts += [span.name, json.dumps(dict(span.attributes or {}), default=str), str(span.status.description)]
        parts += [json.dumps(dict(e.attributes or {}), default=str) for e in span.events]
    parts += [record.getMessage() + json.dumps(record.__dict__, default=str) for record in telemetry.log_records]
    parts += [json.dumps(dict(p.attributes or {}), default=str)
              for p in telemetry.histogram_points("mcp.client.operation.duration")]
    return "\n".join(parts)


@pytest.fixture
def telemetry() -> Any:
    with CapturedTelemetry.installed() as captured:
        yield captured


@pytest.mark.parametrize(("sdk", "transport"), COMBOS)
async def test_each_failure_gets_its_class_and_an_honest_note(sdk: str, transport: str, telemetry: Any) -> None:
    """Bad arguments, unknown tool, isError results, thrown errors and protocol errors, through one session."""
    async with client(sdk, transport, telemetry, timeout=10, retry=None) as tc:
        results: dict[str, ToolCallResult] = {
            "bad_type": await tc.call_tool("add", {"a": "seven", "b": 2}),
            "bad_many": await tc.call_tool("create_label", {"order_id": "x-17", "weight_kg": -1, "service": "airmail"}),
            "unknown": await tc.call_tool("add_numbers", {"a": 1, "b": 2}),
            "not_found": await tc.call_tool("find_order", {"order_id": "ORD-4242"}),
            "thrown": await tc.call_tool("charge_card", {"amount": 12}),
            "protocol": await tc.call_tool("protocol_error", {"code": -32603}),
            "rate_limited": await tc.call_tool("search", {"query": "refunds"}),
            "ok": await tc.call_tool("add", {"a": 2, "b": 3}),
        }
    bad_type, bad_many = results["bad_type"], results["bad_many"]
    assert bad_type.failure_class is FailureClass.INVALID_INPUT
    assert bad_type.text.startswith("add was rejected: invalid arguments — `a` must be a number.")
    assert "seven" not in bad_type.text and "does not exist" not in bad_type.text
    assert bad_many.failure_class is FailureClass.INVALID_INPUT
    for sentence in ("`order_id` must be a string matching /^ORD-\\d{4}$/", "`weight_kg` must be greater than 0",
                     "`service` must be one of ground, express"):
        assert sentence in bad_many.text
    assert "x-17" not in bad_many.text and "airmail" not in bad_many.text

    unknown = results["unknown"]
    assert unknown.failure_class is FailureClass.NOT_FOUND
    assert unknown.text.startswith("Tool `add_numbers` does not exist. Available: add, create_label, ship, find_order")

    assert results["not_found"].failure_class is FailureClass.NOT_FOUND
    assert "ORD-4242" in results["not_found"].text  # the tool's own words about the order, not a tool lookup

    thrown = results["thrown"]
    assert thrown.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and thrown.retryable
    assert "payments API refused the connection" in thrown.text

    # A protocol error thrown inside a tool arrives as an isError result; -32603 says nothing more than "failed".
    assert results["protocol"].failure_class is FailureClass.UNKNOWN

    limited = results["rate_limited"]
    assert (limited.failure_class, limited.retry_after) == (FailureClass.RATE_LIMITED, 2.0)

    assert (results["ok"].outcome, results["ok"].text) == (Outcome.OK, "5")
    for name, result in results.items():
        assert FAKE_SECRET not in result.text, name
        assert len(result.text) <= 300, name
    assert FAKE_SECRET not in telemetry_text(telemetry)
    classes = [dict(s.attributes or {}).get("errscope.failure_class") for s in telemetry.spans("tools/call add")]
    assert classes == ["invalid_input", None]


@pytest.mark.parametrize(("sdk", "transport"), COMBOS)
async def test_progress_keeps_a_slow_tool_alive_and_silence_times_out(sdk: str, transport: str, telemetry: Any) -> None:
    """Progress every 0.2 s keeps a 1 s call within a 0.5 s idle timeout; one silent 1 s step does not."""
    async with client(sdk, transport, telemetry, timeout=0.5, retry=None, late_response_grace=0.1) as tc:
        chatty = await tc.call_tool("slow_report", {"steps": 5, "delay_ms": 200})
        silent = await tc.call_tool("slow_report", {"steps": 1, "delay_ms": 1000})
    assert (chatty.outcome, chatty.text) == (Outcome.OK, "report done after 5 steps")
    assert silent.outcome is Outcome.TIMEOUT
    assert "may already have been done" in silent.text


@pytest.mark.parametrize(("sdk", "transport"), COMBOS)
async def test_a_runtime_text_that_may_hide_a_side_effect_says_so(sdk: str, transport: str, telemetry: Any) -> None:
    """The tool's real ``fetch`` to a payments API fails in Node's own words: a timeout ("The operation was aborted
    due to timeout"), a hang-up after the request was read (undici's bare "fetch failed", or with its cause "other
    side closed") may have applied the refund, and the model is told to check; a refused connect applied nothing."""
    async with client(sdk, transport, telemetry, timeout=10, retry=None) as tc:
        maybe = [
            await tc.call_tool("refund_via_api", {"api": "stall"}),
            await tc.call_tool("refund_via_api", {"api": "hang_up"}),
            await tc.call_tool("refund_via_api", {"api": "hang_up", "with_cause": True}),
        ]
        refused = await tc.call_tool("refund_via_api", {"api": "refused", "with_cause": True})
    for result in maybe:
        assert (result.failure_class, result.side_effect_possible) == (FailureClass.UPSTREAM_UNAVAILABLE, True)
        assert "It may have taken effect; check before calling again." in result.text, result.text
    assert (refused.failure_class, refused.side_effect_possible) == (FailureClass.UPSTREAM_UNAVAILABLE, None)
    assert "ECONNREFUSED" in refused.text and "may have taken effect" not in refused.text
    spans = telemetry.spans("tools/call refund_via_api")
    assert [dict(s.attributes or {}).get("errscope.side_effect_possible") for s in spans] == [True, True, True, None]
