"""Bad input from a server never crashes the host: garbage frames, closing mid-call, wrong ids."""

from __future__ import annotations

from typing import Any

import pytest

from errscope import FailureClass, Outcome
from errscope.client import ToolClient
from tests.client.helpers import scripted_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


class TestGarbage:
    """Frames that are not JSON-RPC are counted and skipped."""

    async def test_garbage_before_a_good_answer(self, foreign: Any, telemetry: Any) -> None:
        """The call still succeeds; the garbage is recorded on the span, not raised."""
        params, _ = foreign("garbage")
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            result = await tc.call_tool("echo", {"text": "fine"})
            assert tc.tap is not None and tc.tap.garbage_frames >= 1
        assert (result.outcome, result.text) == (Outcome.OK, "fine")
        (span,) = telemetry.spans("tools/call echo")
        assert "garbage_frame" in [e.name for e in span.events]

    async def test_garbage_only_is_an_honest_timeout(self, foreign: Any) -> None:
        """A server that answers only garbage reaches the model as a timeout note, not a crash."""
        params, _ = foreign("garbage")
        async with ToolClient(params, timeout=0.4) as tc:
            result = await tc.call_tool("garbage_only", {})
        assert result.outcome is Outcome.TIMEOUT
        assert result.text.startswith("garbage_only did not finish within 0.4 s and was cancelled.")


class TestClosedMidCall:
    """The server process exits while a call is in flight."""

    async def test_lost_session_is_reported_not_raised(self, foreign: Any, telemetry: Any) -> None:
        """The model hears the connection was lost and the effect is unknown; the host reconnects next time."""
        params, log = foreign("close")
        async with ToolClient(params, timeout=2, **telemetry.providers) as tc:
            result = await tc.call_tool("echo", {"text": "x"})
            again = await tc.call_tool("echo", {"text": "y"})
        assert result.outcome is Outcome.ERROR and result.channel is None
        assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert result.side_effect_unknown
        assert result.text.startswith(
            "The connection to the tool server was lost while echo was running. It may or may not have taken "
            "effect; check before calling again. Ref ERR-"
        )
        assert result.attempts == 1  # never re-sent automatically: the effect is unknown
        assert again.failure_class is FailureClass.UPSTREAM_UNAVAILABLE
        assert len(log.received("initialize")) == 2  # a fresh session for the second call
        attrs = dict(telemetry.spans("tools/call echo")[0].attributes or {})
        assert attrs["error.type"] == "connection_error"

    async def test_local_closed_code_is_not_mistaken_for_a_server_error(self, tmp_path: Any) -> None:
        """A server that *sends* -32000 answered: protocol channel, classified from its text, session kept."""
        params = scripted_server(tmp_path, [{"error": {"code": -32000, "message": "Rate limit exceeded for client"}}])
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("scripted", {})
            assert tc.state.value == "connected"
        assert result.channel is not None and result.channel.value == "protocol"
        assert result.failure_class is FailureClass.RATE_LIMITED


class TestWrongId:
    """A response whose id matches no request."""

    async def test_wrong_id_is_recorded_and_the_call_times_out_honestly(self, foreign: Any, telemetry: Any) -> None:
        """The stray answer is counted and put on the span; the model hears the call did not finish."""
        params, _ = foreign("wrong_id")
        async with ToolClient(params, timeout=0.5, **telemetry.providers) as tc:
            result = await tc.call_tool("echo", {"text": "x"})
            assert tc.tap is not None and tc.tap.stray_responses == 1
        assert result.outcome is Outcome.TIMEOUT
        assert "did not finish within 0.5 s" in result.text
        (span,) = telemetry.spans("tools/call echo")
        assert "stray_response" in [e.name for e in span.events]


class TestUnreadableResults:
    """Results that fail the SDK's own validation."""

    async def test_malformed_result_is_an_honest_note(self, tmp_path: Any) -> None:
        """A result the SDK cannot parse becomes class unknown with a plain note."""
        params = scripted_server(tmp_path, [{"text": None}])
        async with ToolClient(params, timeout=2) as tc:
            result = await tc.call_tool("scripted", {})
        assert result.failure_class is FailureClass.UNKNOWN
        assert result.text.startswith("scripted returned a reply the client could not read.")
