"""The upstream server dies mid-call: every call in flight is answered, the proxy stays up, the next call works."""

from __future__ import annotations

import contextlib
import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult

from tests.proxy.conftest import PLAIN, free_port, proxy_command, serving, telemetry_text, wait_port

pytestmark = pytest.mark.anyio


async def slow_calls_while_killed(client: Client, kill: Any, started: Path, count: int = 3) -> list[CallToolResult]:
    """Start ``count`` slow calls, kill the server once all are running in it, return their answers."""
    answers: list[CallToolResult] = []

    async def call() -> None:
        answers.append(await client.call_tool("slow", {"seconds": 60}))

    with anyio.fail_after(40):
        async with anyio.create_task_group() as group:
            for _ in range(count):
                group.start_soon(call)
            while not started.exists() or len(started.read_text().splitlines()) < count:
                await anyio.sleep(0.05)
            kill()
    return answers


def assert_unavailable(answers: list[CallToolResult], count: int) -> None:
    assert len(answers) == count
    for answer in answers:
        assert answer.is_error is True
        meta = answer.meta or {}
        assert meta["io.errscope/failure_class"] == "upstream_unavailable"
        assert meta["io.errscope/side_effect_possible"] is True
        assert "The action may have happened: check whether it took effect before calling again." in answer.content[0].text


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_stdio_server_killed_mid_call_is_restarted(tmp_path: Path, era: str) -> None:
    """Three calls in flight get upstream_unavailable (may have happened); the next call runs on a new server
    (on the handshake era the host's ``initialize`` is replayed to it)."""
    command = proxy_command(tmp_path, "--", *PLAIN, "stdio")
    started = tmp_path / "started"
    environment = {**os.environ, "PLAIN_SERVER_STARTED": str(started)}
    async with Client(StdioServerParameters(command=command[0], args=command[1:], env=environment), mode=era) as client:  # type: ignore[arg-type]
        first = int((await client.call_tool("pid", {})).content[0].text)
        answers = await slow_calls_while_killed(client, lambda: os.kill(first, signal.SIGKILL), started)
        assert_unavailable(answers, 3)
        second = int((await client.call_tool("pid", {})).content[0].text)
        assert second != first
        assert (await client.call_tool("echo", {"text": "again"})).content[0].text == "again"
    spans = (tmp_path / "traces.jsonl").read_text()
    assert spans.count('"errscope.side_effect_possible"') == 3


async def test_http_server_killed_mid_call(tmp_path: Path) -> None:
    """Over streamable HTTP (stateless era): in-flight calls answered, the proxy serves the server once it is back."""
    upstream, listen = free_port(), free_port()
    url = f"http://127.0.0.1:{upstream}/mcp"
    with serving(proxy_command(tmp_path, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen):
        async with Client(f"http://127.0.0.1:{listen}/mcp", mode="2026-07-28") as client:
            started = tmp_path / "started"
            with serving([*PLAIN, "http", str(upstream)], upstream, env={"PLAIN_SERVER_STARTED": str(started)}) as server:
                assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
                answers = await slow_calls_while_killed(client, server.kill, started)
            assert_unavailable(answers, 3)
            with pytest.raises(MCPError) as down:  # nothing listens: the call provably did not happen
                await client.call_tool("echo", {"text": "hi"})
            assert down.value.code == CONNECTION_CLOSED
            assert down.value.data["io.errscope/side_effect_possible"] is False
            assert down.value.data["io.errscope/failure_class"] == "upstream_unavailable"
            with serving([*PLAIN, "http", str(upstream)], upstream):
                assert (await client.call_tool("echo", {"text": "back"})).content[0].text == "back"


async def test_calls_in_flight_when_the_http_relay_stops_are_recorded(tmp_path: Path) -> None:
    """``errscope proxy --listen`` stopped (SIGTERM) while a call runs in the server: its span is exported, cancelled
    (the relay keeps no list of its exchanges: the span was never ended, and lost)."""
    upstream, listen = free_port(), free_port()
    started = tmp_path / "started"
    with serving([*PLAIN, "http", str(upstream)], upstream, env={"PLAIN_SERVER_STARTED": str(started)}):
        proxy = subprocess.Popen(proxy_command(tmp_path, "--upstream", f"http://127.0.0.1:{upstream}/mcp", "--listen",
                                               f"127.0.0.1:{listen}"), stdin=subprocess.DEVNULL)
        try:
            wait_port(listen, proxy)

            async def call() -> None:
                with contextlib.suppress(Exception):  # the relay goes away under the call and the client
                    async with Client(f"http://127.0.0.1:{listen}/mcp", mode="2026-07-28") as client:
                        await client.call_tool("slow", {"seconds": 60})

            with anyio.fail_after(40):
                async with anyio.create_task_group() as group:
                    group.start_soon(call)
                    while not started.exists():
                        await anyio.sleep(0.05)
                    proxy.terminate()
                    await anyio.to_thread.run_sync(proxy.wait, 30)
                    group.cancel_scope.cancel()
        finally:
            proxy.kill()
    (span,) = [s for s in _spans(tmp_path) if s["name"] == "tools/call slow"]
    attributes = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
    assert attributes["errscope.outcome"] == "cancelled"


def _spans(out: Path) -> list[dict[str, Any]]:
    return [span for line in (out / "traces.jsonl").read_text().splitlines()
            for resource in json.loads(line)["resourceSpans"] for scope in resource["scopeSpans"]
            for span in scope["spans"]]


async def test_stdio_host_http_server_down_and_killed(tmp_path: Path) -> None:
    """``errscope proxy --upstream URL`` behind a stdio host: a server that is not listening, then one killed mid-call,
    is answered per call (not sent: -32000, side effect false; in flight: may have taken effect) and the proxy stays
    up for the server's return. The SDK's HTTP client raised the refused connection out of its task group: the proxy
    died with a traceback and the host lost every call."""
    upstream = free_port()
    command = proxy_command(tmp_path, "--upstream", f"http://127.0.0.1:{upstream}/mcp")
    started = tmp_path / "started"
    with serving([*PLAIN, "http", str(upstream)], upstream, env={"PLAIN_SERVER_STARTED": str(started)}) as server:
        async with Client(StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))) as client:  # type: ignore[arg-type]
            assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
            assert_unavailable(await slow_calls_while_killed(client, server.kill, started, count=2), 2)
            with pytest.raises(MCPError) as down:  # nothing listens: the call provably did not happen
                await client.call_tool("echo", {"text": "hi"})
            assert down.value.code == CONNECTION_CLOSED
            assert down.value.data["io.errscope/side_effect_possible"] is False
            assert down.value.data["io.errscope/failure_class"] == "upstream_unavailable"
            assert "was not sent" in down.value.message
            with serving([*PLAIN, "http", str(upstream)], upstream):
                # The restarted server forgot the session: refused, not run; a new one is opened (J178).
                with pytest.raises(MCPError, match="no longer knows the session"):
                    await client.call_tool("echo", {"text": "back"})
                assert (await client.call_tool("echo", {"text": "back"})).content[0].text == "back"


def test_unreachable_upstream_is_said_once_without_its_credentials(tmp_path: Path) -> None:
    """A wrong ``--upstream`` (nothing listens): the stdio host's ``initialize`` and call are answered as not sent, the
    host's log (the proxy's stderr) says what to check, and the URL's password and API key stay out of it."""
    url = f"http://admin:hunter2pass@127.0.0.1:{free_port()}/mcp?api_key=sk-live-0123456789abcdef"
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}},
    ]
    host = subprocess.Popen(proxy_command(tmp_path, "--upstream", url), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert host.stdin is not None and host.stdout is not None
    host.stdin.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in frames))
    host.stdin.flush()
    answers = [json.loads(host.stdout.readline()) for _ in frames]  # both answered before stdin closes
    host.stdin.close()
    stderr = host.stderr.read().decode() if host.stderr else ""
    assert host.wait(30) == 0, stderr
    assert answers[0]["error"]["code"] == CONNECTION_CLOSED and "not sent" in answers[0]["error"]["message"]
    assert answers[1]["error"]["data"]["io.errscope/side_effect_possible"] is False
    assert stderr.count("cannot reach the MCP server at http://") == 1, stderr
    assert "check --upstream" in stderr
    assert "hunter2pass" not in stderr and "0123456789abcdef" not in stderr
    assert "hunter2pass" not in telemetry_text(tmp_path) and "0123456789abcdef" not in telemetry_text(tmp_path)


def test_http_relay_says_an_unreachable_upstream_once_until_it_answers(tmp_path: Path) -> None:
    """``errscope proxy --listen`` with nothing on ``--upstream``: every POST is answered as not sent, and the host's log
    (the proxy's stderr) says so once, with the OS's reason, until the server has answered again; it said one line per
    POST (a host retrying every second filled its log) and gave no reason."""
    upstream, listen = free_port(), free_port()
    url = f"http://127.0.0.1:{listen}/mcp"
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"accept": "application/json, text/event-stream"}
    proxy = subprocess.Popen(proxy_command(tmp_path, "--upstream", f"http://127.0.0.1:{upstream}/mcp", "--listen",
                                           f"127.0.0.1:{listen}"), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_port(listen, proxy)
        with httpx.Client(timeout=30) as http:
            down = [http.post(url, json=initialize, headers=headers).json() for _ in range(3)]
            with serving([*PLAIN, "http", str(upstream)], upstream):
                assert http.post(url, json=initialize, headers=headers).status_code == 200
            down.append(http.post(url, json=initialize, headers=headers).json())
    finally:
        proxy.terminate()
        stderr = proxy.communicate(timeout=30)[1].decode()
    assert [answer["error"]["code"] for answer in down] == [CONNECTION_CLOSED] * 4
    assert all("not sent" in answer["error"]["message"] for answer in down)
    assert stderr.count("cannot reach the MCP server at http://") == 2, stderr  # 3 refused, answered, refused again
    assert "(ConnectionRefusedError: " in stderr and "check --upstream" in stderr


def test_http_relay_says_an_upstream_at_a_wrong_path_once(tmp_path: Path) -> None:
    """``errscope proxy --listen`` in front of a server at a path that is not its MCP endpoint: the host gets the
    upstream's 404, and the proxy's log says once (a host retries ``initialize``) which URL refused it and what to
    check, until an ``initialize`` is answered; it said nothing, where the stdio proxy named the status and the check."""
    upstream, listen = free_port(), free_port()
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"accept": "application/json, text/event-stream"}
    proxy = subprocess.Popen(proxy_command(tmp_path, "--upstream", f"http://127.0.0.1:{upstream}/not-mcp", "--listen",
                                           f"127.0.0.1:{listen}"), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_port(listen, proxy)
        with serving([*PLAIN, "http", str(upstream)], upstream), httpx.Client(timeout=30) as http:
            refused = [http.post(f"http://127.0.0.1:{listen}/not-mcp", json=initialize, headers=headers).status_code
                       for _ in range(3)]
            assert http.post(f"http://127.0.0.1:{listen}/mcp", json=initialize, headers=headers).status_code == 200
            again = http.post(f"http://127.0.0.1:{listen}/not-mcp?k=1", json=initialize, headers=headers)
            refused.append(again.status_code)
    finally:
        proxy.terminate()
        stderr = proxy.communicate(timeout=30)[1].decode()
    assert refused == [404] * 4
    line = (f"errscope proxy: the MCP server at http://127.0.0.1:{upstream}/not-mcp answered initialize with HTTP 404"
            " Not Found; check that --upstream is the server's MCP endpoint, path included (streamable HTTP servers"
            " commonly serve /mcp), and that the host calls the proxy at that same path")
    assert stderr.splitlines().count(line) == 2, stderr  # 3 refused, one answered, refused again


def _one_call_answered(command: list[str]) -> tuple[subprocess.Popen[bytes], list[dict[str, Any]]]:
    """Start the stdio proxy ``command`` and have it answer ``initialize`` and one ``echo`` call; stdin stays open."""
    host = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert host.stdin is not None and host.stdout is not None
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}},
    ]
    host.stdin.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in frames))
    host.stdin.flush()
    return host, [json.loads(host.stdout.readline()) for _ in range(2)]


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 0)])
def test_a_stopped_proxy_exits_as_it_was_stopped_and_keeps_its_telemetry(tmp_path: Path, sent: signal.Signals,
                                                                          status: int) -> None:
    """Ctrl-C is the user's interrupt: ``errscope proxy: interrupted`` and 130, as the demo says it (it exited 0, as if
    the relay had ended); SIGTERM is how hosts stop a stdio server, right after closing its stdin (MCP, Transports >
    stdio: shutdown): 0. Either way the call already answered is exported (a SIGTERM landing while the relay stopped
    on the EOF cut the stop short and lost it, about one run in two)."""
    host, answers = _one_call_answered(proxy_command(tmp_path, "--", *PLAIN, "stdio"))
    if sent == signal.SIGTERM:
        host.stdin.close()
    host.send_signal(sent)
    stderr = host.stderr.read().decode() if host.stderr else ""
    host.wait(30)
    assert answers[1]["result"]["content"][0]["text"] == "x"
    assert host.returncode == status, stderr
    assert ("errscope proxy: interrupted" in stderr) is (sent == signal.SIGINT)
    assert '"tools/call echo"' in telemetry_text(tmp_path)


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)])
def test_a_second_stop_signal_in_the_childs_grace_period_leaves_no_child_running(tmp_path: Path, sent: signal.Signals,
                                                                                  status: int) -> None:
    """A host that closes stdin and signals twice (an impatient SIGTERM, a second Ctrl-C) while a child is slow to
    exit on EOF cuts the grace period short: the child is killed then, never left running after the proxy (MCP,
    Transports > stdio: shutdown ends in SIGKILL), and the answered call's telemetry is still written."""
    pid_file = tmp_path / "child.pid"
    slow_to_exit = ["sh", "-c", 'echo $$ > "$0"; "$@"; exec sleep 30', str(pid_file), *PLAIN, "stdio"]
    host, answers = _one_call_answered(proxy_command(tmp_path, "--", *slow_to_exit))
    child = int(pid_file.read_text())
    try:
        host.stdin.close()
        host.send_signal(sent)
        time.sleep(0.5)  # the relay is in the child's grace period (2 s) now
        host.send_signal(sent)
        stderr = host.stderr.read().decode() if host.stderr else ""
        host.wait(30)
        time.sleep(0.2)
        state = Path(f"/proc/{child}/stat").read_text().split()[2] if Path(f"/proc/{child}").exists() else "gone"
        assert state in ("Z", "gone"), f"child {child} still running ({state}) after the proxy exited"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
    assert answers[1]["result"]["content"][0]["text"] == "x"
    assert host.returncode == status, stderr
    assert '"tools/call echo"' in telemetry_text(tmp_path)


@pytest.mark.parametrize("runner", ["asyncio", "uvloop"])
def test_write_to_a_server_whose_stdin_closed_is_a_lost_server_not_a_crash(runner: str) -> None:
    """A stdio server that exits at once closes its stdin before the proxy's first write: ``send`` answers False
    (the call is answered upstream_unavailable) on uvloop too, whose closed transport raises RuntimeError."""
    import asyncio
    import sys

    from errscope.proxy._stdio import ChildServer

    run = asyncio.run if runner == "asyncio" else pytest.importorskip("uvloop").run

    async def send_after_close() -> bool:
        child = ChildServer([sys.executable, "-c", "import time; time.sleep(10)"])
        assert await child._spawn()
        assert child.process is not None and child.process.stdin is not None
        child.process.stdin.close()
        try:
            return await child.send({"jsonrpc": "2.0", "id": 1, "method": "ping"}, None)
        finally:
            await child.stop()

    assert run(send_after_close()) is False


def test_upstream_at_a_wrong_path_is_said_with_what_to_check(tmp_path: Path) -> None:
    """``--upstream`` names the right server but not its MCP endpoint (HTTP 404 to ``initialize``): the stdio host's
    ``initialize`` is answered as an error, and the host's log (the proxy's stderr) names the status and says to check
    the endpoint's path; it said nothing while the host was told "its own log (stderr) says why"."""
    port = free_port()
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    with serving([*PLAIN, "http", str(port)], port):
        host = subprocess.Popen(proxy_command(tmp_path, "--upstream", f"http://127.0.0.1:{port}/not-mcp"),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert host.stdin is not None and host.stdout is not None
        host.stdin.write(json.dumps(initialize).encode() + b"\n")
        host.stdin.flush()
        answer = json.loads(host.stdout.readline())
        host.stdin.close()
        stderr = host.stderr.read().decode() if host.stderr else ""
        assert host.wait(30) == 0, stderr
    assert "error" in answer, answer
    line = f"the MCP server at http://127.0.0.1:{port}/not-mcp refused initialize with HTTP 404 Not Found"
    assert stderr.count(line) == 1, stderr
    assert "check that --upstream is the server's MCP endpoint, path included" in stderr


@pytest.mark.parametrize(("status", "says"), [
    (404, "check that --upstream is the server's MCP endpoint, path included"),
    (405, "check that --upstream is the server's MCP endpoint, path included"),
    (308, "a redirect is not followed"),
    (401, "run errscope proxy with --listen behind an HTTP host"),
    (403, "run errscope proxy with --listen behind an HTTP host"),
    (421, "DNS-rebinding protection"),
    (500, "check the server's own log"),
])
def test_a_refused_initialize_says_what_to_check(status: int, says: str) -> None:
    """Each HTTP refusal of the host's ``initialize`` names the check that fits it (a path, credentials, the Host)."""
    from errscope.proxy._stdio import _refused_initialize_hint

    assert says in _refused_initialize_hint(status)
