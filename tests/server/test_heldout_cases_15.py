"""Server side of tests/heldout_cases.md, fifteenth round (J291): the same request id on two sessions at once.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument`` under uvicorn on 127.0.0.1; two raw streamable
HTTP sessions (httpx) that each number their requests from 1, as every SDK client does.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

import errscope
from errscope.testing import CapturedTelemetry
from tests.client.servers.app import serve
from tests.server.test_heldout_cases import handshake
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a POST, whether sent as JSON or as one SSE event."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    import json

    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    answers = [json.loads(d) for d in data if d]
    (answer,) = [a for a in answers if "id" in a]
    return answer


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j291_the_same_id_on_two_sessions_at_once(style: str, telemetry: CapturedTelemetry) -> None:
    """J291 (MCP 2025-11-25, Basic > Requests: an id is unique "within the same session", so two sessions may use the
    same one at the same moment, and do: every SDK client numbers from 0 or 1; J282's guard answers a repeated id with
    the first request's outcome, which is right only inside one session; gateways that multiplex many hosts' sessions
    onto one server, e.g. IBM/mcp-context-forge and Kuadrant/mcp-gateway, hit this at the first burst). Two sessions
    each send ``tools/call`` id 7 for ``charge_card`` with their own amount, overlapping: the tool runs twice, each
    session gets its own answer, and there are two server spans."""
    runs: list[int] = []

    async def charge_card(amount: int) -> str:
        """Charge a card (a write; no annotations)."""
        runs.append(amount)
        await anyio.sleep(0.5)
        return f"charged {amount}"

    server = BUILDERS[style]()
    (server.tool if style == "fastmcp" else server.add_tool)(charge_card)
    errscope.instrument(server, **telemetry.providers)
    app = server.http_app(path="/mcp") if style == "fastmcp" else server.streamable_http_app(host="127.0.0.1")
    answers: dict[int, dict[str, Any]] = {}
    async with serve(app) as base, httpx.AsyncClient(base_url=base, timeout=10) as first, \
            httpx.AsyncClient(base_url=base, timeout=10) as second:
        sessions = [(first, await handshake(first), 5), (second, await handshake(second), 9)]
        assert sessions[0][1].get("mcp-session-id") != sessions[1][1].get("mcp-session-id")

        async def call(http: httpx.AsyncClient, headers: dict[str, str], amount: int) -> None:
            response = await http.post("/mcp", headers=headers, json={
                "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "charge_card", "arguments": {"amount": amount}}})
            answers[amount] = _answer(response)

        async with anyio.create_task_group() as tg:
            for http, headers, amount in sessions:
                tg.start_soon(call, http, headers, amount)
                await anyio.sleep(0.1)
    assert sorted(runs) == [5, 9], runs
    assert {amount: (a["id"], a["result"]["content"][0]["text"]) for amount, a in answers.items()} == {
        5: (7, "charged 5"), 9: (7, "charged 9")}, answers
    spans = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "charge_card"]
    assert len(spans) == 2, [s.name for s in spans]
