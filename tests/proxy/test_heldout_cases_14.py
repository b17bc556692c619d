"""``errscope proxy`` side of tests/heldout_cases.md, fourteenth round (J274-J276): J262, J263 and J265 across the relay.

The upstream is the raw foreign stdio peer (``tests/client/servers/heldout_peer.py``, logging every frame it received);
the relay is the real ``errscope proxy`` command as a subprocess; the host is a raw JSON-RPC host on its stdin/stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from tests.proxy.test_heldout_cases_3 import RawHost
from tests.proxy.test_heldout_cases_5 import exported_spans
from tests.proxy.test_heldout_cases_12 import call, relay_classes, relayed

pytestmark = [pytest.mark.timeout(90), pytest.mark.anyio]


async def test_j274_grpc_statuses_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J274 (J262 across the relay: grpc-go's, grpc-java's and grpc-js's status texts from the upstream's tools). The
    relay's spans read the gRPC table's classes, not ``unknown``; each call reached the upstream once."""
    classes, _ = await relay_classes(tmp_path, hosts, {
        "create_order": "rpc error: code = AlreadyExists desc = order ORD-7 already exists",
        "reserve_seat": "io.grpc.StatusRuntimeException: ABORTED: transaction conflict",
        "render_report": "8 RESOURCE_EXHAUSTED: Bandwidth exhausted or memory limit exceeded",
    })
    assert classes == {"create_order": "invalid_input", "reserve_seat": "upstream_unavailable",
                       "render_report": "rate_limited"}, classes


async def test_j275_the_cause_only_in_error_data_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J275 (J263 across the relay: an rmcp upstream's ``internal_error("IO operation failed", Some(json!({"error":
    ...})))``). The relay's span takes the class from ``data`` (``upstream_unavailable``), the host gets the -32603
    with a ref, and the write reached the upstream once."""
    host, log = relayed(tmp_path, {"write_file": {"error": {"code": -32603, "message": "IO operation failed", "data": {
        "error": "Connection refused (os error 111)"}}}})
    hosts.append(host)
    frame = call(host, 10, "write_file")
    host.close()
    assert frame["error"]["code"] == -32603 and "Ref ERR-" in frame["error"]["message"], frame
    spans = await exported_spans(tmp_path / "out", "tools/call write_file")
    assert [s.attributes.get(ERRSCOPE_FAILURE_CLASS) for s in spans] == ["upstream_unavailable"], spans
    assert len(log.received("tools/call")) == 1


async def test_j276_a_disabled_tool_behind_a_proxy(tmp_path: Path, hosts: list[RawHost]) -> None:
    """J276 (J265 across the relay: the TypeScript SDK's -32602 "Tool send_invoice disabled"). The relay answers the host
    as for an unknown tool (-32602 "Unknown tool: send_invoice"; the span ``not_found``), never as rejected arguments.
    The relay read such a text as the upstream's unknown tool only for a tool it had not seen listed: a listed tool's
    text that names the tool itself is now read the same way (a text naming another tool still is that tool's own
    failure)."""
    host, _ = relayed(tmp_path, {"send_invoice": {"error": {"code": -32602, "message": "Tool send_invoice disabled"}}})
    hosts.append(host)
    frame = call(host, 10, "send_invoice")
    host.close()
    assert frame["error"]["code"] == -32602, frame
    assert "argument" not in frame["error"]["message"].lower(), frame
    # a tool the upstream does not offer is no span-name value (bounded cardinality): the span is "tools/call"
    spans = await exported_spans(tmp_path / "out", "tools/call")
    assert [s.attributes.get(ERRSCOPE_FAILURE_CLASS) for s in spans] == ["not_found"], spans
