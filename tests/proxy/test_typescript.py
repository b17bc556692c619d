"""A TypeScript-SDK server (v1 and v2, npm) whose tools fail each way, through ``errscope proxy``.

The server is hf's ``tests/npm/servers/ts_failing_server.mjs``; the same calls go to it directly and
through the proxy, so each expectation is checked against what the server itself does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

from tests.foreign.peers import FAKE_SECRET, node_env, ts_server_http, ts_server_stdio
from tests.proxy.conftest import call_all, free_port, proxy_command, serving, telemetry_text

pytestmark = pytest.mark.anyio

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "add": ("add", {"a": 2, "b": 3}),
    "find_order": ("find_order", {"order_id": "ORD-0001"}),
    "charge_card": ("charge_card", {"amount": 12}),
    "protocol_error": ("protocol_error", {"code": -32050}),
    "search": ("search", {"query": "x"}),
    "bad_arguments": ("create_label", {"order_id": "nope", "weight_kg": -1, "service": "drone"}),
    "unknown_tool": ("no_such_tool", {}),
    "refund_stalled": ("refund_via_api", {"api": "stall"}),
    "refund_refused": ("refund_via_api", {"api": "refused", "with_cause": True}),
}
CLASSES = {
    "find_order": "not_found",
    "charge_card": "upstream_unavailable",
    "search": "rate_limited",
    "bad_arguments": "invalid_input",
    "unknown_tool": "not_found",
    "refund_stalled": "upstream_unavailable",
    "refund_refused": "upstream_unavailable",
}


def assert_proxied(direct: dict[str, Any], proxied: dict[str, Any], out: Path) -> None:
    assert proxied["add"] == direct["add"] and direct["add"]["text"] == "5"
    assert proxied["progress"] == direct["progress"] and direct["progress"]["values"] == [1, 2, 3]
    for label, failure_class in CLASSES.items():
        assert proxied[label]["meta"]["io.errscope/failure_class"] == failure_class, (label, proxied[label])
    # The unknown tool is a protocol error through the proxy, however the SDK wrapped it.
    assert proxied["unknown_tool"]["channel"] == "protocol" and proxied["unknown_tool"]["code"] == -32602
    for label in ("find_order", "charge_card", "search", "bad_arguments"):
        assert proxied[label]["channel"] == direct[label]["channel"] == "execution", label
    assert proxied["protocol_error"]["channel"] == direct["protocol_error"]["channel"]
    assert proxied["search"]["meta"]["io.errscope/retry_after"] == 2
    # Node's own words for a fetch that timed out may hide a refund that happened; a refused connect hides none.
    assert proxied["refund_stalled"]["meta"]["io.errscope/side_effect_possible"] is True
    assert "may have happened" in proxied["refund_stalled"]["text"]
    assert "io.errscope/side_effect_possible" not in proxied["refund_refused"]["meta"]
    assert "may have happened" not in proxied["refund_refused"]["text"]
    assert FAKE_SECRET in json.dumps(direct)  # the server does leak it...
    assert FAKE_SECRET not in json.dumps(proxied)  # ...the proxy does not
    assert FAKE_SECRET not in telemetry_text(out)
    for label in CLASSES:
        ref = proxied[label]["meta"]["io.errscope/error_ref"]
        assert ref in proxied[label]["text"] or proxied[label]["channel"] == "protocol", label


@pytest.mark.parametrize("sdk", ["v1", "v2"])
async def test_typescript_server_over_stdio(tmp_path: Path, sdk: str) -> None:
    """Each failure reaches the host classified, on the right channel, scrubbed; progress passes."""
    server = ts_server_stdio(sdk)
    direct = await call_all(server, CALLS)
    command = proxy_command(tmp_path, "--", server.command, *server.args)
    target = StdioServerParameters(command=command[0], args=command[1:], cwd=server.cwd, env=node_env())
    proxied = await call_all(target, CALLS)
    assert_proxied(direct, proxied, tmp_path)


@pytest.mark.parametrize("sdk", ["v1", "v2"])
async def test_typescript_server_over_http(tmp_path: Path, sdk: str) -> None:
    """The same over streamable HTTP, ``--listen`` in front of the server."""
    listen = free_port()
    with ts_server_http(sdk) as url:
        direct = await call_all(url, CALLS)
        with serving(proxy_command(tmp_path, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen):
            proxied = await call_all(f"http://127.0.0.1:{listen}/mcp", CALLS)
    assert_proxied(direct, proxied, tmp_path)
