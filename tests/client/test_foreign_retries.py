"""Retries against servers errscope did not write (issue #11 on foreign ground): one logical call never
makes a side effect happen more often than the server promised is harmless, and what never ran is sent
again.

The servers are real and uninstrumented: a plain ``MCPServer`` (mcp SDK) and FastMCP 4 with its
``ErrorHandlingMiddleware`` (``servers/counting.py``), over stdio and streamable HTTP in both protocol
eras, and the TypeScript SDK v2 and v1 (``tests/npm/servers/ts_counting_server.mjs``). Each tool
appends a line to a file of the server's own before failing: the counts below come from that file,
never from errscope. Each expected count follows from what the failure means: a tool not declared
safe to repeat runs once per logical call; a tool declared safe to repeat (by annotation, on a
server that does not deduplicate: its own promise) runs once per attempt.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import Channel, FailureClass, Outcome
from errscope.client import RetryPolicy, ToolClient
from tests.client.conftest import SERVERS, free_port, wait_port
from tests.client.test_transport_faults import _GONE, Relay
from tests.foreign.peers import NPM, node

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

FAST = RetryPolicy(backoff_initial=0.05, backoff_max=0.1, jitter=0.02)
TS_COUNTING = NPM / "servers" / "ts_counting_server.mjs"
MAIL_503 = "mail relay answered 503 Service Unavailable"
GATED = "gated-"
"""Calls whose id starts with this pass the gateway's marker check."""


@dataclass
class Counted:
    """A server under test, and its own count of tool invocations."""

    target: Any
    mode: str
    counter: Path
    python: bool
    stdio: bool

    def count(self, call_id: str) -> int:
        if not self.counter.exists():
            return 0
        return sum(1 for line in self.counter.read_text().splitlines() if json.loads(line)["id"] == call_id)


def counting_stdio(flavour: str, counter: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(SERVERS / "counting.py"), "stdio", flavour, str(counter)])


SERVER_KINDS = ["mcp-stdio", "mcp-http-2025", "mcp-http-2026", "fastmcp-stdio", "fastmcp-http-2026", "ts-v2", "ts-v1"]


@pytest.fixture(params=SERVER_KINDS)
def counted(request: pytest.FixtureRequest, tmp_path: Path, http_server: Any) -> Counted:
    counter = tmp_path / "invocations.jsonl"
    kind: str = request.param
    if kind.startswith("ts-"):
        target = StdioServerParameters(
            command=node(), args=[str(TS_COUNTING), "--sdk", kind[3:]], cwd=str(NPM), env={"COUNTER": str(counter)}
        )
        return Counted(target, "auto", counter, python=False, stdio=True)
    flavour, transport, *era = kind.split("-")
    if transport == "stdio":
        target = counting_stdio(flavour, counter)
        return Counted(target, "auto", counter, python=True, stdio=True)
    url = http_server("counting.py", flavour, str(counter))
    return Counted(url, "legacy" if era == ["2025"] else "auto", counter, python=True, stdio=False)


async def test_each_run_is_one_the_server_promised_harmless(counted: Counted) -> None:
    """Per server: the two rules below, on one server process."""
    await runs_once_when_not_declared(counted)
    await runs_per_attempt_when_declared_safe(counted)


async def runs_once_when_not_declared(counted: Counted) -> None:
    """A tool that declares nothing acted, then failed: JSON-RPC errors in the -32603, -32000 and
    application bands (FastMCP's middleware makes every tool exception one), isError results, a
    timeout, a process that died: one invocation, one attempt, nothing re-sent."""
    failures = [
        ("protocol:-32603:" + MAIL_503, FailureClass.UPSTREAM_UNAVAILABLE),
        ("protocol:-32000:Request timeout", FailureClass.UPSTREAM_UNAVAILABLE),
        ("protocol:-32029:rate limit exceeded, retry after 1s", FailureClass.RATE_LIMITED),
        ("raise:" + MAIL_503, FailureClass.UPSTREAM_UNAVAILABLE),
        ("raise:429 Too Many Requests", FailureClass.RATE_LIMITED),
    ]
    if counted.python:
        failures.append(("timeout:mail relay read timed out", None))
    async with ToolClient(counted.target, timeout=10, retry=FAST, mode=counted.mode) as tc:
        for n, (fail, cls) in enumerate(failures):
            result = await tc.call_tool("send", {"id": f"f{n}", "fail": fail})
            assert (result.outcome, result.attempts, counted.count(f"f{n}")) == (Outcome.ERROR, 1, 1), fail
            if cls is not None:
                assert result.failure_class is cls, fail
            if fail.startswith("protocol") and result.channel is Channel.PROTOCOL:
                assert "refused" not in result.text, fail  # it ran: nobody refused it
        if counted.python:
            slow = await tc.call_tool("send", {"id": "slow", "fail": "sleep:1.5"}, timeout=0.6)
            assert (slow.outcome, slow.attempts, counted.count("slow")) == (Outcome.TIMEOUT, 1, 1)
        if counted.python and counted.stdio:
            died = await tc.call_tool("send", {"id": "died", "fail": "exit"})
            assert (died.attempts, died.side_effect_possible, counted.count("died")) == (1, True, 1)


async def runs_per_attempt_when_declared_safe(counted: Counted) -> None:
    """readOnlyHint, or idempotentHint (destructive or not), on a server that does not deduplicate:
    its promise allows the retry, so it runs once per attempt until it succeeds. destructiveHint
    alone, or idempotentHint false, is not a promise: one run."""
    cases = [
        ("send_hinted", "raise:" + MAIL_503, 3, Outcome.OK),
        ("send_hinted", "protocol:-32603:" + MAIL_503, 3, Outcome.OK),
        ("read_report", "raise:" + MAIL_503, 3, Outcome.OK),
    ]
    if counted.python:
        cases += [
            ("wipe_idempotent", "raise:" + MAIL_503, 3, Outcome.OK),
            ("wipe", "raise:" + MAIL_503, 1, Outcome.ERROR),
            ("send_not_idempotent", "raise:" + MAIL_503, 1, Outcome.ERROR),
        ]
    async with ToolClient(counted.target, timeout=10, retry=FAST, mode=counted.mode) as tc:
        for n, (tool, fail, runs, outcome) in enumerate(cases):
            result = await tc.call_tool(tool, {"id": f"d{n}", "fail": fail, "fail_times": 2})
            assert (result.outcome, result.attempts, counted.count(f"d{n}")) == (outcome, runs, runs), (tool, fail)
        if counted.python:
            late = await tc.call_tool("send_hinted", {"id": "late", "fail": "sleep:1.5", "fail_times": 1}, timeout=0.6)
            assert (late.outcome, late.attempts, counted.count("late")) == (Outcome.OK, 2, 2)
        if counted.python and counted.stdio:
            # The process died mid-call; a new one is started and the promised-safe call sent again.
            died = await tc.call_tool("send_hinted", {"id": "died-hinted", "fail": "exit", "fail_times": 1})
            assert (died.outcome, died.attempts, counted.count("died-hinted")) == (Outcome.OK, 2, 2)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_withdrawn_promise_stops_the_retries(transport: str, tmp_path: Path, http_server: Any) -> None:
    """send_flipping is idempotent when the call starts; its first run declares it no longer is
    (notifications/tools/list_changed) and fails at once: the retry decision waits for the new listing, one run."""
    counter = tmp_path / "invocations.jsonl"
    if transport == "http":
        target: Any = http_server("counting.py", "mcp", str(counter))
    else:
        target = counting_stdio("mcp", counter)
    async with ToolClient(target, timeout=10, retry=FAST, mode="legacy") as tc:
        assert tc.catalog.is_safe_to_repeat("send_flipping", keyed=True)
        result = await tc.call_tool("send_flipping", {"id": "flip"})
        assert not tc.catalog.is_safe_to_repeat("send_flipping", keyed=True)
    runs = [json.loads(line)["id"] for line in counter.read_text().splitlines()]
    assert (result.outcome, result.attempts, runs) == (Outcome.ERROR, 1, ["flip"])


async def test_two_calls_with_the_same_arguments_get_different_keys(tmp_path: Path) -> None:
    """Concurrent logical calls are distinct side effects: distinct keys, two runs; a caller's key is kept."""
    counter = tmp_path / "invocations.jsonl"
    target = counting_stdio("mcp", counter)
    async with ToolClient(target, timeout=10, retry=FAST) as tc:
        results: list[Any] = []
        async with anyio.create_task_group() as tg:
            for _ in range(2):
                tg.start_soon(lambda: _append(results, tc.call_tool("send", {"id": "same"})))
        mine = await tc.call_tool("send", {"id": "mine"}, idempotency_key="caller-key-1")
    assert len({r.idempotency_key for r in results}) == 2 and all(r.ok for r in results)
    assert mine.idempotency_key == "caller-key-1"
    assert [json.loads(line)["id"] for line in counter.read_text().splitlines()].count("same") == 2


async def _append(results: list[Any], call: Any) -> None:
    results.append(await call)


async def test_a_restarted_http_server_gets_the_call_once(tmp_path: Path) -> None:
    """2025-11-25 era: the server restarted and forgot the session, so it answers 404 to the stale
    Mcp-Session-Id (MCP, Transports > Session Management). Nothing ran; errscope opens a new session
    and sends the call again, once, for a tool that declares nothing."""
    counter = tmp_path / "invocations.jsonl"
    port = free_port()
    argv = [sys.executable, str(SERVERS / "counting.py"), "http", str(port), "mcp", str(counter)]
    procs = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        wait_port(port, timeout=30)
        async with ToolClient(f"http://127.0.0.1:{port}/mcp", timeout=10, retry=FAST, mode="legacy") as tc:
            assert (await tc.call_tool("send", {"id": "before"})).ok
            stale = tc.connection.session_id
            procs[0].terminate()
            procs[0].wait(10)
            procs.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_port(port, timeout=30)
            result = await tc.call_tool("send", {"id": "after"})
            assert tc.connection.session_id not in (None, stale)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    assert (result.outcome, result.text, result.attempts) == (Outcome.OK, "done 1", 2)
    assert [json.loads(line)["id"] for line in counter.read_text().splitlines()] == ["before", "after"]


class Gateway(Relay):
    """A TCP relay in front of the server that answers POSTs carrying a marker itself, unforwarded,
    with the raw HTTP responses in ``answers`` (one each, in order), then forwards as usual."""

    def __init__(self, upstream_port: int, tg: anyio.abc.TaskGroup, marker: bytes) -> None:
        super().__init__(upstream_port, tg)
        self.marker = marker
        self.answers: list[bytes] = []
        self.cut_responses = 0
        """Marked requests to forward whose response is then cut after its headers."""

    async def _relay(self, client: anyio.abc.SocketStream) -> None:
        self._connections.add(client)
        cut = anyio.Event()
        try:
            async with client, await anyio.connect_tcp("127.0.0.1", self.upstream_port) as server:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._down_until, server, client, cut, tg.cancel_scope)
                    try:
                        async for chunk in client:
                            if self.marker in chunk and self.answers:
                                await client.send(self.answers.pop(0))
                                break  # the server saw at most the headers: nothing ran
                            if self.marker in chunk and self.cut_responses:
                                self.cut_responses -= 1
                                cut.set()
                            await server.send(chunk)
                    except _GONE:
                        pass
                    tg.cancel_scope.cancel()
        except _GONE:
            pass
        finally:
            self._connections.discard(client)

    @staticmethod
    async def _down_until(
        server: anyio.abc.SocketStream, client: anyio.abc.SocketStream, cut: anyio.Event, scope: anyio.CancelScope
    ) -> None:
        with contextlib.suppress(*_GONE):
            async for chunk in server:
                if cut.is_set():
                    # The marked request's response has started: pass its headers, drop the rest.
                    head, end, _ = chunk.partition(b"\r\n\r\n")
                    await client.send(head + end)
                    break
                await client.send(chunk)
        scope.cancel()


def http_answer(status: str, *headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers, "Content-Length: 0", "Connection: close", "", ""]
    return "\r\n".join(lines).encode()


@pytest.fixture
async def gateway(tmp_path: Path, http_server: Any) -> Any:
    counter = tmp_path / "invocations.jsonl"
    url = http_server("counting.py", "mcp", str(counter))
    async with anyio.create_task_group() as tg:
        gate = Gateway(int(url.rsplit(":", 1)[1].split("/")[0]), tg, marker=GATED.encode())
        await gate.listen()
        yield gate, f"http://127.0.0.1:{gate.port}/mcp", Counted(url, "auto", counter, python=True, stdio=False)
        tg.cancel_scope.cancel()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_http_429_waits_retry_after_and_sends_once(gateway: Any, mode: str) -> None:
    """HTTP 429 to the POST (RFC 6585 §4) is a refusal: nothing ran, so even a tool that declares
    nothing is sent again after Retry-After (delay-seconds or an HTTP-date; RFC 9110 §10.2.3). A
    wait longer than the client waits out goes to the model, and without one backoff applies."""
    gate, url, counted = gateway
    async with ToolClient(url, timeout=10, retry=FAST, mode=mode) as tc:
        http_date = formatdate(usegmt=True, timeval=time.time() + 3)
        for n, retry_after in enumerate(["Retry-After: 1", f"Retry-After: {http_date}", None]):
            gate.answers = [http_answer("429 Too Many Requests", *([retry_after] if retry_after else []))]
            started = anyio.current_time()
            result = await tc.call_tool("send", {"id": f"{GATED}{n}"})
            waited = anyio.current_time() - started
            assert (result.outcome, result.attempts, counted.count(f"{GATED}{n}")) == (Outcome.OK, 2, 1), retry_after
            assert waited >= (0.9 if retry_after else 0.0), retry_after
        gate.answers = [http_answer("429 Too Many Requests", "Retry-After: 100000")]
        result = await tc.call_tool("send", {"id": GATED + "huge"})
    assert (result.outcome, result.attempts, counted.count(GATED + "huge")) == (Outcome.ERROR, 1, 0)
    assert (result.failure_class, result.retry_after) == (FailureClass.RATE_LIMITED, 86_400)
    assert result.side_effect_possible is False
    assert "was not run" in result.text and "Wait about 24 h before calling again." in result.text


async def test_http_5xx_from_a_gateway_is_sent_again_only_when_promised_safe(gateway: Any) -> None:
    """A 5xx with no JSON-RPC body may come after the request was forwarded (a gateway's 502/504, a
    proxy's 503 on an upstream reset): a tool that declares nothing is not sent again, and the model
    is told it may have run; an idempotent one is."""
    gate, url, counted = gateway
    async with ToolClient(url, timeout=10, retry=FAST) as tc:
        for status in ("500 Internal Server Error", "502 Bad Gateway", "503 Service Unavailable", "504 Gateway Timeout"):
            gate.answers = [http_answer(status)]
            plain = await tc.call_tool("send", {"id": GATED + "plain" + status})
            gate.answers = [http_answer(status)]
            hinted = await tc.call_tool("send_hinted", {"id": GATED + "hinted" + status})
            assert (plain.outcome, plain.attempts, plain.side_effect_possible) == (Outcome.ERROR, 1, True), status
            assert "may have run" in plain.text and counted.count(GATED + "plain" + status) == 0, status
            assert (hinted.outcome, hinted.attempts) == (Outcome.OK, 2), status
            assert counted.count(GATED + "hinted" + status) == 1, status


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_response_stream_dropped_mid_call_is_resent_only_when_promised_safe(gateway: Any, mode: str) -> None:
    """The response stream of a running call is cut after its headers (the server has no
    event store, so there is nothing to resume with Last-Event-ID): the tool ran (it finishes on the
    server), so a tool that declares nothing is not sent again; an idempotent one is."""
    gate, url, counted = gateway
    async with ToolClient(url, timeout=10, retry=FAST, mode=mode) as tc:
        gate.cut_responses = 1
        plain = await tc.call_tool("send", {"id": GATED + "plain", "fail": "sleep:0.3"})
        gate.cut_responses = 1
        hinted = await tc.call_tool("send_hinted", {"id": GATED + "hinted", "fail": "sleep:0.3", "fail_times": 1})
    assert (plain.outcome, plain.attempts, plain.side_effect_possible) == (Outcome.ERROR, 1, True)
    assert counted.count(GATED + "plain") == 1
    assert (hinted.outcome, hinted.attempts, counted.count(GATED + "hinted")) == (Outcome.OK, 2, 2)


async def test_a_refused_connect_is_sent_again_once_the_server_is_back(gateway: Any) -> None:
    """Connect refused: the request was never written, so it is sent again after backoff (transport
    layer), and runs once."""
    gate, url, counted = gateway
    retry = RetryPolicy(backoff_initial=0.5, backoff_max=1.0, jitter=0.05)
    async with ToolClient(url, timeout=10, retry=retry) as tc:
        assert (await tc.call_tool("send", {"id": "warm-up"})).ok
        await gate.go_away()

        async def come_back() -> None:
            await anyio.sleep(0.2)
            await gate.listen()

        async with anyio.create_task_group() as tg:
            tg.start_soon(come_back)
            result = await tc.call_tool("send", {"id": "refused"})
    assert (result.outcome, result.attempts, counted.count("refused")) == (Outcome.OK, 2, 1)
