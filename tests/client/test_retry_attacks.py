"""Attacks on exactly once (issue #11): a failure that comes *after* the tool acted never makes errscope run it
again, through ``ToolClient`` directly and through ``errscope proxy`` (stdio and ``--listen``), and the model is told
the call may already have been done.

The server is a real, uninstrumented ``MCPServer`` (``servers/counting.py``) that appends one line to a file of its
own per invocation: every count here is that file's. Between the client and the server, a TCP gateway on 127.0.0.1
forwards the marked request whole (so the tool runs) and then spoils its answer the way gateways and networks do: a
bare 5xx of its own (with and without ``Retry-After``), a connection closed or reset after the request was written,
half an answer. The same tool declared safe to repeat (``idempotentHint``) is sent again.

Further down, failures the server gives itself after acting (a JSON-RPC -32001 or -32603, a stall past the client's
timeout, the host's cancel, a process that dies mid-call, progress that kept a call alive until the hard ceiling), over
stdio and streamable HTTP, directly and through ``errscope proxy`` (a stdio child, stdio or ``--listen`` to HTTP); and
concurrent calls carrying one key on a tool that runs its side effect through ``errscope.Idempotency``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest
from mcp.client.stdio import StdioServerParameters

from errscope import Outcome
from errscope.client import RetryPolicy, ToolClient
from tests.client.conftest import SERVERS, free_port, wait_port
from tests.client.test_transport_faults import _GONE, Relay

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

FAST = RetryPolicy(backoff_initial=0.05, backoff_max=0.1, jitter=0.02)
MARK = "spoilt-"
"""Calls whose ``id`` argument starts with this are the gateway's to spoil."""


def http_answer(status: str, *headers: str, body: bytes = b"") -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers, f"Content-Length: {len(body)}", "Connection: close", "", ""]
    return "\r\n".join(lines).encode() + body


class SpoilingGateway(Relay):
    """Forwards every request; for one carrying the marker it takes the next armed fault:

    - ``bytes``: the request goes through (the tool runs), the server's answer is dropped and these bytes (a raw HTTP
      answer) are sent instead;
    - ``"close"`` / ``"reset"``: the request goes through, then the connection is closed (FIN) or reset (RST) with no
      answer;
    - ``"half"``: the request goes through, the answer's head and part of its body are passed, then the connection
      closes.
    """

    def __init__(self, upstream_port: int, tg: anyio.abc.TaskGroup, counter: Path) -> None:
        super().__init__(upstream_port, tg)
        self.counter = counter
        self.faults: list[bytes | str] = []

    def count(self, call_id: str) -> int:
        if not self.counter.exists():
            return 0
        return sum(1 for line in self.counter.read_text().splitlines() if json.loads(line)["id"] == call_id)

    def runs(self) -> int:
        return len(self.counter.read_text().splitlines()) if self.counter.exists() else 0

    async def _relay(self, client: anyio.abc.SocketStream) -> None:
        self._connections.add(client)
        spoil: list[bytes | str] = []
        try:
            async with client, await anyio.connect_tcp("127.0.0.1", self.upstream_port) as server:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._down_spoiling, server, client, spoil, tg.cancel_scope)
                    with contextlib.suppress(*_GONE):
                        async for chunk in client:
                            if MARK.encode() in chunk and self.faults and not spoil:
                                ran = self.runs() + 1
                                spoil.append(self.faults.pop(0))
                                await server.send(chunk)
                                with anyio.fail_after(10):  # the tool has run (an SSE answer's head comes first)
                                    while self.runs() < ran:
                                        await anyio.sleep(0.01)
                                spoil.append("ran")
                                continue
                            await server.send(chunk)
                    if not spoil:
                        tg.cancel_scope.cancel()
        except _GONE:
            pass
        finally:
            self._connections.discard(client)

    @staticmethod
    async def _down_spoiling(
        server: anyio.abc.SocketStream, client: anyio.abc.SocketStream, spoil: list[bytes | str], scope: anyio.CancelScope
    ) -> None:
        with contextlib.suppress(*_GONE):
            async for chunk in server:
                if not spoil:
                    await client.send(chunk)
                    continue
                while len(spoil) < 2:  # the answer is spoilt once the tool has run
                    await anyio.sleep(0.01)
                fault = spoil[0]
                if fault == "half":
                    head, end, body = chunk.partition(b"\r\n\r\n")
                    await client.send(head + end + body[: max(1, len(body) // 2)])
                elif isinstance(fault, bytes):
                    await client.send(fault)
                elif fault == "reset":
                    sock = client.extra(anyio.abc.SocketAttribute.raw_socket)
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                break
        scope.cancel()


@pytest.fixture
async def gateway(tmp_path: Path, http_server: Any) -> Any:
    counter = tmp_path / "invocations.jsonl"
    url = http_server("counting.py", "mcp", str(counter))
    async with anyio.create_task_group() as tg:
        gate = SpoilingGateway(int(url.rsplit(":", 1)[1].split("/")[0]), tg, counter)
        await gate.listen()
        yield gate, f"http://127.0.0.1:{gate.port}/mcp"
        tg.cancel_scope.cancel()


def proxy_argv(out: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "errscope.cli", "proxy", "--out", str(out), *args]


def proxy_stdio(out: Path, *args: str) -> StdioServerParameters:
    """The proxy as a stdio server; the SDK starts it with a minimal environment, so the import path is passed on."""
    argv = proxy_argv(out, *args)
    return StdioServerParameters(command=argv[0], args=argv[1:], env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")})


@contextlib.contextmanager
def listening_proxy(out: Path, upstream: str) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(proxy_argv(out, "--upstream", upstream, "--listen", f"127.0.0.1:{port}"),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port, timeout=30)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


@contextlib.contextmanager
def through(path: str, url: str, out: Path) -> Iterator[Any]:
    """The target a ToolClient is given for ``path``: the gateway itself, or ``errscope proxy`` in front of it."""
    if path == "direct":
        yield url
    elif path == "proxy-stdio":
        yield proxy_stdio(out, "--upstream", url)
    else:
        with listening_proxy(out, url) as listen:
            yield listen


PATHS = ["direct", "proxy-stdio", "proxy-listen"]
SPOILERS: dict[str, bytes | str] = {
    "500": http_answer("500 Internal Server Error"),
    "502": http_answer("502 Bad Gateway"),
    "503": http_answer("503 Service Unavailable"),
    "503-retry-after": http_answer("503 Service Unavailable", "Retry-After: 1"),
    "503-envoy-reset": http_answer(
        "503 Service Unavailable", "Content-Type: text/plain",
        body=b"upstream connect error or disconnect/reset before headers. reset reason: connection termination"),
    "504": http_answer("504 Gateway Timeout"),
    "close": "close",
    "reset": "reset",
    "half": "half",
}


@pytest.mark.parametrize("path", PATHS)
async def test_a_spoilt_answer_after_the_tool_ran_is_never_sent_again(gateway: Any, path: str, tmp_path: Path) -> None:
    """Each spoiler, on a tool that declares nothing: one run, one attempt, and the model reads that it may have run."""
    gate, url = gateway
    seen: dict[str, tuple[Any, ...]] = {}
    with through(path, url, tmp_path / "out") as target:
        async with ToolClient(target, timeout=10, retry=FAST) as tc:
            assert (await tc.call_tool("send", {"id": "warm-up"})).ok
            for name, fault in SPOILERS.items():
                gate.faults = [fault]
                result = await tc.call_tool("send", {"id": MARK + name})
                seen[name] = (result.outcome, result.attempts, gate.count(MARK + name), result.side_effect_possible,
                              result.text)
                assert (await tc.call_tool("send", {"id": "between-" + name})).ok  # the breaker counts a run of failures
    wrong = {name: s for name, s in seen.items() if s[:4] != (Outcome.ERROR, 1, 1, True)
             or "check" not in s[4] or "may" not in s[4]}
    assert not wrong, wrong


@pytest.mark.parametrize("path", PATHS)
async def test_a_spoilt_answer_of_a_tool_declared_safe_is_sent_again(gateway: Any, path: str, tmp_path: Path) -> None:
    """idempotentHint on a server that does not deduplicate: its promise allows the repeat, one run per attempt."""
    gate, url = gateway
    seen: dict[str, tuple[Any, ...]] = {}
    with through(path, url, tmp_path / "out") as target:
        async with ToolClient(target, timeout=10, retry=FAST) as tc:
            for name, fault in SPOILERS.items():
                gate.faults = [fault]
                result = await tc.call_tool("send_hinted", {"id": MARK + name})
                seen[name] = (result.outcome, result.attempts, gate.count(MARK + name))
    wrong = {name: s for name, s in seen.items() if s != (Outcome.OK, 2, 2)}
    assert not wrong, wrong


# -- failures the server itself gives after acting, over stdio and HTTP, direct and through the proxy -----------------


def counting_target(kind: str, counter: Path, out: Path, http_server: Any) -> Any:
    """``ToolClient``'s target for ``kind``: ``counting.py`` over stdio or HTTP, directly or behind ``errscope proxy``
    (stdio to a child; stdio or ``--listen`` to HTTP)."""
    server = [sys.executable, str(SERVERS / "counting.py")]
    if kind == "stdio":
        return StdioServerParameters(command=server[0], args=[*server[1:], "stdio", "mcp", str(counter)])
    if kind == "proxy-child":
        return proxy_stdio(out, "--", *server, "stdio", "mcp", str(counter))
    url = http_server("counting.py", "mcp", str(counter))
    if kind == "http":
        return url
    return through("proxy-stdio" if kind == "proxy-http" else "proxy-listen", url, out)


KINDS = ["stdio", "http", "proxy-child", "proxy-http", "proxy-listen"]


def count(counter: Path, call_id: str) -> int:
    if not counter.exists():
        return 0
    return sum(1 for line in counter.read_text().splitlines() if json.loads(line)["id"] == call_id)


@contextlib.contextmanager
def entered(target: Any) -> Iterator[Any]:
    if isinstance(target, contextlib.AbstractContextManager):
        with target as inner:
            yield inner
    else:
        yield target


@pytest.mark.parametrize("kind", KINDS)
async def test_server_failures_after_acting_run_once(kind: str, tmp_path: Path, http_server: Any) -> None:
    """The tool acted, then: a JSON-RPC -32001 or -32603 of the server's, a stall past the client's timeout (the
    answer comes later), the host's own cancel (the answer comes anyway). One run each, nothing re-sent, and what
    reaches the model says it may have been done."""
    counter = tmp_path / "invocations.jsonl"
    seen: dict[str, tuple[Any, ...]] = {}
    with entered(counting_target(kind, counter, tmp_path / "out", http_server)) as target:
        async with ToolClient(target, timeout=10, retry=FAST, late_response_grace=0) as tc:
            for name, fail in (("-32001", "protocol:-32001:Request timed out"),
                               ("-32603", "protocol:-32603:mail relay answered 503")):
                result = await tc.call_tool("send", {"id": name, "fail": fail})
                seen[name] = (result.outcome, result.attempts, count(counter, name))
            stalled = await tc.call_tool("send", {"id": "stall", "fail": "sleep:2"}, timeout=1)
            seen["stall"] = (stalled.outcome, stalled.attempts, count(counter, "stall"), stalled.side_effect_possible)
            assert "may" in stalled.text and "check" in stalled.text, stalled.text
            with anyio.move_on_after(0.8):
                await tc.call_tool("send", {"id": "cancelled", "fail": "sleep:1.2"})
            await anyio.sleep(1.5)  # the cancelled call's answer arrives, and the stalled one's
            after = await tc.call_tool("send", {"id": "after"})
            seen["after"] = (after.outcome, after.attempts, after.text)
    seen["stall-later"] = (count(counter, "stall"), count(counter, "cancelled"))
    assert seen == {
        "-32001": (Outcome.ERROR, 1, 1),
        "-32603": (Outcome.ERROR, 1, 1),
        "stall": (Outcome.TIMEOUT, 1, 1, True),
        "after": (Outcome.OK, 1, "done 1"),
        "stall-later": (1, 1),
    }


@pytest.mark.parametrize("kind", ["stdio", "proxy-child"])
async def test_a_server_that_dies_mid_call_runs_it_once(kind: str, tmp_path: Path, http_server: Any) -> None:
    """The stdio server acts, then exits; the next call starts a new one (ToolClient reconnects, the proxy restarts
    its child). The dead call is not re-sent unless declared safe to repeat."""
    counter = tmp_path / "invocations.jsonl"
    with entered(counting_target(kind, counter, tmp_path / "out", http_server)) as target:
        async with ToolClient(target, timeout=15, retry=FAST) as tc:
            died = await tc.call_tool("send", {"id": "died", "fail": "exit"})
            hinted = await tc.call_tool("send_hinted", {"id": "died-hinted", "fail": "exit", "fail_times": 1})
            after = await tc.call_tool("send", {"id": "after"})
    assert (died.outcome, died.attempts, died.side_effect_possible, count(counter, "died")) == (Outcome.ERROR, 1, True, 1)
    assert "may" in died.text and "check" in died.text, died.text
    assert (hinted.outcome, hinted.attempts, count(counter, "died-hinted")) == (Outcome.OK, 2, 2), hinted.text
    assert (after.outcome, count(counter, "after")) == (Outcome.OK, 1)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_concurrent_calls_with_one_key_reach_the_upstream_once(transport: str, http_server: Any) -> None:
    """Two logical calls at once with the caller's same key, on a tool running its side effect through
    ``errscope.Idempotency``, while the upstream is slow: the second waits for the first run and gets its answer; the
    upstream (which counts every request it received) is reached once."""
    from tests.client.test_exactly_once import MailUpstream
    from tests.client.servers.app import serve

    mail = MailUpstream(faults=["stall:0.8"])
    async with serve(mail.app()) as url:
        if transport == "http":
            target: Any = http_server("side_effects.py", url)
        else:
            target = StdioServerParameters(command=sys.executable, args=[str(SERVERS / "side_effects.py"), "stdio", url])
        async with ToolClient(target, timeout=10, retry=FAST) as tc:
            results: list[Any] = []

            async def call() -> None:
                results.append(await tc.call_tool("send_mail_keyed", {"to": "a@example.test"}, idempotency_key="same"))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                await anyio.sleep(0.2)
                tg.start_soon(call)
    assert [r.text for r in results] == ["m-1", "m-1"] and all(r.ok for r in results), results
    assert (len(mail.received), mail.effects) == (1, 1)


async def test_progress_that_kept_a_call_alive_then_stopped_sends_it_once(foreign: Any) -> None:
    """Progress resets the idle timer for a while, then the hard ceiling ends the call: the tool worked for two
    seconds, so a tool that declares nothing is not sent again, and the model reads that it may have been done."""
    from errscope.client import TimeoutPolicy

    params, log = foreign("slow")
    async with ToolClient(params, retry=FAST) as tc:
        capped = await tc.call_tool("export_report", {"seconds": 30, "progress_every": 0.1},
                                    timeout=TimeoutPolicy(idle=1, ceiling=2))
        await log.wait("end", 1)
    assert (capped.outcome, capped.attempts, capped.side_effect_possible) == (Outcome.TIMEOUT, 1, True)
    assert "may" in capped.text and "check" in capped.text, capped.text
    assert len(log.received("tools/call")) == 1
