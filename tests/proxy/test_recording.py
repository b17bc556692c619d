"""When the proxy records a call's telemetry: after its answer is written, with the times of the answer, nothing lost.

:data:`errscope.proxy._calls.RECORD_DELAY` keeps the span's end, the duration point and the log off the host's
wait; these tests check that the values are still the answer's and that :meth:`Calls.flush` leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import time

from errscope._telemetry import ServerTelemetry
from errscope.proxy._calls import RECORD_DELAY, Calls, Scope
from errscope.testing import CapturedTelemetry

REQUEST = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}
ANSWER = {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "hi"}]}}


def test_recorded_after_the_delay_with_the_answers_end_time() -> None:
    """In a running loop the span ends RECORD_DELAY later, its end time the moment the answer was read."""
    telemetry = CapturedTelemetry()
    calls = Calls(ServerTelemetry(**telemetry.providers), transport="tcp", upstream_address="127.0.0.1:9000")

    async def call() -> tuple[int, int]:
        scope = Scope()
        calls.from_host(scope, dict(REQUEST))
        answered = time.time_ns()
        calls.from_server(scope, dict(ANSWER))
        read = time.time_ns()
        assert telemetry.spans() == []  # not yet: the host's answer goes first
        await asyncio.sleep(RECORD_DELAY * 10)
        return answered, read

    try:
        answered, read = asyncio.run(call())
        [span] = telemetry.spans()
        assert span.end_time is not None and answered <= span.end_time <= read
        assert span.attributes is not None
        assert span.attributes["errscope.upstream.system"] == "mcp"  # set at the end, not the start
        assert span.attributes["errscope.upstream.address"] == "127.0.0.1:9000"
        assert span.attributes["errscope.outcome"] == "ok"
    finally:
        telemetry.close()


def test_flush_records_what_waits() -> None:
    """Calls answered just before the relay stops are recorded by flush(), in the order they ended."""
    telemetry = CapturedTelemetry()
    calls = Calls(ServerTelemetry(**telemetry.providers), transport="tcp")

    async def calls_then_stop() -> None:
        scope = Scope()
        for request_id in (1, 2, 3):
            calls.from_host(scope, {**REQUEST, "id": request_id})
            calls.from_server(scope, {**ANSWER, "id": request_id})
        calls.flush()  # what serve_http and serve_stdio do in their finally

    try:
        asyncio.run(calls_then_stop())
        assert [span.attributes["jsonrpc.request.id"] for span in telemetry.spans() if span.attributes] == ["1", "2", "3"]
    finally:
        telemetry.close()
