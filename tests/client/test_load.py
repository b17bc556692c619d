"""Load/fault test: 500 concurrent calls, 10% of upstream calls stall past the timeout, every call
retried once with its key. Bounded in count (100 calibration + 1,000 logical calls) and time
(pytest-timeout 150 s; about 20 s on an idle 2-core machine). The server and its upstream run in
their own process on 127.0.0.1 and export their spans to a file, so client and server each get a
core.

The timeout is calibrated: 100 concurrent calls without stalls measure this machine's speed, and the
timeout is set well above the time a 500-call wave needs, so that only the stalled 10% time out,
and the stall well above the timeout. On a busy machine the test takes longer, not flakier.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from opentelemetry.trace import SpanKind

from errscope import Outcome
from errscope.client import CircuitBreaker, ToolClient
from tests.client.conftest import SERVERS, free_port, wait_port

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(240)]

CALLS = 500
CALIBRATION = 100


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def load_server(tmp_path: Path) -> Any:
    mcp_port, upstream_port = free_port(), free_port()
    spans = tmp_path / "server-spans.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "load_server.py"), str(mcp_port), str(upstream_port), str(spans), "0", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_port(mcp_port, timeout=30)
        wait_port(upstream_port, timeout=30)
        yield f"http://127.0.0.1:{mcp_port}/mcp", spans
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


async def test_500_concurrent_calls_with_stalls_apply_each_key_once(telemetry: Any, load_server: Any) -> None:
    """Side effects == distinct keys; one client and one server span per attempt; in-flight back to 0."""
    url, spans_file = load_server
    async with ToolClient(url, timeout=60, http_max_connections=1000) as probe:
        started = anyio.current_time()
        async with anyio.create_task_group() as tg:
            for i in range(CALIBRATION):
                tg.start_soon(probe.call_tool, "charge", {"account": "CAL-FAKE", "amount": i})
        wave = (anyio.current_time() - started) * CALLS / CALIBRATION
        timeout = max(8.0, 3.0 * wave)  # generous: a 500-call wave queues more than 5 x 100 calls
        stall = timeout + 5.0
        await probe.call_tool("configure", {"stall_ratio": 0.1, "stall_seconds": stall})
        baseline = json.loads((await probe.call_tool("stats", {})).text)
    async with ToolClient(
        url,
        timeout=timeout,
        breaker=CircuitBreaker(failure_threshold=10_000),
        late_response_grace=0,
        http_max_connections=1000,
        **telemetry.providers,
    ) as tc:
        firsts: list[Any] = [None] * CALLS
        retries: list[Any] = [None] * CALLS

        async def one(i: int) -> None:
            args = {"account": f"ACC-FAKE-{i}", "amount": i}
            firsts[i] = await tc.call_tool("charge", args)
            retries[i] = await tc.call_tool("charge", args, idempotency_key=firsts[i].idempotency_key)

        with anyio.fail_after(3 * timeout + 60):
            async with anyio.create_task_group() as tg:
                for i in range(CALLS):
                    tg.start_soon(one, i)
        with anyio.fail_after(20):
            while True:
                stats = json.loads((await tc.call_tool("stats", {}, timeout=10)).text)
                if stats["in_flight"] == 0:
                    break
                await anyio.sleep(0.1)

    keys = {r.idempotency_key for r in firsts}
    assert len(keys) == CALLS
    assert all(r.idempotency_key == f.idempotency_key for r, f in zip(retries, firsts, strict=True))
    # side effects applied == distinct keys
    assert stats["effects"] - baseline["effects"] == stats["applied"] - baseline["applied"] == CALLS
    assert stats["in_flight"] == 0
    timed_out = {r.idempotency_key for r in firsts + retries if r.outcome is Outcome.TIMEOUT}
    assert 0.04 * CALLS <= len(stats["stalled"]) <= 0.2 * CALLS  # about 10% stalled ...
    assert set(stats["stalled"]) <= timed_out  # ... and the attempt that met the stall timed out honestly
    replays = [(f.text, r.text) for f, r in zip(firsts, retries, strict=True) if f.ok and r.ok]
    assert replays and all(a == b for a, b in replays)  # a keyed retry replays the stored charge

    client = [s for s in telemetry.spans("tools/call charge") if s.kind is SpanKind.CLIENT]
    attempts = sum(r.attempts for r in firsts + retries)
    assert len(client) == attempts
    server = [json.loads(line) for line in spans_file.read_text().splitlines()]
    ours = {f"{c.context.span_id:016x}" for c in client}
    server = [s for s in server if s["name"] == "tools/call charge" and s["kind"] == "SERVER" and s["parent_id"] in ours]
    parents = collections.Counter(s["parent_id"] for s in server)
    assert len(server) == attempts
    assert all(parents[f"{c.context.span_id:016x}"] == 1 for c in client)
