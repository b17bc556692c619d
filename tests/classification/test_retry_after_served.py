"""A 503 with ``Retry-After`` tells the model when to try again, not just "later".

RFC 9110 §10.2.3: sent with a 503, ``Retry-After`` says how long the service expects to be unavailable. errscope
already keeps it (``errscope.retry_after`` on the span, ``io.errscope/retry_after`` in ``_meta``); the model's text
must say it too, or a model told "Try again later" retries at once. A failure that may have acted (a 502/504 that
reached the upstream) keeps its "check first" advice whatever the upstream said about retrying.
A real ``MCPServer`` whose tool calls a real HTTP server on 127.0.0.1 through httpx.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

import errscope
from errscope import _attributes as attr
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HttpUpstream


@pytest.fixture
async def client(upstream: HttpUpstream) -> AsyncIterator[Client]:
    server = MCPServer("retry-after")

    @server.tool()
    async def charge(status: int, retry_after: str) -> str:
        async with httpx.AsyncClient(timeout=5) as http:
            response = await http.post(f"{upstream.url}/status/{status}?retry_after={retry_after}", json={})
        response.raise_for_status()
        return response.text

    with CapturedTelemetry.installed() as telemetry:
        errscope.instrument(server, **telemetry.providers)
        async with Client(server) as connected:
            yield connected


@pytest.mark.anyio
async def test_503_with_retry_after_says_when(client: Client) -> None:
    result = await client.call_tool("charge", {"status": 503, "retry_after": "7"})
    text = result.content[0].text
    assert text.startswith("charge failed: a backing service is unavailable. Try again in about 7 s, or use another"
                           " way to reach the goal. Ref ERR-"), text
    assert result.meta is not None and result.meta[attr.META_RETRY_AFTER] == 7
    assert result.meta[attr.META_SIDE_EFFECT_POSSIBLE] is False


@pytest.mark.anyio
async def test_a_failure_that_may_have_acted_keeps_check_first(client: Client) -> None:
    result = await client.call_tool("charge", {"status": 504, "retry_after": "7"})
    text = result.content[0].text
    assert "The action may have happened: check whether it took effect before calling again." in text, text
    assert "Try again" not in text
