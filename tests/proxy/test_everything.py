"""``@modelcontextprotocol/server-everything`` (npm) through ``errscope proxy``: every tool, as it is directly."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CreateMessageResult, ElicitResult, TextContent

from tests.proxy.conftest import EVERYTHING, LOOPBACK, NODE, free_port, proxy_command, require_everything, serving

pytestmark = pytest.mark.anyio

FAST = {"trigger-long-running-operation": {"duration": 0.4, "steps": 4}}
"""Arguments that keep a run short; every other tool gets values built from its input schema."""
SAMPLES = {"string": "hello", "number": 2, "integer": 2, "boolean": True}


def arguments(tool: Any) -> dict[str, Any]:
    """Values for the required properties of the tool's input schema (first enum value, else one per type)."""
    schema = tool.input_schema or {}
    values = {}
    for name in schema.get("required", []):
        prop = schema.get("properties", {}).get(name, {})
        if "enum" in prop:
            values[name] = prop["enum"][0]
        elif prop.get("format") == "uri":
            values[name] = "https://example.com/consent"
        else:
            values[name] = SAMPLES.get(prop.get("type"), "hello")
    return {**values, **FAST.get(tool.name, {})}


async def sampling(context: Any, params: Any) -> CreateMessageResult:
    prompt = params.messages[0].content.text
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=f"sampled: {prompt}"), model="test-model")


async def elicitation(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"name": "Ada"} if getattr(params, "requested_schema", None) else None)


async def run_every_tool(target: Any) -> dict[str, Any]:
    """Call every listed tool once, with progress; return each result (or error) and its progress count."""
    results: dict[str, Any] = {}
    async with Client(target, sampling_callback=sampling, elicitation_callback=elicitation) as client:
        for tool in (await client.list_tools()).tools:
            progress: list[float] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append(value)

            try:
                with anyio.fail_after(20):
                    result = await client.call_tool(tool.name, arguments(tool), progress_callback=on_progress)
                results[tool.name] = {"result": result.model_dump(mode="json", exclude={"meta"}), "progress": progress}
            except Exception as exc:  # a tool that fails the same way directly and through the proxy
                results[tool.name] = {"raised": type(exc).__name__, "progress": progress}
    return results


def _environment(results: dict[str, Any]) -> None:
    # get-env shows the server's environment: the proxy's child inherits the proxy's, in which the
    # Python interpreter sets LC_CTYPE on a C locale (PEP 538). Compared without that one variable.
    if "get-env" in results and "result" in results["get-env"]:
        block = results["get-env"]["result"]["content"][0]
        block["text"] = json.dumps({k: v for k, v in json.loads(block["text"]).items() if k != "LC_CTYPE"})


def assert_same(direct: dict[str, Any], proxied: dict[str, Any]) -> None:
    assert sorted(proxied) == sorted(direct)
    _environment(direct)
    _environment(proxied)
    for name, seen in direct.items():
        through = proxied[name]
        if seen.get("result", {}).get("is_error") and seen["result"]["content"][0]["text"].startswith("MCP error -32601"):
            # Documented change: a task-only tool's refusal (MCP 2025-11-25, Tasks), which the TypeScript SDK wraps
            # into an isError result, is relayed as the -32601 it stands for.
            assert through.get("raised") == "MCPError", name
        elif seen.get("result", {}).get("is_error"):
            # Documented change: an isError text is shaped for the model and ends with the ref.
            assert through["result"]["is_error"] is True and "Ref ERR-" in through["result"]["content"][0]["text"], name
        else:
            assert _timeless(through) == _timeless(seen), name


_FRESH = re.compile(
    r"\d{1,2}:\d{2}:\d{2}(?: [AP]M)?|\d{4}-\d{2}-\d{2}T[\d:.]+Z?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)


def _timeless(value: Any) -> str:
    """Clock times ("created at 9:09:15 AM") and fresh UUIDs (an elicitation id) differ run to run."""
    return _FRESH.sub("<time>", json.dumps(value, sort_keys=True))


async def test_every_tool_over_stdio_as_directly(tmp_path: Path) -> None:
    """Each tool answers the same through the stdio proxy; progress, sampling and elicitation round-trip."""
    require_everything()
    server = [str(NODE), str(EVERYTHING), "stdio"]
    direct = await run_every_tool(StdioServerParameters(command=server[0], args=server[1:]))
    command = proxy_command(tmp_path, "--", *server)
    proxied = await run_every_tool(StdioServerParameters(command=command[0], args=command[1:]))
    assert_same(direct, proxied)
    assert direct["trigger-long-running-operation"]["progress"] == [1, 2, 3, 4]
    assert "sampled: " in json.dumps(proxied["trigger-sampling-request"])
    assert "Ada" in json.dumps(proxied["trigger-elicitation-request"])
    spans = (tmp_path / "traces.jsonl").read_text()
    assert spans.count('"tools/call') >= len(direct)


async def test_every_tool_over_http_as_directly(tmp_path: Path) -> None:
    """The same through ``--listen`` in front of server-everything's streamable HTTP, and stdio in front of HTTP."""
    require_everything()
    upstream, listen = free_port(), free_port()
    with serving([str(NODE), *LOOPBACK, str(EVERYTHING), "streamableHttp"], upstream, env={"PORT": str(upstream)}):
        url = f"http://127.0.0.1:{upstream}/mcp"
        direct = await run_every_tool(url)
        with serving(proxy_command(tmp_path / "http", "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen):
            proxied = await run_every_tool(f"http://127.0.0.1:{listen}/mcp")
        command = proxy_command(tmp_path / "stdio", "--upstream", url)
        bridged = await run_every_tool(StdioServerParameters(command=command[0], args=command[1:]))
    assert_same(direct, proxied)
    assert_same(direct, bridged)
    assert "sampled: " in json.dumps(proxied["trigger-sampling-request"])
    assert direct["trigger-long-running-operation"]["progress"] == [1, 2, 3, 4]
