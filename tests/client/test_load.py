"""Load/fault test: 500 concurrent calls, 10% of upstream calls stall past the timeout, every call
retried once with its key. Bounded in count (1,000 logical calls) and time (pytest-timeout 120 s;
it runs in well under a minute on 2 cores). All traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import collections
from typing import Any

import anyio
import pytest
from opentelemetry.trace import SpanKind

from errscope import Outcome
from errscope.client import CircuitBreaker, ToolClient
from tests.client.servers.app import ToolServer, Upstream, serve

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

CALLS = 500
TIMEOUT = 10.0
STALL = 15.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_500_concurrent_calls_with_stalls_apply_each_key_once(telemetry: Any) -> None:
    """Side effects == distinct keys; one client and one server span per attempt; in-flight back to 0."""
    upstream = Upstream(stall_ratio=0.10, stall_seconds=STALL, seed=11)
    async with serve(upstream.app()) as upstream_url:
        rig = ToolServer(upstream_url + "/", telemetry.providers)
        async with serve(rig.build().streamable_http_app()) as base:
            async with ToolClient(
                base + "/mcp",
                timeout=TIMEOUT,
                breaker=CircuitBreaker(failure_threshold=10_000),
                late_response_grace=0,
                http_max_connections=1000,
                **telemetry.providers,
            ) as tc:
                firsts: list[Any] = [None] * CALLS
                retries: list[Any] = [None] * CALLS
                limiter = anyio.CapacityLimiter(CALLS)

                async def one(i: int) -> None:
                    async with limiter:
                        args = {"account": f"ACC-FAKE-{i}", "amount": i}
                        firsts[i] = await tc.call_tool("charge", args)
                        retries[i] = await tc.call_tool("charge", args, idempotency_key=firsts[i].idempotency_key)

                async with anyio.create_task_group() as tg:
                    for i in range(CALLS):
                        tg.start_soon(one, i)
                with anyio.fail_after(15):
                    while rig.in_flight:
                        await anyio.sleep(0.05)

    keys = {r.idempotency_key for r in firsts}
    assert len(keys) == CALLS
    assert all(r.idempotency_key == f.idempotency_key for r, f in zip(retries, firsts, strict=True))
    timed_out = [r for r in firsts if r.outcome is Outcome.TIMEOUT]
    assert 10 <= len(timed_out) <= 120, len(timed_out)  # about 10% stalled
    assert upstream.effects == len(upstream.applied) == CALLS  # side effects applied == distinct keys
    assert rig.in_flight == 0
    # Every retry of a call that succeeded first time was a replay with the same charge id.
    for first, retry in zip(firsts, retries, strict=True):
        if first.outcome is Outcome.OK:
            assert retry.text == first.text

    spans = telemetry.spans("tools/call charge")
    client = [s for s in spans if s.kind is SpanKind.CLIENT]
    server = [s for s in spans if s.kind is SpanKind.SERVER]
    attempts = sum(r.attempts for r in firsts + retries)
    assert len(client) == attempts
    parents = collections.Counter(s.parent.span_id for s in server if s.parent is not None)
    assert len(server) == attempts
    assert all(parents[c.context.span_id] == 1 for c in client)
