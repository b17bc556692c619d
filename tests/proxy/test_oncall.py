"""On call behind ``errscope proxy``: from the ref a user quoted to the server's own words, from the proxy's telemetry alone.

The host in front of a proxy is usually not errscope (a desktop app, an IDE), so nothing records what the model was
shown; the server behind it is someone else's, so nothing records why it failed. The proxy's log record is then the
only place the server's answer can be found: scrubbed, whole (not the model's one-line excerpt), and never the
arguments a rejection echoes (arguments are recorded only on opt-in, ``capture_content``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from errscope import FailureClass
from errscope.client import ToolClient
from tests.proxy.conftest import PLAIN, ROOT, free_port, proxy_command, telemetry_text, wait_port
from tests.proxy.plain_server import SECRET

pytestmark = pytest.mark.anyio

REF = re.compile(r"ERR-[0-9A-Z]{8}")
INITIALIZE = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
              '"capabilities":{},"clientInfo":{"name":"host","version":"1"}}}\n')


def explain(ref: str, folder: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "errscope.cli", "explain", ref, "--from", str(folder)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_explain_shows_what_the_server_said_from_the_proxys_telemetry_alone(tmp_path: Path) -> None:
    command = proxy_command(tmp_path, "--", *PLAIN, "stdio")
    refs: dict[str, str] = {}
    shown: dict[str, str] = {}
    async with Client(StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))) as client:
        for tool in ("forbidden", "crash"):
            shown[tool] = (await client.call_tool(tool, {})).content[0].text
            refs[tool] = REF.search(shown[tool]).group(0)
        with pytest.raises(MCPError) as refused:
            await client.call_tool("refused", {})
        refs["refused"] = REF.search(refused.value.message).group(0)
        rejected = await client.call_tool("slow", {"seconds": "four-and-a-half-FAKE-ARGUMENT"})
        refs["rejected"] = REF.search(rejected.content[0].text).group(0)
    # The proxy exits with the host: its exporters have flushed.
    said = {tool: explain(ref, tmp_path) for tool, ref in refs.items()}
    # What the model saw, from the proxy's own record: this host logged nothing.
    for tool, text in shown.items():
        assert f"1. what the model saw\n   {text}\n" in said[tool], said[tool]
        assert "shaped by " in said[tool].split("2. tool span")[0], said[tool]
    # MCPServer's isError text: "Error executing tool forbidden: GitHub API 403 ...", the server's words as they came.
    assert re.search(r"errscope\.upstream\.message=[^\n]*GitHub API 403 Forbidden: token \[REDACTED\] lacks repo:write",
                     said["forbidden"]), said["forbidden"]
    assert "errscope.upstream.message=backend refused: api_key=[REDACTED]" in said["refused"], said["refused"]
    # mcp 2.3's MCPServer masks a crash itself: what it said is all there is, and explain says so.
    assert "errscope.upstream.message=Error executing tool crash" in said["crash"], said["crash"]
    # A rejection of the arguments echoes the host's values: not recorded.
    assert "errscope.upstream.message" not in said["rejected"] and "FAKE-ARGUMENT" not in said["rejected"]
    assert "FAKE-ARGUMENT" not in telemetry_text(tmp_path)
    assert all(SECRET not in text for text in said.values())
    assert SECRET not in telemetry_text(tmp_path)


def test_a_server_command_that_cannot_start_says_why(tmp_path: Path) -> None:
    """The first thing a new user gets wrong is the command after ``--``: the proxy's stderr (the host's log) says
    the OS's reason and what to check, not only an exception class name."""
    requests = "".join(INITIALIZE.replace('"id":1', f'"id":{n}') for n in (1, 2, 3))  # each tries to start it
    done = subprocess.run(proxy_command(tmp_path, "--", str(tmp_path / "no-such-mcp-server")), input=requests,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.count("the request was not sent") == 3, done.stdout  # each answered
    assert done.stderr.count("cannot start the MCP server") == 1, done.stderr  # said once, not per request
    assert "No such file or directory" in done.stderr and "check the command after --" in done.stderr, done.stderr


async def test_a_gateways_503_with_retry_after_keeps_the_wait(tmp_path: Path) -> None:
    """A gateway in front of an HTTP MCP server answers ``tools/call`` with 503, ``Retry-After: 20`` and a plain-text
    body holding a fake token (RFC 9110 §10.2.3: the service expects to be down that long). Behind a stdio host the
    proxy's answer keeps the wait as ``retry_after`` (as it does for a 429) and says the call may have run, as the
    client says of a 5xx whose page does not say the gateway never reached the server (J77: a gateway's 503 may follow
    a forwarded call), so it is not sent again; the proxy's log record, explained from its folder alone, says what the
    gateway answered; the token is nowhere."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server, refusing

    token = "ghp_FAKEgatewayToken0123456789abcdefghij"
    server = issues_server()
    gate = refusing("search_issues", 503, f"upstream connect error; token={token}".encode(),
                    (b"retry-after", b"20"), (b"content-type", b"text/plain"))
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        command = proxy_command(tmp_path, "--upstream", base + "/mcp")
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
        async with ToolClient(params, timeout=5) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
    assert server.ran == []
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result.text
    assert result.retry_after == 20 and result.side_effect_possible is True and result.attempts == 1, result.text
    said = explain(result.error_ref or "", tmp_path)
    assert "errscope.upstream.message=The MCP server answered HTTP 503 Service Unavailable; retry after 20 s" in said, said
    assert "errscope.retry_after=20" in said, said
    assert token not in said and token not in telemetry_text(tmp_path) and token not in result.text


def _proxy_with_silence(tmp_path: Path, seconds: float, *server: str) -> subprocess.Popen[str]:
    """``errscope proxy -- SERVER`` with :data:`~errscope.proxy._stdio.INIT_SILENCE` set to ``seconds`` (10 s as
    shipped), host frames on its stdin."""
    argv = proxy_command(tmp_path, "--", *server)[3:]
    code = (f"import sys, errscope.proxy._stdio as s; s.INIT_SILENCE = {seconds}; from errscope.cli import main; "
            f"sys.exit(main({argv!r}))")
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)



def test_a_server_that_leaves_initialize_unanswered_is_said_in_the_hosts_log(tmp_path: Path) -> None:
    """The second thing a new user gets wrong: a server that serves only streamable HTTP, given after ``--``. It
    starts, listens on its port and never reads stdin; the host waits for ``initialize`` until its own timeout. The
    proxy's stderr (the host's log) says what it waits for and what to check."""
    port = free_port()
    proxy = _proxy_with_silence(tmp_path, 0.5, *PLAIN, "http", str(port))
    try:
        wait_port(port, proxy)  # the HTTP-only server is up: it will never answer on stdout
        assert proxy.stdin is not None
        proxy.stdin.write(INITIALIZE)
        proxy.stdin.flush()
        time.sleep(2)
    finally:
        _, stderr = proxy.communicate(timeout=60)
    assert stderr.count("the MCP server has not answered initialize in 0.5 s") == 1, stderr
    assert "serves MCP over stdio (a server that serves only streamable HTTP is proxied with --upstream URL)" in stderr


# A stdio server that answers initialize at once and then waits: this test times the proxy's timer, not a server's
# start-up (MCPServer's imports take seconds on a loaded machine).
PROMPT_SERVER = ("import json, sys; request = json.loads(sys.stdin.readline()); print(json.dumps({'jsonrpc': '2.0', "
                 "'id': request['id'], 'result': {'protocolVersion': '2025-11-25', 'capabilities': {}, "
                 "'serverInfo': {'name': 'prompt', 'version': '1'}}}), flush=True); sys.stdin.read()")


def test_an_answered_initialize_is_not_said_unanswered(tmp_path: Path) -> None:
    proxy = _proxy_with_silence(tmp_path, 8, sys.executable, "-c", PROMPT_SERVER)
    assert proxy.stdin is not None and proxy.stdout is not None
    proxy.stdin.write("not JSON\n")  # answered by the proxy itself (-32700) once it is up: its start is not timed
    proxy.stdin.flush()
    assert '"code":-32700' in proxy.stdout.readline().replace(" ", "")
    proxy.stdin.write(INITIALIZE)
    proxy.stdin.flush()
    sent = time.monotonic()
    assert '"id":1,"result"' in proxy.stdout.readline().replace(" ", "")
    answered_after = time.monotonic() - sent
    time.sleep(max(0.0, 9 - answered_after))  # past the 8 s from the request: its timer was cancelled by the answer
    _, stderr = proxy.communicate(timeout=60)
    assert answered_after < 8, f"the answer itself took {answered_after:.1f} s"
    assert "has not answered initialize" not in stderr, stderr


async def test_a_server_that_refuses_the_handshake_is_not_said_to_have_exited(tmp_path: Path) -> None:
    """``errscope proxy`` whose ``--upstream`` cannot be reached stays up and answers the host's ``initialize`` with an
    error; ``ToolClient`` in front of it tells the model what that answer said, not that the server exited."""
    command = proxy_command(tmp_path, "--upstream", f"http://127.0.0.1:{free_port()}/mcp")
    async with ToolClient(StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT)), timeout=30) as tc:
        result = await tc.call_tool("search", {})
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and result.side_effect_possible is False
    assert "answered initialize with an error (Connection closed: the MCP server could not be reached" in result.text
    assert "exited" not in result.text, result.text


async def test_a_server_that_exits_while_starting_is_said_to_have_exited(tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-c", "import sys; sys.exit(3)"])
    async with ToolClient(params, timeout=30) as tc:
        result = await tc.call_tool("search", {})
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and result.side_effect_possible is False
    assert f"Tool server {Path(sys.executable).name} exited while starting; no request was sent." in result.text
