"""A tool's own downstream ``mcp.Client`` failing for real: dead, stalling and crashing MCP servers
over stdio and streamable HTTP (a plain MCPServer in a subprocess, see ``mcp_upstream.py``).

The exception is what leaves ``async with Client(...)``: the SDK's task groups wrap it in
exception groups, and its HTTP stack is ``httpx2``/``httpcore2``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from errscope import FailureClass as C
from tests.classification.conftest import check, raised
from tests.classification.upstreams import HOST, UNRESOLVABLE, HttpUpstream, closed_port, wait_ready

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 0.5
"""Seconds the client waits for an answer when the server stalls."""


def _stdio(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "tests.classification.mcp_upstream", "stdio", *extra],
                                 cwd=str(REPO))


async def _call(target: Any, tool: str = "echo", **options: Any) -> None:
    arguments = {"text": "refund ord_1001"} if tool == "echo" else {}
    async with Client(target, **options) as client:
        await client.call_tool(tool, arguments)


@pytest.fixture
def http_server() -> Iterator[str]:
    port = closed_port()
    process = subprocess.Popen([sys.executable, "-m", "tests.classification.mcp_upstream", "http", str(port)],
                               cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://{HOST}:{port}/mcp"
    try:
        wait_ready(lambda: httpx.get(url, timeout=1), process)
        yield url
    finally:
        process.kill()
        process.wait(10)


class TestStdio:
    def test_server_exits_at_start(self) -> None:
        exc = raised(lambda: _call(_stdio("--crash-on-start")))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)  # -32000: the SDK's code does not say when it closed

    def test_server_program_missing(self, tmp_path: Path) -> None:
        exc = raised(lambda: _call(StdioServerParameters(command=str(tmp_path / "mcp-server"))))
        assert isinstance(exc, FileNotFoundError)
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_tool_stalls_past_the_timeout(self) -> None:
        exc = raised(lambda: _call(_stdio(), "stall", read_timeout_seconds=TIMEOUT))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)  # -32001, sent and never answered

    def test_server_crashes_mid_call(self) -> None:
        exc = raised(lambda: _call(_stdio(), "crash"))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)  # -32000 with the call in flight


class TestHttp:
    def test_connection_refused(self) -> None:
        exc = raised(lambda: _call(f"http://{HOST}:{closed_port()}/mcp"))
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_name_does_not_resolve(self) -> None:
        exc = raised(lambda: _call(f"http://{UNRESOLVABLE}/mcp"))
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_tls_to_plain_socket(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _call(f"https://{HOST}:{upstream.port}/mcp"))
        check(exc, C.UPSTREAM_UNAVAILABLE, False)

    def test_listener_never_answers(self, silent_port: int) -> None:
        exc = raised(lambda: _call(f"http://{HOST}:{silent_port}/mcp", read_timeout_seconds=TIMEOUT, mode="legacy"))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_connection_dropped_after_request(self, upstream: HttpUpstream) -> None:
        exc = raised(lambda: _call(f"{upstream.url}/drop"))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_endpoint_not_found(self, upstream: HttpUpstream) -> None:
        # The SDK turns a 404 before any session into -32601 (streamable_http.py): a wrong URL.
        exc = raised(lambda: _call(f"{upstream.url}/status/404"))
        check(exc, C.NOT_FOUND, False)

    def test_endpoint_unavailable(self, upstream: HttpUpstream) -> None:
        # Any other HTTP error becomes -32603 "Server returned an error response": the SDK keeps
        # no status, so 503 and 429 look alike here. An honest unknown, not a guess.
        exc = raised(lambda: _call(f"{upstream.url}/status/503?retry_after=5"))
        check(exc, C.UNKNOWN, True)

    def test_tool_stalls_past_the_timeout(self, http_server: str) -> None:
        exc = raised(lambda: _call(http_server, "stall", read_timeout_seconds=TIMEOUT))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)

    def test_server_crashes_mid_call(self, http_server: str) -> None:
        exc = raised(lambda: _call(http_server, "crash"))
        check(exc, C.UPSTREAM_UNAVAILABLE, True)
