"""ToolClient against the MCP reference fetch server (PyPI ``mcp-server-fetch``, the modelcontextprotocol/servers
project's Python server), run as published over stdio, fetching from real HTTP peers on 127.0.0.1.

Its failures are ``McpError`` texts in its own words: "Failed to fetch <url> - status code 404", "When fetching
robots.txt (<url>), received status 403 so assuming that autonomous fetching is not allowed", "Failed to fetch
robots.txt <url> due to a connection issue", and by default "Refused to fetch <url>: 127.0.0.1 resolves to
127.0.0.1, which is not a public address" (its protection against server-side request forgery). Each must reach
the model with its class and honest advice.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from mcp import StdioServerParameters

from errscope import FailureClass
from errscope.client import ToolCallResult, ToolClient
from tests.classification.upstreams import answering, closed_port

pytestmark = pytest.mark.anyio

pytest.importorskip("mcp_server_fetch")


@asynccontextmanager
async def fetch_server(*options: str) -> AsyncIterator[ToolClient]:
    server = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server_fetch", *options])
    async with ToolClient(server, timeout=30, retry=None) as client:
        yield client


async def fetch(client: ToolClient, url: str) -> ToolCallResult:
    return await client.call_tool("fetch", {"url": url})


async def test_a_private_address_refused_by_its_policy() -> None:
    async with fetch_server() as client:
        result = await fetch(client, f"http://127.0.0.1:{closed_port()}/orders/17")
    assert "not a public address" in result.text
    assert result.failure_class is FailureClass.PERMISSION_DENIED and not result.retryable
    assert result.side_effect_possible is not True and "ask the user" in result.text


@pytest.mark.parametrize(("robots_status", "failure_class", "words"), [
    (403, FailureClass.PERMISSION_DENIED, "autonomous fetching is not allowed"),
    (404, FailureClass.NOT_FOUND, "status code 404"),  # no robots.txt: the page itself, answered 404
])
async def test_robots_txt_answered(robots_status: int, failure_class: FailureClass, words: str) -> None:
    async with fetch_server("--allow-private-ips") as client:
        with answering(robots_status, "no") as port:
            result = await fetch(client, f"http://127.0.0.1:{port}/orders/17")
    assert words in result.text
    assert result.failure_class is failure_class and not result.retryable


async def test_robots_txt_unreachable() -> None:
    async with fetch_server("--allow-private-ips") as client:
        result = await fetch(client, f"http://127.0.0.1:{closed_port()}/orders/17")
    assert "due to a connection issue" in result.text
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and result.retryable


@pytest.mark.parametrize(("status", "failure_class", "retryable"), [
    (401, FailureClass.PERMISSION_DENIED, False),
    (404, FailureClass.NOT_FOUND, False),
    (429, FailureClass.RATE_LIMITED, True),
    (503, FailureClass.UPSTREAM_UNAVAILABLE, True),
])
async def test_page_answered(status: int, failure_class: FailureClass, retryable: bool) -> None:
    async with fetch_server("--allow-private-ips", "--ignore-robots-txt") as client:
        with answering(status, "no") as port:
            result = await fetch(client, f"http://127.0.0.1:{port}/orders/17")
    assert f"status code {status}" in result.text
    assert (result.failure_class, result.retryable) == (failure_class, retryable)


async def test_page_refused() -> None:
    async with fetch_server("--allow-private-ips", "--ignore-robots-txt") as client:
        result = await fetch(client, f"http://127.0.0.1:{closed_port()}/orders/17")
    assert "All connection attempts failed" in result.text  # httpx's ConnectError, as the server words it
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE and result.retryable
    assert result.side_effect_possible is not True  # nothing in the words says the page's server got the request
