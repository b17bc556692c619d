"""Exactly once by default (issue #11): real MCP servers over stdio and streamable HTTP on 127.0.0.1,
whose tools call a real HTTP upstream that counts what it received and applied.

A tool that declares nothing runs once per logical call whatever fails (503, 429 with and without
``Retry-After``, an upstream read timeout, a client timeout); the same tool declared safe to repeat
(``idempotentHint``, or errscope's ``Idempotency``) is retried with the same key and its side
effect is applied once. Counts come from the upstream, never from errscope.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from errscope import FailureClass, Outcome
from errscope._attributes import ERRSCOPE_SIDE_EFFECT_POSSIBLE
from errscope.client import RetryPolicy, ToolClient
from tests.client.conftest import SERVERS
from tests.client.servers.app import serve

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

FAST = RetryPolicy(backoff_initial=0.2, backoff_max=0.4, jitter=0.05)


@dataclass
class MailUpstream:
    """Answers each POST /mail with the next armed fault, else applies it (deduplicated by key)."""

    faults: list[str] = field(default_factory=list)
    received: list[tuple[float, str | None]] = field(default_factory=list)
    applied: dict[str, str] = field(default_factory=dict)
    effects: int = 0

    async def mail(self, request: Request) -> JSONResponse:
        key = request.headers.get("idempotency-key")
        self.received.append((anyio.current_time(), key))
        fault = self.faults.pop(0) if self.faults else ""
        if fault == "503":
            return JSONResponse({"error": "unavailable"}, status_code=503)
        if fault.startswith("429"):
            headers = {"Retry-After": fault.split(":")[1]} if ":" in fault else {}
            return JSONResponse({"error": "slow down"}, status_code=429, headers=headers)
        if key is not None and key in self.applied:
            return JSONResponse({"message_id": self.applied[key]})
        self.effects += 1
        message_id = f"m-{self.effects}"
        if key is not None:
            self.applied[key] = message_id
        if fault.startswith("stall"):
            await anyio.sleep(float(fault.split(":")[1]))  # applied; the answer comes late
        return JSONResponse({"message_id": message_id})

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/mail", self.mail, methods=["POST"])])


@pytest.fixture
async def upstream() -> Any:
    mail = MailUpstream()
    async with serve(mail.app()) as url:
        yield mail, url


@pytest.fixture(params=["stdio", "http"])
def target(request: pytest.FixtureRequest, upstream: Any, http_server: Any) -> Any:
    _, url = upstream
    if request.param == "http":
        return http_server("side_effects.py", url)
    return StdioServerParameters(command=sys.executable, args=[str(SERVERS / "side_effects.py"), "stdio", url])


class TestNotDeclaredRunsOnce:
    """send_mail declares nothing: every failure reaches the model after one request upstream."""

    async def test_each_failure_is_sent_once(self, target: Any, upstream: Any) -> None:
        """503, 429, 429 with Retry-After, an upstream read timeout: one upstream request per logical call."""
        mail, _ = upstream
        expected = [
            # the upstream answered and refused: the server says nothing happened
            ("503", FailureClass.UPSTREAM_UNAVAILABLE, None, 0, False),
            ("429", FailureClass.RATE_LIMITED, None, 0, False),
            ("429:2", FailureClass.RATE_LIMITED, 2.0, 0, False),
            # applied, then the tool's read timed out: the server says the side effect may have happened
            ("stall:1.5", FailureClass.UPSTREAM_UNAVAILABLE, None, 1, True),
        ]
        async with ToolClient(target, timeout=10, retry=FAST) as tc:
            for fault, cls, retry_after, effects, maybe in expected:
                mail.faults, mail.received, mail.effects = [fault], [], 0
                result = await tc.call_tool("send_mail", {"to": "a@example.test", "read_timeout": 0.4})
                assert (result.attempts, result.failure_class, result.retry_after) == (1, cls, retry_after), fault
                assert result.side_effect_possible is maybe, fault
                assert (len(mail.received), mail.effects) == (1, effects), fault
                assert result.outcome is Outcome.ERROR and "Ref ERR-" in result.text

    async def test_client_timeout_is_sent_once(self, target: Any, upstream: Any, telemetry: Any) -> None:
        """The client gives up at 1 s; the side effect may have happened, and the span says so."""
        mail, _ = upstream
        async with ToolClient(target, timeout=1, retry=FAST, late_response_grace=0, **telemetry.providers) as tc:
            # A first call warms the path (session, the tool's imports and connection): on a loaded machine the
            # timed call's 1 s then goes to the stalled upstream, not to getting there.
            assert (await tc.call_tool("send_mail", {"to": "c@example.test"}, timeout=30)).outcome is Outcome.OK
            mail.faults, mail.received, mail.effects = ["stall:2"], [], 0
            result = await tc.call_tool("send_mail", {"to": "c@example.test"})
            await anyio.sleep(1.2)  # the stalled answer arrives late and is dropped, not re-sent
        assert (len(mail.received), mail.effects) == (1, 1)
        assert (result.outcome, result.attempts, result.side_effect_possible) == (Outcome.TIMEOUT, 1, True)
        assert "may already have been done" in result.text
        (span,) = [s for s in telemetry.spans("tools/call send_mail") if s.kind.name == "CLIENT"][1:]
        assert dict(span.attributes or {})[ERRSCOPE_SIDE_EFFECT_POSSIBLE] is True


@pytest.mark.parametrize("tool", ["send_mail_hinted", "send_mail_keyed"])
async def test_declared_tool_is_retried_with_one_key_and_applied_once(target: Any, upstream: Any, tool: str) -> None:
    """Declared safe to repeat (annotation, or errscope's Idempotency): 503 twice, 429 twice without
    Retry-After (backoff, never a burst), a client timeout: retried with one key, applied once each."""
    mail, _ = upstream
    async with ToolClient(target, timeout=10, retry=FAST, late_response_grace=0) as tc:
        assert tc.catalog.is_safe_to_repeat(tool, keyed=True)
        for faults, attempts, timeout in ((["503", "503"], 3, 10), (["429", "429"], 3, 10), (["stall:1.6"], 2, 1)):
            mail.faults, mail.received, mail.effects = list(faults), [], 0
            result = await tc.call_tool(tool, {"to": "d@example.test"}, timeout=timeout)
            assert (result.outcome, result.attempts, mail.effects) == (Outcome.OK, attempts, 1), faults
            assert result.text == mail.applied[result.idempotency_key or ""]
            assert {key for _, key in mail.received} == {result.idempotency_key}, faults
            times = [t for t, _ in mail.received]
            assert all(later - earlier >= 0.15 for earlier, later in zip(times, times[1:])), faults
