"""The per-server circuit breaker with real connections: only transport failures count."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from errscope import Channel, FailureClass
from errscope._attributes import ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.client import CircuitBreaker, ConnectionState, RetryPolicy, ToolClient
from tests.client.conftest import free_port
from tests.client.helpers import scripted_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def test_refused_connections_open_the_breaker(telemetry: Any) -> None:
    """A refused connect was never sent, so it is sent again (transport layer) until the breaker opens
    at two failures; the held attempt ends the retries, and the next call fails fast."""
    url = f"http://127.0.0.1:{free_port()}/mcp"
    breaker = CircuitBreaker(failure_threshold=2, reset_after=60)
    retry = RetryPolicy(backoff_initial=0.05, backoff_max=0.1, jitter=0.01)
    async with ToolClient(url, connect_timeout=2, breaker=breaker, retry=retry, **telemetry.providers) as tc:
        first = await tc.call_tool("echo", {})
        assert tc.state is ConnectionState.CIRCUIT_OPEN
        second = await tc.call_tool("echo", {})
    # The held third attempt does not hide what the refused ones said.
    assert first.text.startswith(f"Tool server {url} is unavailable; no request was sent. Ref ERR-")
    assert (first.attempts, second.attempts) == (3, 1)
    assert second.text.startswith(
        f"Tool server {url} is unreachable (too many recent failures); no request was sent. Ref ERR-"
    )
    assert second.channel is None and second.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
    assert (first.side_effect_possible, second.side_effect_possible) == (False, False)
    spans = [dict(s.attributes or {}) for s in telemetry.spans("tools/call echo")]
    assert [a["error.type"] for a in spans] == ["connection_error", "connection_error", "circuit_open", "circuit_open"]
    assert [a[ERRSCOPE_SIDE_EFFECT_POSSIBLE] for a in spans] == [False] * 4


async def test_error_results_never_open_the_breaker(tmp_path: Any) -> None:
    """isError results and JSON-RPC errors prove the server answered: the breaker stays closed."""
    params = scripted_server(
        tmp_path,
        [
            {"isError": True, "text": "503 Service Unavailable"},
            {"error": {"code": -32603, "message": "Internal error"}},
        ],
    )
    breaker = CircuitBreaker(failure_threshold=1)
    async with ToolClient(params, timeout=2, breaker=breaker, retry=RetryPolicy(max_attempts=1)) as tc:
        for _ in range(4):
            await tc.call_tool("scripted", {})
        assert tc.state is ConnectionState.CONNECTED


async def test_peer_sent_timeout_code_is_a_protocol_error(tmp_path: Any) -> None:
    """A server that sends -32001 (fastmcp's "Not found") answered: protocol channel, class from its text."""
    params = scripted_server(tmp_path, [{"error": {"code": -32001, "message": "Not found: Unknown order 'A-9'"}}])
    async with ToolClient(params, timeout=2) as tc:
        result = await tc.call_tool("scripted", {})
        assert tc.state is ConnectionState.CONNECTED
    assert (result.channel, result.failure_class) == (Channel.PROTOCOL, FailureClass.NOT_FOUND)
    assert result.outcome.value == "error"


async def test_half_open_trial_closes_the_breaker_when_the_server_is_back() -> None:
    """Refused → open; fast failure while open; after reset_after one trial reaches the restarted server."""
    import subprocess
    import sys

    from tests.client.conftest import SERVERS, wait_port

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    breaker = CircuitBreaker(failure_threshold=1, reset_after=1.0)
    async with ToolClient(url, connect_timeout=2, timeout=5, breaker=breaker) as tc:
        down = await tc.call_tool("echo", {"text": "x"})
        fast = await tc.call_tool("echo", {"text": "x"})
        assert tc.state is ConnectionState.CIRCUIT_OPEN
        proc = subprocess.Popen(
            [sys.executable, str(SERVERS / "plain_server.py"), "http", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_port(port)
            await anyio.sleep(1.0)
            back = await tc.call_tool("echo", {"text": "back"})
            assert tc.state is ConnectionState.CONNECTED
        finally:
            proc.terminate()
            proc.wait(5)
    assert "is unavailable" in down.text and "is unreachable" in fast.text
    assert back.text == "back"
