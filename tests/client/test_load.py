"""Load/fault test: 500 concurrent calls, 10% of upstream calls stall past the timeout, on stdio and
streamable HTTP, with a tool declared safe to repeat (``charge``: errscope ``Idempotency``, so a
timed-out attempt is retried with its key and every call is also retried by the "model" with the
same key) and with one that is not (``charge_plain``: no key reaches the upstream, nothing may be
sent twice). Bounded in count (100 calibration + 500 or 1,000 logical calls per case) and time
(pytest-timeout 240 s per case). The server and its upstream run in their own process on 127.0.0.1
and export their spans to a file, so client and server each get a core.

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
from mcp.client.stdio import StdioServerParameters
from opentelemetry.trace import SpanKind

from errscope import Outcome
from errscope.client import CircuitBreaker, ToolClient, key_hash
from tests.client.conftest import SERVERS, free_port, wait_port

# one case at a time under pytest-xdist: client and server each get a core, as the calibration assumes
pytestmark = [pytest.mark.anyio, pytest.mark.timeout(240), pytest.mark.xdist_group("client-load")]

CALLS = 500
CALIBRATION = 100


@pytest.fixture(params=["http", "stdio"])
def load_server(tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    """(ToolClient target, server spans file); on stdio the client spawns the server itself."""
    upstream_port = free_port()
    spans = tmp_path / "server-spans.jsonl"
    script = str(SERVERS / "load_server.py")
    if request.param == "stdio":
        yield StdioServerParameters(command=sys.executable, args=[script, "stdio", str(upstream_port), str(spans), "0", "0"]), spans
        return
    mcp_port = free_port()
    proc = subprocess.Popen(
        [sys.executable, script, str(mcp_port), str(upstream_port), str(spans), "0", "0"],
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


async def _server_spans(spans_file: Path, tool: str, parents: set[str], *, expected: int) -> list[dict[str, Any]]:
    """The server's spans of ``tool`` under our client spans, once ``expected`` of them are written (or
    after 20 s): a cancelled tool body leaves ``in_flight`` a moment before its span ends."""
    with anyio.move_on_after(20):
        while True:
            lines = [json.loads(line) for line in spans_file.read_text().splitlines()]
            server = [s for s in lines if s["name"] == f"tools/call {tool}" and s["kind"] == "SERVER" and s["parent_id"] in parents]
            if len(server) >= expected:
                break
            await anyio.sleep(0.2)
    return server


async def _stats(tc: ToolClient) -> dict[str, Any]:
    return dict(json.loads((await tc.call_tool("stats", {}, timeout=10)).text))


@pytest.mark.parametrize("tool", ["charge", "charge_plain"])
async def test_500_concurrent_calls_with_stalls(telemetry: Any, load_server: Any, tool: str) -> None:
    """Declared tool: side effects == distinct keys. Undeclared tool: side effects == upstream requests ==
    logical calls, each sent once. Both: one client and one server span per attempt; in-flight back to 0."""
    target, spans_file = load_server
    async with ToolClient(
        target,
        timeout=60,
        breaker=CircuitBreaker(failure_threshold=10_000),
        late_response_grace=0,
        http_max_connections=1000,
        **telemetry.providers,
    ) as tc:
        started = anyio.current_time()
        async with anyio.create_task_group() as tg:
            for i in range(CALIBRATION):
                tg.start_soon(tc.call_tool, tool, {"account": "CAL-FAKE", "amount": i})
        wave = (anyio.current_time() - started) * CALLS / CALIBRATION
        timeout = max(8.0, 3.0 * wave)  # generous: a 500-call wave queues more than 5 x 100 calls
        stall = timeout + 5.0
        await tc.call_tool("configure", {"stall_ratio": 0.1, "stall_seconds": stall})
        baseline = await _stats(tc)
        calibration_spans = len(telemetry.spans(f"tools/call {tool}"))
        firsts: list[Any] = [None] * CALLS
        retries: list[Any] = [None] * CALLS

        async def one(i: int) -> None:
            args = {"account": f"ACC-FAKE-{i}", "amount": i}
            firsts[i] = await tc.call_tool(tool, args, timeout=timeout)
            if tool == "charge":  # the model's retry of a call that may have happened
                retries[i] = await tc.call_tool(tool, args, idempotency_key=firsts[i].idempotency_key, timeout=timeout)

        with anyio.fail_after(6 * timeout + 60):
            async with anyio.create_task_group() as tg:
                for i in range(CALLS):
                    tg.start_soon(one, i)
        with anyio.fail_after(stall + 20):
            while (stats := await _stats(tc))["in_flight"] != 0:
                await anyio.sleep(0.1)
        results = [r for r in firsts + retries if r is not None]
        attempts = sum(r.attempts for r in results)
        client = [s for s in telemetry.spans(f"tools/call {tool}") if s.kind is SpanKind.CLIENT][calibration_spans:]
        # An attempt whose HTTP request failed in transport (a keep-alive connection the server closed
        # as it was reused, under load) may never have reached the server; every other one did, once.
        lost = {f"{c.context.span_id:016x}" for c in client if dict(c.attributes or {}).get("error.type") == "connection_error"}
        ours = {f"{c.context.span_id:016x}" for c in client}
        # read while the server lives: closing the client ends a stdio server, and a busy machine may not
        # have written the spans of the tool bodies cancelled last
        server = await _server_spans(spans_file, tool, ours, expected=attempts - len(lost))

    effects = stats["effects"] - baseline["effects"]
    requests = stats["requests"] - baseline["requests"]
    stalled = stats["stalled"]
    assert 0.04 * CALLS <= len(stalled) <= 0.2 * CALLS  # about 10% stalled
    assert len(client) == attempts
    if tool == "charge":
        keys = {r.idempotency_key for r in firsts}
        assert len(keys) == CALLS
        assert all(r.idempotency_key == f.idempotency_key for r, f in zip(retries, firsts, strict=True))
        assert effects == stats["applied"] - baseline["applied"] == CALLS  # side effects == distinct keys
        timed_out = {dict(s.attributes or {}).get("errscope.idempotency.key_hash") for s in client
                     if dict(s.attributes or {}).get("errscope.outcome") == "timeout"}
        assert {key_hash(k) for k in stalled} <= timed_out  # the attempt that met the stall timed out honestly
        replays = [(f.text, r.text) for f, r in zip(firsts, retries, strict=True) if f.ok and r.ok]
        assert replays and all(a == b for a, b in replays)  # a keyed retry replays the stored charge
    else:
        assert all(r.attempts == 1 for r in results)  # nothing was sent twice
        assert effects == requests  # side effects == calls the upstream received
        # every answered call reached the upstream once; a call cancelled before its tool ran never did
        answered = sum(1 for r in results if r.ok)
        assert answered <= requests <= CALLS
        timeouts = [r for r in results if r.outcome is Outcome.TIMEOUT]
        assert len(timeouts) >= len(stalled) and all(r.side_effect_possible for r in timeouts)
    assert len(lost) <= 0.01 * attempts
    parents = collections.Counter(s["parent_id"] for s in server)
    assert attempts - len(lost) <= len(server) <= attempts
    assert all(parents[span_id] == 1 for span_id in ours - lost) and all(parents[span_id] <= 1 for span_id in lost)
