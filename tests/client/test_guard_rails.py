"""Guard rails against what a peer controls (issues #11 and #16): -32042 elicitation reaches the host,
huge results are cut for the model only, absurd retry_after values are clamped, a too-short timeout
warns once, vanished tools re-list with backoff, and a breaker opening mid-flight keeps each call's
own honest outcome."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp_types import URL_ELICITATION_REQUIRED

from errscope import Channel, FailureClass, Outcome
from errscope._attributes import ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.client import CircuitBreaker, RetryPolicy, TimeoutPolicy, ToolClient
from tests.client.conftest import SERVERS
from tests.client.helpers import scripted_server
from tests.client.test_exactly_once import MailUpstream
from tests.client.servers.app import serve

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


ELICITATION = {
    "mode": "url",
    "elicitationId": "el-FAKE-1",
    "url": "https://auth.example.test/connect?state=FAKE",
    "message": "Authorize access to your calendar",
}


async def test_url_elicitation_reaches_the_host_intact(tmp_path: Any) -> None:
    """-32042: the host gets the error and the typed elicitations; the model is told what the user must do."""
    data = {"elicitations": [ELICITATION]}
    params = scripted_server(tmp_path, [{"error": {"code": URL_ELICITATION_REQUIRED, "message": "URL elicitation required", "data": data}}])
    async with ToolClient(params, timeout=5) as tc:
        result = await tc.call_tool("scripted", {})
    assert result.error is not None and (result.error.code, result.error.data) == (URL_ELICITATION_REQUIRED, data)
    (elicitation,) = result.elicitations
    assert (elicitation.url, elicitation.elicitation_id) == (ELICITATION["url"], "el-FAKE-1")
    assert (result.channel, result.failure_class, result.attempts) == (Channel.PROTOCOL, FailureClass.PERMISSION_DENIED, 1)
    assert result.text.startswith(
        "scripted needs the user to complete a step in their browser first (Authorize access to your calendar). "
        "Ask the user to open the link the app shows them and finish there, then call again. Ref ERR-"
    )
    assert "auth.example.test" not in result.text


async def test_other_protocol_errors_keep_their_data_for_the_host(tmp_path: Any) -> None:
    """Any JSON-RPC error's data is handed over as received (the model text stays scrubbed)."""
    data = {"detail": "quota", "limit": 5}
    params = scripted_server(tmp_path, [{"error": {"code": -32000, "message": "server overloaded", "data": data}}])
    async with ToolClient(params, timeout=5, retry=None) as tc:
        result = await tc.call_tool("scripted", {})
    assert result.error is not None and result.error.data == data and result.channel is Channel.PROTOCOL


async def test_huge_result_is_cut_for_the_model_only(tmp_path: Any) -> None:
    """A 2 MB answer: the model gets max_model_text characters and a note; the host keeps the whole result."""
    big = "x" * 2_000_000
    params = scripted_server(tmp_path, [{"text": big}])
    async with ToolClient(params, timeout=10, max_model_text=1000) as tc:
        result = await tc.call_tool("scripted", {})
    assert result.ok and result.text_truncated
    assert result.text == "x" * 1000 + "\n[errscope: output cut to 1000 of 2000000 characters.]"
    assert result.result is not None and result.result.content[0].text == big  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("given", "clamped", "wording"),
    [(1e300, 86_400.0, "Wait about 24 h before calling again."), (300, 300.0, "Wait about 5 min before calling again.")],
)
async def test_retry_after_is_clamped_and_worded(tmp_path: Any, given: float, clamped: float, wording: str) -> None:
    """A peer's retry_after of 1e300 becomes one day, said in hours; never "1e+300 s"."""
    meta = {"io.errscope/failure_class": "rate_limited", "io.errscope/retry_after": given}
    params = scripted_server(tmp_path, [{"isError": True, "text": "slow down", "meta": meta}])
    async with ToolClient(params, timeout=5) as tc:
        result = await tc.call_tool("scripted", {})
    assert (result.retry_after, result.attempts) == (clamped, 1)
    assert wording in result.text and "e+" not in result.text


async def test_short_timeout_warns_once_per_client(tmp_path: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A 0.001 s timeout is used as given but logged, once per client."""
    params = scripted_server(tmp_path, [{"text": "ok"}])
    with caplog.at_level(logging.WARNING, logger="errscope.client"):
        async with ToolClient(params, timeout=0.001) as tc:
            await tc.call_tool("scripted", {}, timeout=0.5)
            await tc.call_tool("scripted", {}, timeout=0.002)
    warnings = [r for r in caplog.records if "is below 1 s" in r.getMessage()]
    assert len(warnings) == 1 and "idle timeout 0.001 s" in warnings[0].getMessage()


@pytest.mark.parametrize(("idle", "ceiling"), [(0, None), (-1, None), (float("nan"), None), (5, 0)])
async def test_a_timeout_that_is_no_positive_number_is_refused(tmp_path: Any, idle: float, ceiling: float | None) -> None:
    """A timer of zero or less would abandon every call before it is sent: the host's mistake, raised where it is
    made (the policy, the client or the call), not a warning and a stream of timed-out calls."""
    with pytest.raises(ValueError, match="must be a positive number of seconds"):
        TimeoutPolicy(idle=idle, ceiling=ceiling)
    params = scripted_server(tmp_path, [{"text": "ok"}, {"text": "ok"}])
    if ceiling is None:
        with pytest.raises(ValueError, match="must be a positive number of seconds"):
            ToolClient(params, timeout=idle)
    async with ToolClient(params, timeout=5) as tc:
        if ceiling is None:
            with pytest.raises(ValueError, match="must be a positive number of seconds"):
                await tc.call_tool("scripted", {}, timeout=idle)
        assert (await tc.call_tool("scripted", {})).text == "ok"


async def test_url_that_is_not_the_mcp_endpoint_is_said_once(http_server: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A URL missing the endpoint's path (HTTP 404 to the handshake): the model is told no request was sent, and the
    host's log says, once per client, to check the path; the host's developer only read "unavailable" before."""
    url = http_server("plain_server.py").removesuffix("/mcp")
    with caplog.at_level(logging.WARNING, logger="errscope.client"):
        async with ToolClient(url, timeout=5, retry=RetryPolicy(max_attempts=1)) as tc:
            first = await tc.call_tool("echo", {"text": "x"})
            await tc.call_tool("echo", {"text": "x"})
    assert (first.outcome, first.side_effect_possible) == (Outcome.ERROR, False)
    said = [r.getMessage() for r in caplog.records if "check that the URL is its MCP endpoint" in r.getMessage()]
    assert said == [f"errscope ToolClient for {url}: the server answered the handshake with HTTP 404; check that the URL"
                    " is its MCP endpoint, path included (streamable HTTP servers commonly serve /mcp)"]


async def test_a_command_that_cannot_run_is_said_once_not_blamed_on_its_log(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A stdio command the OS cannot run (not found, not executable) has no log of its own: the model reads that the
    server could not be started, and the host's log gets the OS's reason once; before, both read "exited while
    starting … Its own log (stderr) says why", with nothing on stderr."""
    missing = str(tmp_path / "no-such-server")
    not_executable = tmp_path / "server.txt"
    not_executable.write_text("not a program")
    for command, reason in ((missing, "No such file or directory"), (str(not_executable), "Permission denied")):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="errscope.client"):
            async with ToolClient(StdioServerParameters(command=command), retry=None) as tc:
                first = await tc.call_tool("echo", {})
                await anyio.sleep(1.1)  # past the restart backoff: the second start fails the same way, unsaid
                await tc.call_tool("echo", {})
        name = command.rsplit("/", 1)[1]
        assert (first.outcome, first.side_effect_possible) == (Outcome.ERROR, False)
        assert first.text.startswith(f"Tool server {name} could not be started; no request was sent. Ref ERR-")
        said = [r.getMessage() for r in caplog.records if "cannot start the tool server" in r.getMessage()]
        assert said == [f"errscope ToolClient: cannot start the tool server {command}: {reason}; check the command,"
                        " its PATH and permissions"]


async def test_a_stdio_server_silent_at_the_handshake_is_said_once(caplog: pytest.LogCaptureFixture) -> None:
    """A stdio command that runs but never answers ``initialize`` (an HTTP-only server, a banner and a wait): the call
    waits ``connect_timeout`` once, not once per attempt (it is started again only after a backoff, as one that exits
    at start), the model reads why, and the host's log says once what to check instead of nothing."""
    silent = StdioServerParameters(command=sys.executable, args=["-c", "print('listening on :3000'); import time; time.sleep(60)"])
    with caplog.at_level(logging.WARNING, logger="errscope.client"):
        async with ToolClient(silent, connect_timeout=1.5, retry=RetryPolicy(max_attempts=3, budget=30)) as tc:
            started = time.monotonic()
            result = await tc.call_tool("echo", {})
            waited = time.monotonic() - started
            again = await tc.call_tool("echo", {})  # within the backoff: answered at once, nothing started
    assert (result.outcome, result.side_effect_possible) == (Outcome.ERROR, False)
    assert waited < 2 * 1.5, waited  # three attempts each waiting 1.5 s took 4.5 s and more
    assert result.text.startswith(f"Tool server {sys.executable.rsplit('/', 1)[1]} did not answer its start-up handshake in"
                                  " 1.5 s; no request was sent."), result.text
    assert again.text == result.text.replace(result.error_ref or "", again.error_ref or "")
    said = [r.getMessage() for r in caplog.records if "gave no answer to the handshake" in r.getMessage()]
    assert said == [f"errscope ToolClient: the tool server {sys.executable} gave no answer to the handshake in 1.5 s;"
                    " check that it serves MCP over stdio (nothing but JSON-RPC on stdout; a server that serves only"
                    " streamable HTTP is reached by its URL), or raise connect_timeout for one that starts slowly"]


async def test_vanished_tool_relists_with_backoff(foreign: Any) -> None:
    """Three calls to a tool that is not there cost one tools/list after the first, not three."""
    params, log = foreign("d22")
    async with ToolClient(params, timeout=5) as tc:
        results = [await tc.call_tool("gone_for_good", {}) for _ in range(3)]
    assert all(r.failure_class is FailureClass.NOT_FOUND for r in results)
    assert len(log.received("tools/list")) == 2  # the initial listing + one re-list


async def test_breaker_opening_mid_flight_keeps_each_calls_own_outcome(telemetry: Any) -> None:
    """Four calls stall past the timeout together and open the breaker: each still says "may have happened";
    only the call refused afterwards says the server is unreachable and that nothing was sent. A declared
    tool's automatic retry refused by the open breaker does not replace its honest timeout."""
    mail = MailUpstream(faults=["stall:2"] * 5)
    async with serve(mail.app()) as url:
        params = StdioServerParameters(command=sys.executable, args=[str(SERVERS / "side_effects.py"), "stdio", url])
        breaker = CircuitBreaker(failure_threshold=2, reset_after=60)
        retry = RetryPolicy(backoff_initial=0.05, backoff_max=0.1, jitter=0.01)
        async with ToolClient(params, timeout=1, breaker=breaker, retry=retry, late_response_grace=0, **telemetry.providers) as tc:
            inflight: list[Any] = []
            async with anyio.create_task_group() as tg:
                for i in range(4):
                    tg.start_soon(lambda i=i: _append(inflight, tc.call_tool("send_mail", {"to": f"{i}@example.test"})))
            refused = await tc.call_tool("send_mail", {"to": "late@example.test"})
        assert [r.outcome for r in inflight] == [Outcome.TIMEOUT] * 4
        assert all(r.side_effect_possible and "may already have been done" in r.text for r in inflight)
        assert refused.text.startswith(
            f"Tool server {tc.target.display} is unreachable (too many recent failures); no request was sent. Ref ERR-"
        )
        assert (refused.outcome, refused.side_effect_possible, refused.request_ids) == (Outcome.ERROR, False, ())
        assert len(mail.received) == 4  # the refused call never reached the upstream
    spans = [dict(s.attributes or {}) for s in telemetry.spans("tools/call send_mail")]
    assert sorted(a[ERRSCOPE_SIDE_EFFECT_POSSIBLE] for a in spans) == [False, True, True, True, True]


async def test_refused_retry_keeps_the_sent_attempts_outcome(telemetry: Any) -> None:
    """A declared tool times out, opening a threshold-1 breaker: its retry is refused, its answer stays the timeout."""
    mail = MailUpstream(faults=["stall:2"])
    async with serve(mail.app()) as url:
        params = StdioServerParameters(command=sys.executable, args=[str(SERVERS / "side_effects.py"), "stdio", url])
        breaker = CircuitBreaker(failure_threshold=1, reset_after=60)
        retry = RetryPolicy(backoff_initial=0.05, backoff_max=0.1, jitter=0.01)
        async with ToolClient(params, timeout=1, breaker=breaker, retry=retry, late_response_grace=0, **telemetry.providers) as tc:
            result = await tc.call_tool("send_mail_keyed", {"to": "k@example.test"})
    assert (result.outcome, result.side_effect_possible, result.attempts) == (Outcome.TIMEOUT, True, 2)
    assert "may already have been done" in result.text and len(mail.received) == 1
    spans = sorted(telemetry.spans("tools/call send_mail_keyed"), key=lambda s: s.start_time or 0)
    assert [dict(s.attributes or {}).get("error.type") for s in spans] == ["timeout", "circuit_open"]


async def _append(results: list[Any], awaitable: Any) -> None:
    results.append(await awaitable)
