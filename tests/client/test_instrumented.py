"""The client against errscope-instrumented servers (the lead's adapter), over stdio and HTTP subprocesses."""

from __future__ import annotations

from typing import Any

import pytest

from errscope import Channel, FailureClass, Outcome
from errscope._attributes import META_ERROR_REF
from errscope.client import RetryPolicy, ToolClient
from tests.client.conftest import stdio

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture(params=["stdio", "http"])
def target(request: Any, http_server: Any) -> Any:
    if request.param == "stdio":
        return stdio("instrumented_server.py")
    return http_server("instrumented_server.py")


class TestInstrumentedServer:
    """The server's class, ref and shaped text are taken as they are; the client adds nothing twice."""

    async def test_execution_failures_keep_the_servers_ref(self, target: Any) -> None:
        """not_found / upstream_unavailable: class and ref from _meta, one ref in the text, no secret."""
        retry = RetryPolicy(max_attempts=1)
        async with ToolClient(target, timeout=5, retry=retry) as tc:
            missing = await tc.call_tool("get_order", {"order_id": "Z-9"})
            down = await tc.call_tool("refund", {"order_id": "A-1"})
            ok = await tc.call_tool("get_order", {"order_id": "A-1"})
        assert ok.outcome is Outcome.OK and ok.text == "order A-1: 2 items"
        for result, cls in ((missing, FailureClass.NOT_FOUND), (down, FailureClass.UPSTREAM_UNAVAILABLE)):
            assert (result.channel, result.failure_class) == (Channel.EXECUTION, cls)
            assert result.result is not None and result.result.meta is not None
            assert result.error_ref == result.result.meta[META_ERROR_REF]
            assert result.text.count(result.error_ref) == 1 and result.text.endswith(f"Ref {result.error_ref}.")
        assert "order Z-9 does not exist" in missing.text
        assert "FAKE-PG-PASS-123" not in down.text and "svc:" not in down.text

    async def test_rate_limit_is_waited_out_then_reported(self, target: Any) -> None:
        """retry_after 0.2 s from _meta: errscope waits it out up to the attempt budget, then tells the model."""
        retry = RetryPolicy(max_attempts=2, jitter=0.01)
        async with ToolClient(target, timeout=5, retry=retry) as tc:
            result = await tc.call_tool("list_orders", {})
        assert (result.failure_class, result.retry_after, result.attempts) == (FailureClass.RATE_LIMITED, 0.2, 2)

    async def test_unknown_tool_uses_the_servers_ref(self, target: Any) -> None:
        """-32602 "Unknown tool" from our server: its data carries the ref, which the note quotes."""
        async with ToolClient(target, timeout=5) as tc:
            assert tc.tap is not None
            tc.tap.record_frames = True
            result = await tc.call_tool("get_ordr", {"order_id": "A-1"})
            errors = [f for f in tc.tap.frames_in if "error" in f]
        assert result.channel is Channel.PROTOCOL and result.failure_class is FailureClass.NOT_FOUND
        assert result.text.startswith("Tool `get_ordr` does not exist. Available: get_order, list_orders, refund.")
        (frame,) = errors
        assert frame["error"]["code"] == -32602
        assert result.error_ref == frame["error"]["data"][META_ERROR_REF]

    async def test_schema_violation_is_one_note(self, target: Any) -> None:
        """The server's schema-derived note reaches the model once, without the client's advice doubled."""
        async with ToolClient(target, timeout=5) as tc:
            result = await tc.call_tool("get_order", {})
        assert result.failure_class is FailureClass.INVALID_INPUT
        assert result.text.count("Fix the arguments") == 1
