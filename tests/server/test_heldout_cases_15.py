"""Server side of tests/heldout_cases.md, fifteenth round (J291): the same request id on two sessions at once.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument`` under uvicorn on 127.0.0.1; two raw streamable
HTTP sessions (httpx) that each number their requests from 1, as every SDK client does.
"""

from __future__ import annotations

from pathlib import Path
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


_FLOAT_SERVER = '''
import sys
from tests.servers.catalogue import BUILDERS
import errscope

style, count = sys.argv[1], sys.argv[2]
server = BUILDERS[style]()


async def transfer(amount: float, fee: float = 0.0) -> str:
    """Move money (a write; no annotations)."""
    with open(count, "a") as runs:
        runs.write("x")
    return f"moved {amount}"


(server.tool if style == "fastmcp" else server.add_tool)(transfer)
errscope.instrument(server)
if style == "fastmcp":
    server.run(transport="stdio", show_banner=False)
else:
    server.run()
'''


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
def test_j294_nan_and_infinity_on_the_wire_never_reach_a_tool(style: str, tmp_path: Any) -> None:
    """J294 (J287 from the server's side: a host that writes its arguments with Python's ``json.dumps`` default
    ``allow_nan=True`` sends the literals ``NaN`` and ``Infinity``, and "1e400" overflows to inf; RFC 8259 §6: no JSON
    numbers; Python's json module and pydantic read them all the same, and both JSON Schema engines accept the float for
    ``"type": "number"``). ``MCPServer`` ran ``transfer(amount=nan)``; FastMCP's own pydantic check refused it with its
    raw validation text. The argument check errscope runs refuses a non-finite number as it refuses a wrong type: an
    ``invalid_input`` note naming the field, the tool never runs; a finite amount then goes through."""
    import json
    import os
    import subprocess
    import sys

    script, count = tmp_path / "server.py", tmp_path / "runs.txt"
    script.write_text(_FLOAT_SERVER)
    count.write_text("")
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen([sys.executable, str(script), style, str(count)], cwd=root,
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                   [*filter(None, [os.environ.get("PYTHONPATH")]), str(root / "instrumentation"),
                                    str(root)])}, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None and process.stdout is not None

    def send(line: str) -> None:
        process.stdin.write(line + "\n")
        process.stdin.flush()

    def answer() -> dict[str, Any]:
        return json.loads(process.stdout.readline())

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}))
        assert answer()["id"] == 0
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        texts = {}
        for request_id, arguments in ((5, '{"amount": NaN}'), (6, '{"amount": 1e400}'),
                                      (7, '{"amount": 10, "fee": -Infinity}')):
            send(f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", '
                 f'"params": {{"name": "transfer", "arguments": {arguments}}}}}')
            got = answer()
            assert got["id"] == request_id and got["result"]["isError"] is True, got
            texts[request_id] = got["result"]["content"][0]["text"]
            assert got["result"]["_meta"]["io.errscope/failure_class"] == "invalid_input", got
        send(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                         "params": {"name": "transfer", "arguments": {"amount": 12.5}}}))
        assert answer()["result"]["content"][0]["text"] == "moved 12.5"
    finally:
        process.kill()
        process.wait(timeout=10)
    assert "`amount`" in texts[5] and "`amount`" in texts[6] and "`fee`" in texts[7], texts
    for text in texts.values():
        assert "finite number" in text and "Ref ERR-" in text and "input_value" not in text, text
    assert count.read_text() == "x", "the tool ran with a number JSON cannot carry"


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j298_a_result_holding_nan_is_the_tool_s_bug(style: str, telemetry: CapturedTelemetry) -> None:
    """J298 (J294 for results: a tool computing a mean of no samples returns ``nan``; pydantic writes it as ``null``, so
    the host's own output check fails ("Invalid structured content returned by tool mean_latency: None is not of type
    'number'", the SDK client raises) while the server's span said success; FastMCP refuses such a result itself, "Tool
    result contains a non-finite float"). As for any result that breaks the tool's declared output (J40): an ``isError``
    answer with a ref, class ``unknown`` (the server's bug, never ``invalid_input``), span status ERROR; the host gets an
    answer it can read."""
    from opentelemetry.trace import StatusCode

    from tests.server.test_heldout_cases import serving

    async def mean_latency(service: str) -> float:
        """Mean latency of a service in ms (NaN when it has no samples)."""
        return float("nan")

    async with serving(style, "legacy", telemetry, mean_latency) as served:
        result = await served.call("mean_latency", {"service": "checkout"})
    assert result.is_error is True, result
    text = " ".join(block.text for block in result.content)
    assert "Ref ERR-" in text and "argument" not in text.lower(), text
    (span,) = [s for s in telemetry.spans() if s.attributes.get("gen_ai.tool.name") == "mean_latency"]
    assert span.attributes.get("errscope.failure_class") == "unknown", dict(span.attributes)
    assert span.status.status_code is StatusCode.ERROR
