"""The server on the official Rust SDK (``rmcp``: ``tests/foreign/rust``), whose tools fail each way, through
``errscope proxy``.

The same calls go to the server directly and through the proxy (stdio, and HTTP with ``--listen``), so each
expectation is checked against what the server itself does: serde's rejections arrive as ``isError`` results, a
tool's own checks and errors as JSON-RPC errors (-32602, -32603, -32002), an unknown tool as ``-32602 "tool not
found"``; the proxy keeps each channel, classifies, writes notes that name the argument, and drops the secret and
the Rust backtrace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

from tests.foreign.peers import FAKE_SECRET, rust_server_http, rust_server_stdio
from tests.proxy.conftest import call_all, free_port, proxy_command, serving, telemetry_text

pytestmark = pytest.mark.anyio

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "add": ("add", {"a": 2, "b": 3}),
    "wrong_type": ("add", {"a": "seven", "b": 2}),
    "missing": ("add", {"a": 1}),
    "enum": ("create_label", {"order_id": "ORD-1234", "weight_kg": 2, "service": "hovercraft"}),
    "nested_missing": ("ship", {"address": {"city": "Paris"}, "items": []}),
    "bound": ("create_label", {"order_id": "ORD-1234", "weight_kg": -2, "service": "ground"}),
    "unknown_tool": ("no_such_tool", {}),
    "find_order": ("find_order", {"order_id": "ORD-0001"}),
    "get_invoice": ("get_invoice", {"invoice_id": "INV-77"}),
    "delete_repo": ("delete_repo", {"repo": "payments"}),
    "search": ("search", {"query": "x"}),
    "charge_card": ("charge_card", {"amount": 12}),
    "refund": ("refund", {"amount": 3}),
    "export_report": ("export_report", {"month": "2026-05"}),
    "price_feed": ("price_feed", {"symbol": "ACME"}),
    "parse_amount": ("parse_amount", {"amount": "12,50"}),
}
CLASSES = {
    "wrong_type": "invalid_input",
    "missing": "invalid_input",
    "enum": "invalid_input",
    "nested_missing": "invalid_input",
    "bound": "invalid_input",
    "unknown_tool": "not_found",
    "find_order": "not_found",
    "get_invoice": "not_found",
    "delete_repo": "permission_denied",
    "search": "rate_limited",
    "charge_card": "upstream_unavailable",
    "refund": "upstream_unavailable",
    "export_report": "unknown",
    "price_feed": "unknown",  # serde failing on the upstream's body: not the caller's arguments
    "parse_amount": "unknown",  # a caught panic's message: the tool's bug
}
NOTES = {  # (channel rmcp answers on, what the note says)
    "wrong_type": ("execution", "`a` must be a number"),
    "missing": ("execution", "`b` is required"),
    "enum": ("execution", "`service` must be one of ground, express"),
    "nested_missing": ("execution", "`address.zip` is required"),
    "bound": ("protocol", "`weight_kg` must be greater than 0 and at most 30"),
}
STACK_FRAGMENTS = ("stack backtrace", ".rs:", "rmcp_failing_server::", "/rustc/")
BACKTRACE_FRAGMENTS = ("stack backtrace", "rmcp_failing_server::", "/rustc/")


def assert_proxied(direct: dict[str, Any], proxied: dict[str, Any], out: Path) -> None:
    assert proxied["add"] == direct["add"] and direct["add"]["text"] == "5"
    for seen in (direct, proxied):  # rmcp awaits each progress before the result; a prefix keeps this load-proof
        values = seen["progress"]["values"]
        assert seen["progress"]["text"] == "report done after 3 steps" and values and values == [1, 2, 3][:len(values)]
    for label, failure_class in CLASSES.items():
        assert proxied[label]["meta"]["io.errscope/failure_class"] == failure_class, (label, proxied[label])
        assert proxied[label]["channel"] == direct[label]["channel"], label
    assert proxied["unknown_tool"]["channel"] == "protocol" and proxied["unknown_tool"]["code"] == -32602
    assert "no_such_tool" in proxied["unknown_tool"]["text"]  # rmcp's "tool not found" names none
    for label, (channel, note) in NOTES.items():
        assert direct[label]["channel"] == channel, label
        assert note in proxied[label]["text"], (label, proxied[label]["text"])
    assert "seven" not in proxied["wrong_type"]["text"] and "hovercraft" not in proxied["enum"]["text"]
    assert proxied["search"]["meta"]["io.errscope/retry_after"] == 2
    assert FAKE_SECRET in json.dumps(direct) and "stack backtrace" in direct["export_report"]["text"]  # it leaks...
    assert FAKE_SECRET not in json.dumps(proxied)  # ...the proxy does not
    for label in CLASSES:
        assert not any(fragment in proxied[label]["text"] for fragment in STACK_FRAGMENTS), (label, proxied[label])
    recorded = telemetry_text(out)
    # The proxy's log record (an operator's) keeps the panic's own lines, where it panicked included ("panicked at
    # src/main.rs:211:5", what the on-call engineer files), never the backtrace.
    assert FAKE_SECRET not in recorded and not any(fragment in recorded for fragment in BACKTRACE_FRAGMENTS)
    assert "panicked at src/main.rs:" in recorded


async def test_rust_server_over_stdio(tmp_path: Path) -> None:
    """Each failure reaches the host classified, on the channel rmcp chose, scrubbed; progress passes."""
    server = rust_server_stdio()
    direct = await call_all(server, CALLS)
    command = proxy_command(tmp_path, "--", server.command, *server.args)
    proxied = await call_all(StdioServerParameters(command=command[0], args=command[1:]), CALLS)
    assert_proxied(direct, proxied, tmp_path)


async def test_rust_server_over_http(tmp_path: Path) -> None:
    """The same over streamable HTTP (rmcp's StreamableHttpService), ``--listen`` in front of the server."""
    listen = free_port()
    with rust_server_http() as url:
        direct = await call_all(url, CALLS)
        with serving(proxy_command(tmp_path, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen):
            proxied = await call_all(f"http://127.0.0.1:{listen}/mcp", CALLS)
    assert_proxied(direct, proxied, tmp_path)
