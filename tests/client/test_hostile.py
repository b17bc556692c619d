"""Hostile servers (issue #16): a client never wedges or misleads, and keeps nothing of a lost session.

A stdio and an HTTP server written for these tests (``servers/hostile.py``, raw JSON-RPC) answer
some calls with bytes that are not UTF-8, truncated JSON, HTTP errors, or by dying. After each,
the next good call succeeds, nothing hangs, the model's text says what is known (the answer was
unreadable: the call may have run) and never that the server refused it.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import Channel, FailureClass, Outcome
from errscope.client import ToolClient
from tests.client.conftest import SERVERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

HONEST_UNREADABLE = "could not be read. The call may have run; check before calling again."


def hostile_stdio() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(SERVERS / "hostile.py"), "stdio"])


@pytest.fixture(scope="module")
def hostile_http() -> Iterator[str]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([sys.executable, str(SERVERS / "hostile.py"), "http", str(port)], stdout=subprocess.PIPE)
    assert process.stdout is not None and process.stdout.readline().strip() == b"ready"
    yield f"http://127.0.0.1:{port}/mcp"
    process.kill()
    process.wait()


def _events(telemetry: Any, tool: str) -> list[str]:
    return [event.name for span in telemetry.spans(f"tools/call {tool}") for event in span.events]


async def _released(ref: weakref.ref[Any]) -> None:
    """The object goes once the old connection's task has wound down (bounded: a few seconds)."""
    with anyio.fail_after(5):
        while True:
            gc.collect()
            if ref() is None:
                return
            await anyio.sleep(0.05)


async def _echo_succeeds(tc: ToolClient) -> None:
    with anyio.fail_after(10):
        result = await tc.call_tool("echo", {"text": "still here"})
    assert (result.outcome, result.text) == (Outcome.OK, "still here")
    tap = tc.tap  # and nothing is left pending on the connection that served it
    assert tap is not None and len(tap.outstanding) == 0 and len(tap.other_requests) == 0


class TestStdio:
    async def test_undecodable_bytes_in_an_answer(self, telemetry: Any) -> None:
        """Bytes that are not UTF-8 inside a result: replaced, recorded as a protocol fault; same session serves on."""
        async with ToolClient(hostile_stdio(), timeout=5, mode="legacy", retry=None, **telemetry.providers) as tc:
            tap = tc.tap
            result = await tc.call_tool("bad_utf8_in_text", {})
            assert result.outcome is Outcome.OK and "\ufffd" in result.text
            assert tap is not None and tap.undecodable >= 1
            await _echo_succeeds(tc)
            assert tc.tap is tap  # no reconnect was needed
        assert "undecodable_bytes" in _events(telemetry, "bad_utf8_in_text")

    async def test_undecodable_line_never_wedges(self, telemetry: Any) -> None:
        """A line of undecodable bytes instead of an answer: an honest timeout, then the same session serves on.

        With the SDK's default (strict) decoding the reader dies on that line and every later call times out.
        """
        async with ToolClient(hostile_stdio(), timeout=1, mode="legacy", retry=None, **telemetry.providers) as tc:
            tap = tc.tap
            with anyio.fail_after(10):
                result = await tc.call_tool("bad_utf8_line", {})
            assert result.outcome is Outcome.TIMEOUT and result.side_effect_unknown
            assert "may already have been done" in result.text
            for _ in range(3):
                await _echo_succeeds(tc)
            assert tc.tap is tap and tap is not None and tap.undecodable >= 1 and tap.garbage_frames >= 1
        assert {"undecodable_bytes", "garbage_frame"} <= set(_events(telemetry, "bad_utf8_line"))

    @pytest.mark.parametrize("tool", ["die", "close_stdout"])
    async def test_lost_session_reconnects(self, tool: str, telemetry: Any) -> None:
        """A server that dies or stops its output mid-call: 'may or may not', state honest, next call reconnects."""
        async with ToolClient(hostile_stdio(), timeout=5, mode="legacy", retry=None, **telemetry.providers) as tc:
            old = weakref.ref(tc.tap)
            with anyio.fail_after(15):
                result = await tc.call_tool(tool, {})
            assert (result.outcome, result.channel) == (Outcome.ERROR, None)
            assert "It may or may not have taken effect" in result.text and result.side_effect_unknown
            assert tc.state.value == "disconnected"
            await _echo_succeeds(tc)
            assert tc.state.value == "connected"
            del result
            await _released(old)  # the lost connection's tap (and its tables) went with it


class TestHttp:
    @pytest.mark.parametrize("tool", ["bad_json", "bad_utf8_json", "http_500"])
    async def test_unreadable_answer_is_not_a_refusal(self, tool: str, hostile_http: str, telemetry: Any) -> None:
        """The SDK's stand-in for an answer it could not read is not the server refusing: the call may have run."""
        async with ToolClient(hostile_http, timeout=5, mode="legacy", retry=None, **telemetry.providers) as tc:
            with anyio.fail_after(10):
                result = await tc.call_tool(tool, {"amount": 5})
            assert result.text.startswith(f"The answer to {tool} {HONEST_UNREADABLE}"), result.text
            assert "refused" not in result.text and "Fix the arguments" not in result.text
            assert (result.outcome, result.channel) == (Outcome.ERROR, None) and result.side_effect_unknown
            assert tc.tap is not None and tc.tap.stand_ins == 1
            await _echo_succeeds(tc)
        (span,) = telemetry.spans(f"tools/call {tool}")
        assert "unreadable_answer" in [e.name for e in span.events]
        assert span.attributes["error.type"] == "_OTHER" and "rpc.response.status_code" not in span.attributes

    @pytest.mark.parametrize("tool", ["refused", "refused_at_400"])
    async def test_a_real_refusal_stays_the_servers(self, tool: str, hostile_http: str, telemetry: Any) -> None:
        """A JSON-RPC error the server did send (even at HTTP 400 with id null) is its refusal: protocol channel."""
        async with ToolClient(hostile_http, timeout=5, mode="legacy", retry=None, **telemetry.providers) as tc:
            result = await tc.call_tool(tool, {"amount": "five"})
            assert (result.channel, result.failure_class) == (Channel.PROTOCOL, FailureClass.INVALID_INPUT)
            assert not result.side_effect_unknown
            assert tc.tap is not None and tc.tap.stand_ins == 0
            await _echo_succeeds(tc)
        (span,) = telemetry.spans(f"tools/call {tool}")
        assert span.attributes["rpc.response.status_code"] == "-32602"

    async def test_ended_session_is_lost_and_reopened(self, hostile_http: str, telemetry: Any) -> None:
        """HTTP 404 to the session: the call was not run, the state is honest, the next call opens a new session."""
        async with ToolClient(hostile_http, timeout=5, mode="legacy", retry=None, **telemetry.providers) as tc:
            old = tc.tap
            result = await tc.call_tool("end_session", {})
            assert "had ended the session; end_session was not run" in result.text, result.text
            assert result.side_effect_possible is False and "refused" not in result.text
            assert tc.state.value == "disconnected"
            await _echo_succeeds(tc)
            assert tc.tap is not old and tc.state.value == "connected"
        (span,) = telemetry.spans("tools/call end_session")
        assert "session_ended" in [e.name for e in span.events]


async def test_a_server_that_hangs_up_on_the_era_probe_is_spoken_to_with_initialize(caplog: pytest.LogCaptureFixture) -> None:
    """rmcp 1.8 over stdio exits on an opening ``server/discover`` (``ExpectedInitializeRequest``) where the SDK's
    ``mode="auto"`` expects an error to fall back on: the client restarts it once with the initialize handshake
    and says so in one record."""
    params = StdioServerParameters(command=sys.executable, args=[str(SERVERS / "initialize_first.py")])
    with caplog.at_level("INFO", logger="errscope.client"):
        async with ToolClient(params, timeout=10) as tc:
            first = await tc.call_tool("echo", {"text": "hello"})
            assert tc.protocol_version == "2025-11-25"
    assert (first.outcome, first.text) == (Outcome.OK, "hello")
    assert [r.getMessage() for r in caplog.records if "server/discover" in r.getMessage()] == [
        "errscope client: the server ended the connection on server/discover; trying the initialize handshake"
    ]
