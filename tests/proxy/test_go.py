"""Servers on the Go SDKs (go-sdk, mcp-go: ``tests/foreign/go``) whose tools fail each way, through ``errscope proxy``.

The same calls go to each server directly and through the proxy (stdio, and HTTP with ``--listen``), so each
expectation is checked against what the server itself does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

from tests.foreign.peers import FAKE_SECRET, GO_OLD_RELEASES, GO_SDKS, go_server_http, go_server_stdio
from tests.proxy.conftest import call_all, free_port, proxy_command, serving, telemetry_text

pytestmark = pytest.mark.anyio

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "add": ("add", {"a": 2, "b": 3}),
    "wrong_type": ("add", {"a": "seven", "b": 2}),
    "missing": ("add", {"a": 1}),
    "enum": ("create_label", {"order_id": "ORD-1234", "weight_kg": 2, "service": "hovercraft"}),
    "bound": ("create_label", {"order_id": "ORD-1234", "weight_kg": -2, "service": "ground"}),
    "unknown_tool": ("no_such_tool", {}),
    "find_order": ("find_order", {"order_id": "ORD-0001"}),
    "delete_repo": ("delete_repo", {"repo": "payments"}),
    "search": ("search", {"query": "x"}),
    "charge_card": ("charge_card", {"amount": 12}),
    "refund": ("refund", {"amount": 3}),
    "export_report": ("export_report", {"month": "2026-05"}),
}
CLASSES = {
    "wrong_type": "invalid_input",
    "missing": "invalid_input",
    "enum": "invalid_input",
    "bound": "invalid_input",
    "unknown_tool": "not_found",
    "find_order": "not_found",
    "delete_repo": "permission_denied",
    "search": "rate_limited",
    "charge_card": "upstream_unavailable",
    "refund": "upstream_unavailable",
    "export_report": "unknown",
}
NOTES = {
    "wrong_type": "`a` must be a number",
    "missing": "`b` is required",
    "enum": "`service` must be one of ground, express",
    "bound": "greater than 0",  # from the SDK's keyword report (go-sdk) or the listed inputSchema (mcp-go)
}
STACK_FRAGMENTS = ("goroutine", "runtime/debug", ".go:", "+0x")


def assert_proxied(direct: dict[str, Any], proxied: dict[str, Any], out: Path) -> None:
    assert proxied["add"] == direct["add"] and direct["add"]["text"] == "5"
    # mcp-go sends a notification from another goroutine than the result, so the last progress can come after
    # the result (and be dropped by the client), directly as through the proxy: each run is a prefix.
    for seen in (direct, proxied):
        values = seen["progress"]["values"]
        assert seen["progress"]["text"] == "report done after 3 steps" and values and values == [1, 2, 3][:len(values)]
    for label, failure_class in CLASSES.items():
        assert proxied[label]["meta"]["io.errscope/failure_class"] == failure_class, (label, proxied[label])
    assert proxied["unknown_tool"]["channel"] == "protocol" and proxied["unknown_tool"]["code"] == -32602
    for label, note in NOTES.items():  # the proxy keeps the server's channel (go-sdk 1.2.0 answers -32602)
        assert proxied[label]["channel"] == direct[label]["channel"], label
        assert note in proxied[label]["text"], (label, proxied[label]["text"])
    assert "seven" not in proxied["wrong_type"]["text"] and "hovercraft" not in proxied["enum"]["text"]
    for label in ("find_order", "delete_repo", "search", "charge_card", "refund", "export_report"):
        assert proxied[label]["channel"] == direct[label]["channel"], label
    assert proxied["search"]["meta"]["io.errscope/retry_after"] == 2
    assert FAKE_SECRET in json.dumps(direct) and "goroutine" in direct["export_report"]["text"]  # the server leaks...
    assert FAKE_SECRET not in json.dumps(proxied)  # ...the proxy does not
    for label in CLASSES:
        assert not any(fragment in proxied[label]["text"] for fragment in STACK_FRAGMENTS), (label, proxied[label])
    recorded = telemetry_text(out)
    assert FAKE_SECRET not in recorded and not any(fragment in recorded for fragment in STACK_FRAGMENTS)
    for label in CLASSES:
        ref = proxied[label]["meta"]["io.errscope/error_ref"]
        assert ref in proxied[label]["text"] or proxied[label]["channel"] == "protocol", label


@pytest.mark.parametrize("sdk", (*GO_SDKS, *GO_OLD_RELEASES))
async def test_go_server_over_stdio(tmp_path: Path, sdk: str) -> None:
    """Each failure reaches the host classified, on the right channel, scrubbed; progress passes."""
    server = go_server_stdio(sdk)
    direct = await call_all(server, CALLS)
    command = proxy_command(tmp_path, "--", server.command, *server.args)
    proxied = await call_all(StdioServerParameters(command=command[0], args=command[1:]), CALLS)
    assert_proxied(direct, proxied, tmp_path)


@pytest.mark.parametrize("sdk", (*GO_SDKS, *GO_OLD_RELEASES))
async def test_go_server_over_http(tmp_path: Path, sdk: str) -> None:
    """The same over streamable HTTP, ``--listen`` in front of the server."""
    listen = free_port()
    with go_server_http(sdk) as url:
        direct = await call_all(url, CALLS)
        with serving(proxy_command(tmp_path, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen):
            proxied = await call_all(f"http://127.0.0.1:{listen}/mcp", CALLS)
    assert_proxied(direct, proxied, tmp_path)


async def test_a_panic_that_kills_the_go_server(tmp_path: Path) -> None:
    """go-sdk does not recover a tool's panic: the server process dies mid-call. The proxy answers that call
    (``upstream_unavailable``, may have happened), stays up, and starts the server again for the next call."""
    server = go_server_stdio("gosdk")
    command = proxy_command(tmp_path, "--", server.command, *server.args)
    seen = await call_all(StdioServerParameters(command=command[0], args=command[1:]),
                          {"explode": ("explode", {}), "after": ("add", {"a": 2, "b": 3})})
    assert seen["explode"]["meta"]["io.errscope/failure_class"] == "upstream_unavailable", seen["explode"]
    assert not any(fragment in seen["explode"]["text"] for fragment in STACK_FRAGMENTS)
    assert (seen["after"]["channel"], seen["after"]["text"]) == (None, "5")
    assert not any(fragment in telemetry_text(tmp_path) for fragment in STACK_FRAGMENTS)


@pytest.mark.parametrize("sdk", ["gosdk", *GO_OLD_RELEASES])
async def test_an_oversized_error_answer_through_the_proxy(tmp_path: Path, sdk: str) -> None:
    """go-sdk's 2 MiB error text (an HTML table, the key at its end) reaches the host classified, short and without
    the key; the server's next answer still passes."""
    server = go_server_stdio(sdk)
    command = proxy_command(tmp_path, "--", server.command, *server.args)
    proxied = await call_all(StdioServerParameters(command=command[0], args=command[1:]),
                             {"dump": ("dump", {}), "add": ("add", {"a": 2, "b": 3})})
    dump = proxied["dump"]
    assert dump["meta"]["io.errscope/failure_class"] == "upstream_unavailable", dump
    assert len(dump["text"]) <= 1000 and FAKE_SECRET not in json.dumps(proxied)
    assert proxied["add"]["text"] == "5"
    assert FAKE_SECRET not in telemetry_text(tmp_path)
