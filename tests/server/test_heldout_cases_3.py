"""Server side of tests/heldout_cases.md, third round (J57-J61, J75): what instrumented servers answer to the calls, errors
and bytes hosts and popular servers were seen to produce.

Real servers (low-level Server, MCPServer, FastMCP) with ``errscope.instrument``: in process with the real SDK client
in both protocol eras, or as real stdio subprocesses spoken to in raw JSON-RPC lines (``tests/servers/wire.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import URL_ELICITATION_REQUIRED, CallToolResult, ElicitRequestURLParams

import errscope
from errscope.testing import CapturedTelemetry
from tests.server.test_heldout_cases import everything_recorded, text_of
from tests.servers.catalogue import BUILDERS
from tests.servers.wire import LEGACY, MODERN, REPO, StdioPeer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SURROGATES = range(0xD800, 0xE000)


@pytest.fixture(scope="module", params=[("lowlevel", LEGACY), ("fastmcp", LEGACY), ("mcpserver", MODERN)],
                ids=lambda p: f"{p[0]}-{p[1]}")
def stdio_peer(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    style, era = request.param
    peer = StdioPeer(style, era, env={"ERRSCOPE_OUT": str(tmp_path_factory.mktemp("round3"))})
    yield peer
    peer.close()


def call_frame(peer: StdioPeer, request_id: int, params: dict[str, Any]) -> dict[str, Any]:
    peer.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": peer.params(params)})
    return peer.expect(lambda m: m.get("id") == request_id, timeout=30)  # the first one waits for the server to start


def answer_text(frame: dict[str, Any]) -> str:
    return " ".join(block.get("text", "") for block in frame["result"]["content"])


class TestJ57CallWithoutArguments:
    """J57 (apify/apify-mcp-server #1360 and PR #1370, cline/cline #10553, binaricat/Netcatty PR #3050, mark3labs/mcp-go
    clients omit ``arguments`` for tools that take none): ``CallToolRequest.params.arguments`` is optional (MCP
    schema 2025-11-25), so a call without it is a call with no arguments, not a malformed request."""

    def test_no_argument_tool_runs(self, stdio_peer: StdioPeer) -> None:
        frame = call_frame(stdio_peer, 501, {"name": "list_orders"})
        assert "result" in frame and frame["result"].get("isError") is not True, frame

    def test_missing_required_argument_is_a_tool_error_naming_it(self, stdio_peer: StdioPeer) -> None:
        """The tool needs ``order_id``: an execution error the model can correct (SEP-1303, as D16), naming
        the argument, with a ref; not a protocol error and not a crash."""
        frame = call_frame(stdio_peer, 502, {"name": "get_order"})
        assert "result" in frame and frame["result"]["isError"] is True, frame
        text = answer_text(frame)
        assert "order_id" in text and "ERR-" in text, text
        after = call_frame(stdio_peer, 503, {"name": "get_order", "arguments": {"order_id": "A-1"}})
        assert after["result"].get("isError") is not True, after


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j58_exception_without_a_message(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """J58 (IBM/mcp-context-forge #6592: the anyio/httpx timeout family stringifies to '', so callers read "Tool
    invocation failed: " and could not tell a read timeout from a closed stream; OpenHands/software-agent-sdk
    PR #1862). A tool that raises ``TimeoutError()`` or ``httpx.ReadTimeout('')`` still gives the model a
    sentence: the tool's name, what kind of failure, a ref; no dangling colon; class ``upstream_unavailable``."""
    server = BUILDERS[style]()

    @server.tool()
    async def fetch_report(month: str) -> str:
        """Fetch a month's report from the reports service."""
        raise TimeoutError()

    @server.tool()
    async def fetch_invoice(number: str) -> str:
        """Fetch one invoice from the billing API."""
        raise httpx.ReadTimeout("")

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:
        results = [await client.call_tool("fetch_report", {"month": "2026-01"}),
                   await client.call_tool("fetch_invoice", {"number": "INV-1"})]
    for tool_name, result in zip(("fetch_report", "fetch_invoice"), results, strict=True):
        text = text_of(result)
        assert result.is_error and tool_name in text and "ERR-" in text, text
        assert ": ." not in text and not text.rstrip().endswith(":") and "failed: Ref" not in text, text
    failed = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
    assert sorted(s.attributes.get("errscope.failure_class") for s in failed) == ["upstream_unavailable"] * 2


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j59_url_elicitation_passes_through_intact(style: str, telemetry: CapturedTelemetry) -> None:
    """J59 (modelcontextprotocol/python-sdk #1768 and PR #1780: ``UrlElicitationRequiredError`` raised in a tool was
    turned into an ``isError`` result; typescript-sdk PR #1578: its message was prefixed on the wire;
    strands-agents/harness-sdk #1742: the consent URL was lost). ``-32042`` is the spec's way for a tool to ask
    the user to open a URL (MCP 2025-11-25, Elicitation > URL mode): it stays a JSON-RPC error with code
    -32042, its message unprefixed, and every elicitation's URL and id exactly as the tool gave them (the URL
    is meant for the user; scrubbing it would break the consent flow)."""
    server = BUILDERS[style]()
    consent = ElicitRequestURLParams(
        message="Authorize access to your GitHub repositories",
        url="https://auth.example.com/oauth/authorize?client_id=mcp-github&state=el-7f3a9c",
        elicitation_id="el-7f3a9c",
    )

    @server.tool()
    async def list_private_repos() -> str:
        """List the user's private repositories."""
        raise UrlElicitationRequiredError([consent], message="GitHub authorization required")

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("list_private_repos", {})
    error = raised.value
    assert error.code == URL_ELICITATION_REQUIRED, (error.code, error.message)
    assert error.message.startswith("GitHub authorization required"), error.message
    (elicitation,) = (error.data or {})["elicitations"]
    assert (elicitation["url"], elicitation["elicitationId"]) == (consent.url, consent.elicitation_id)


async def test_j60_lone_surrogate_in_an_exception_message(tmp_path: Path) -> None:
    """J60 (anomalyco/opencode PR #17758: lone UTF-16 surrogates in MCP tool output made every later request of
    the session fail as invalid JSON; MemPalace/mempalace #503: "surrogates not allowed" killed the stdio
    server). A tool over stdio fails on a file whose name is not UTF-8: ``os.fsdecode`` gives a lone surrogate,
    and the exception text carries it. The call is answered with valid UTF-8 and no surrogate, and the server
    goes on serving."""
    script = tmp_path / "files_server.py"
    script.write_text(FILES_SERVER.format(style="mcpserver"))  # FastMCP answers through the same SDK stdio writer
    params = StdioServerParameters(command=sys.executable, args=[str(script)], cwd=str(REPO),
                                   env={**os.environ, "PYTHONPATH": str(REPO), "ERRSCOPE_OUT": str(tmp_path / "out")})
    async with Client(stdio_client(params), mode="legacy") as client:
        failed = await client.call_tool("open_report", {"month": "2026-01"})
        after = await client.call_tool("list_orders", {})
    text = text_of(failed)
    assert failed.is_error and "ERR-" in text, text
    assert not any(ord(ch) in SURROGATES for ch in text), ascii(text)
    assert not after.is_error


FILES_SERVER = '''
import os
import errscope
from tests.servers.catalogue import BUILDERS

server = BUILDERS["{style}"]()


@server.tool()
def open_report(month: str) -> str:
    """Open a month's report file."""
    raise FileNotFoundError("cannot open " + os.fsdecode(b"report-\\xff-") + month + ".csv")


errscope.instrument(server)
server.run("stdio")
'''


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j61_clone_url_credential_in_a_subprocess_error(style: str, tmp_path: Path, telemetry: CapturedTelemetry) -> None:
    """J61 (JhaSourav07/commitpulse #6332: a PAT embedded in the clone URL came back in error messages;
    huggingface/huggingface_hub #351; gitgitgadget/git PR #618). A tool runs a real ``git clone`` of
    ``https://x-access-token:<token>@…`` that fails; ``CalledProcessError`` names the whole command line. The
    token reaches neither the model nor any span or log record; the answer has a ref."""
    token = "ghs_FAKE16C7e42F292c6912E7710c838347Ae178B4a"
    server = BUILDERS[style]()

    @server.tool()
    def clone_repo(repo: str) -> str:
        """Clone a repository to analyse it."""
        url = f"https://x-access-token:{token}@127.0.0.1:1/{repo}.git"
        subprocess.run(["git", "clone", "--quiet", url, str(tmp_path / "checkout")], check=True, capture_output=True, timeout=20)
        return "cloned"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode="legacy") as client:
        result = await client.call_tool("clone_repo", {"repo": "octo/FAKE-private"})
    wire = json.dumps(result.model_dump(mode="json"))
    assert isinstance(result, CallToolResult) and result.is_error and "ERR-" in wire
    assert token not in wire and "ghs_FAKE" not in wire
    assert token not in everything_recorded(telemetry)


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_j75_stray_cancelled_error_in_a_tool(style: str, era: str, telemetry: CapturedTelemetry) -> None:
    """J75 (HKUDS/nanobot PR #1728: the MCP SDK's anyio cancel scopes leak ``CancelledError`` out of a failed
    connection, and only ``task.cancelling()`` tells it from a real cancellation; microsoft/agent-framework PR
    #5687; modelcontextprotocol/python-sdk #1830). A gateway tool whose own downstream MCP connection fails
    raises ``CancelledError`` though nobody cancelled the request. That is the tool's failure, answered
    ``isError`` with a ref; the session stays up and the next call works. (A cancel the client sent still
    gets no answer: ``tests/server/test_wire.py``.)"""
    server = BUILDERS[style]()

    @server.tool()
    async def query_downstream(question: str) -> str:
        """Ask the downstream MCP server (its connection is cancelled inside, as a failed connect does)."""
        inner = asyncio.get_running_loop().create_task(asyncio.sleep(10))
        asyncio.get_running_loop().call_later(0.05, inner.cancel)
        await inner
        return "answer"

    errscope.instrument(server, **telemetry.providers)
    target = server._mcp_server if style == "fastmcp" else server
    async with Client(target, mode=era) as client:
        with anyio.fail_after(10):
            failed = await client.call_tool("query_downstream", {"question": "status?"})
            after = await client.call_tool("list_orders", {})
    assert failed.is_error and "ERR-" in text_of(failed), failed
    assert not after.is_error
