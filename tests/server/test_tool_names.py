"""A tool name is the caller's words: every adapter echoes it scrubbed and bounded (``safe_name``), never raw."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError

from errscope._messages import MAX_NAME, safe_name
from tests.server.conftest import Served

pytestmark = pytest.mark.anyio

SECRET = "ghp_" + "FAKE" * 9  # built at run time: no token-shaped literal in the file
NAMES = [f"refund?token={SECRET}", "r" * 5120]


@pytest.mark.parametrize("name", NAMES, ids=["secret", "5KB"])
async def test_unknown_tool_message_echoes_the_safe_name(served: Served, name: str) -> None:
    """The -32602 unknown-tool message names the tool as ``safe_name`` gives it, on every server style and era."""
    answer = await served.call(name)
    assert isinstance(answer, MCPError) and answer.code == -32602
    assert answer.message == f"Unknown tool: {safe_name(name)}"
    assert SECRET not in answer.message and len(answer.message) <= len("Unknown tool: ") + MAX_NAME
