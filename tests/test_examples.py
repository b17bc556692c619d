"""The examples run as real stdio servers and answer with errscope's shapes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.anyio

CASES = [
    ("mcpserver_stdio.py", "get_order", {"order_id": "B-7"}, "not_found", "get_order failed: there is no order B-7."),
    ("lowlevel_stdio.py", "divide", {"a": 1, "b": 0}, "invalid_input", "Invalid arguments for divide: `b` must be a non-zero number."),
    ("fastmcp_stdio.py", "reserve", {"sku": "X", "quantity": 50}, "rate_limited", "reserve failed: reservations are limited to 10 per minute."),
]


@pytest.mark.parametrize(("script", "tool", "arguments", "failure_class", "text"), CASES)
async def test_example_serves(tmp_path: Path, script: str, tool: str, arguments: dict, failure_class: str, text: str) -> None:
    """Each example is a working stdio server whose failures carry a class, a ref and model text."""
    params = StdioServerParameters(command=sys.executable, args=[str(REPO / "examples" / script)], cwd=str(tmp_path))
    async with Client(params) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    assert result.meta["io.errscope/failure_class"] == failure_class
    assert result.content[0].text.startswith(text)
    assert (tmp_path / "errscope-out" / "traces.jsonl").exists()
