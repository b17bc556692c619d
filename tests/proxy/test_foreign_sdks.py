"""Servers on SDKs the proxy had not met, through ``errscope proxy`` on stdio: mcp 1.9's FastMCP, TypeScript SDK
1.12.1 and 1.24.3, the Java SDK (1.1.5 and 2.1.0), go-sdk 1.2.0, the Rust SDK (rmcp). Their rejections, unknown tools and raised errors
(``tests/foreign/test_py_servers``, ``test_ts_old_releases``, ``test_java_server``, ``test_rust_server`` read them
with ToolClient) reach the host classified and scrubbed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.foreign.peers import (
    FAKE_SECRET,
    GO_OLD_RELEASES,
    JAVA_NEW_RELEASE,
    go_server_stdio,
    java_server_stdio,
    node_env,
    py_failing_stdio,
    rust_server_stdio,
    ts_server_stdio,
)
from tests.proxy.conftest import proxy_command, telemetry_text

pytestmark = pytest.mark.anyio

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "ok": ("add", {"a": 2, "b": 3}),
    "wrong_type": ("add", {"a": "seven", "b": 2}),
    "unknown_tool": ("no_such_tool", {}),
    "refused": ("charge_card", {"amount": 12}),
}
SERVERS = {
    "mcp-1.9": lambda: py_failing_stdio("mcp-1.9"),
    "ts-sdk-1.12": lambda: ts_server_stdio("sdk-1-12"),
    "ts-sdk-1.24": lambda: ts_server_stdio("sdk-1-24"),
    "java-sdk": java_server_stdio,
    # releases whose wording differs from the pinned ones (Java 2.x validates in networknt's words; go-sdk 1.2
    # rejects with -32602 "invalid params: validating ...")
    f"java-sdk-{JAVA_NEW_RELEASE}": lambda: java_server_stdio(JAVA_NEW_RELEASE),
    **{f"go-{release}": (lambda release=release: go_server_stdio(release)) for release in GO_OLD_RELEASES},
    "rust-rmcp": rust_server_stdio,
}


async def call_each(target: StdioServerParameters) -> dict[str, dict[str, Any]]:
    """Each of :data:`CALLS` on ``target``: its channel, text and ``_meta``/``data``."""
    seen: dict[str, dict[str, Any]] = {}
    async with Client(target) as client:
        for label, (tool, arguments) in CALLS.items():
            try:
                result = await client.call_tool(tool, arguments)
                seen[label] = {"channel": "execution" if result.is_error else None, "text": result.content[0].text,
                               "meta": result.meta or {}}
            except MCPError as exc:
                seen[label] = {"channel": "protocol", "code": exc.code, "text": exc.message, "meta": exc.data or {}}
    return seen


@pytest.mark.parametrize("name", sorted(SERVERS))
async def test_foreign_server_over_stdio(tmp_path: Path, name: str) -> None:
    """The unknown tool is a -32602 protocol error whatever the SDK sent; the rest keep their channel, get
    their class and lose the secret."""
    server = SERVERS[name]()
    command = proxy_command(tmp_path, "--", server.command, *server.args)
    # The whole environment (Node first on PATH for the TS servers): the SDK's default keeps PYTHONPATH out, and the
    # proxy would then run the installed errscope, not this tree's.
    proxied = await call_each(StdioServerParameters(command=command[0], args=command[1:], cwd=server.cwd,
                                                    env=node_env()))
    assert (proxied["ok"]["channel"], proxied["ok"]["text"]) == (None, "5")
    classes = {label: proxied[label]["meta"].get("io.errscope/failure_class") for label in CALLS if label != "ok"}
    # The Java SDK lets the string into the tool, whose cast fails (-32603): the server's failure, not a rejection.
    rejected = "unknown" if name == "java-sdk" else "invalid_input"
    assert classes == {"wrong_type": rejected, "unknown_tool": "not_found", "refused": "upstream_unavailable"}
    assert (proxied["unknown_tool"]["channel"], proxied["unknown_tool"].get("code")) == ("protocol", -32602)
    assert "no_such_tool" in proxied["unknown_tool"]["text"]
    if rejected == "invalid_input":
        assert "`a` must be a" in proxied["wrong_type"]["text"] and "seven" not in proxied["wrong_type"]["text"]
    assert FAKE_SECRET not in json.dumps(proxied)
    assert FAKE_SECRET not in telemetry_text(tmp_path)
