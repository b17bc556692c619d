"""Request ids on a real stdio server, every style: each id MCP allows is answered under that id,
each id it forbids gets -32600 with ``"id": null``, and a cancel never outlives its request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_adversarial import exported_spans
from tests.servers.wire import LEGACY, MODERN, StdioPeer

STYLES = ["lowlevel", "mcpserver", "fastmcp"]


@pytest.fixture(scope="module", params=[(s, LEGACY) for s in STYLES] + [("lowlevel", MODERN)], ids=lambda p: f"{p[0]}-{p[1]}")
def peer(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    style, era = request.param
    peer = StdioPeer(style, era, env={"ERRSCOPE_OUT": str(tmp_path_factory.mktemp("ids"))})
    yield peer
    peer.close()


def _frame(peer: StdioPeer, request_id: Any) -> bytes:
    params = peer.params({"name": "get_order", "arguments": {"order_id": "A-1"}})
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode() + b"\n"


class TestAllowedIds:
    def test_answered_under_the_same_id(self, peer: StdioPeer) -> None:
        """Strings (any, even empty) and integers (any size, negative) are answered under that id."""
        for request_id in (0, -5, 2**70, "", "req-ü-1", "x" * 300):
            peer.send_raw(_frame(peer, request_id))
            answer = peer.expect(lambda m, rid=request_id: "id" in m and m["id"] == rid and "result" in m)
            assert answer["result"]["isError"] is False, request_id

    def test_integral_number_is_an_integer(self, peer: StdioPeer) -> None:
        """``7.0`` is the integer 7 (JSON Schema ``integer``, as MCP's schema.json uses): served as 7."""
        peer.send_raw(_frame(peer, 4242.0))
        answer = peer.expect(lambda m: m.get("id") == 4242)
        assert answer["result"]["isError"] is False


class TestForbiddenIds:
    def test_invalid_request_with_null_id(self, peer: StdioPeer) -> None:
        """null (MCP forbids it), a fraction, a boolean, an object or an array: -32600, id null; serving goes on."""
        for request_id in (None, 1.5, True, False, {"a": 1}, [1]):
            peer.send_raw(_frame(peer, request_id))
            answer = peer.expect(lambda m: "error" in m and m.get("id") is None)
            assert answer["error"]["code"] == -32600, request_id
            assert "request id must be a string or an integer" in answer["error"]["message"]
            assert "Ref ERR-" in answer["error"]["message"]
        peer.send_raw(_frame(peer, 777001))
        assert peer.expect(lambda m: m.get("id") == 777001)["result"]["isError"] is False

    def test_notification_is_still_not_answered(self, peer: StdioPeer) -> None:
        """A real notification (no id member) gets no answer, even with "id" inside its params."""
        peer.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "id", "progress": 1, "id": 3}})
        assert peer.silent_for(0.5) == []


def _attribute(span: dict[str, Any], key: str) -> Any:
    for item in span["attributes"]:
        if item["key"] == key:
            return next(iter(item["value"].values()))
    return None


@pytest.mark.parametrize("style", STYLES)
def test_cancel_never_outlives_its_request(style: str, tmp_path: Path) -> None:
    """Issue #16 item 3: a cancel for a finished request, or for a cancelled one, marks no later request with the same id."""
    peer = StdioPeer(style, LEGACY, env={"ERRSCOPE_OUT": str(tmp_path)})
    try:
        call = {"name": "get_order", "arguments": {"order_id": "A-1"}}
        for _ in range(3):  # a stale cancel for id 77 after each answer, then id 77 again
            assert peer.request("tools/call", call, request_id=77)["result"]["isError"] is False
            peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 77}})
        assert peer.request("tools/call", call, request_id=77)["result"]["isError"] is False
        # A request really cancelled while running, then its id reused.
        peer.send({"jsonrpc": "2.0", "id": 78, "method": "tools/call",
                   "params": {"name": "export_report", "arguments": {"seconds": 30}}})
        peer.silent_for(0.3)
        peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 78}})
        peer.silent_for(0.3)
        assert peer.request("tools/call", call, request_id=78)["result"]["isError"] is False
    finally:
        peer.close()
    by_id: dict[str, list[str]] = {}
    for span in exported_spans(tmp_path):
        if _attribute(span, "mcp.method.name") == "tools/call":
            by_id.setdefault(_attribute(span, "jsonrpc.request.id"), []).append(_attribute(span, "errscope.outcome"))
    assert by_id["77"] == ["ok", "ok", "ok", "ok"]
    assert sorted(by_id["78"]) == ["cancelled", "ok"]
