"""Server side of tests/heldout_cases.md, twenty-second round (J399, J400): real HTTP clients whose forward proxy
refused the ``CONNECT`` tunnel, and a task group whose upstream failure is not its first member, in a tool.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in process; J399's tools call
``https://api.example.test`` through a proxy on 127.0.0.1 that answers every request (so ``CONNECT`` too) with one
status; J400's posts with httpx to a closed port on 127.0.0.1 inside an anyio task group.
"""

from __future__ import annotations

import anyio
import httpx
import pytest
import requests
from errscope._attributes import (
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_SIDE_EFFECT_POSSIBLE,
    ERRSCOPE_UPSTREAM_ADDRESS,
    ERRSCOPE_UPSTREAM_STATUS,
)
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST, answering, closed_port
from tests.server.test_heldout_cases import serving

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]
PROXY: dict[str, str] = {}


async def charge_with_requests(amount: int) -> str:
    """Charge a card (requests through the proxy, in a worker thread)."""
    def post() -> None:
        requests.post("https://api.example.test/v1/charges", json={"amount": amount},
                      proxies={"https": PROXY["url"]}, timeout=5)

    await anyio.to_thread.run_sync(post)
    return "charged"


async def charge_with_httpx(amount: int) -> str:
    """Charge a card (httpx through the proxy)."""
    async with httpx.AsyncClient(proxy=PROXY["url"], timeout=5) as client:
        await client.post("https://api.example.test/v1/charges", json={"amount": amount})
    return "charged"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("tool", [charge_with_requests, charge_with_httpx])
@pytest.mark.parametrize(("status", "failure_class"), [(502, "upstream_unavailable"), (407, "permission_denied")])
async def test_j399_proxy_refused_the_tunnel(style: str, tool: object, status: int, failure_class: str,
                                             telemetry: CapturedTelemetry) -> None:
    """J399 (cubewise-code/tm1py #531 and kivy/kivy #6873: "ProxyError('Unable to connect to proxy', OSError('Tunnel
    connection failed: 407 Proxy Authentication Required'))"; vulnersCom/api PR #62: httpx's ``ProxyError`` "407 Proxy
    Authentication Required" retried needlessly; yt-dlp/yt-dlp #9434: "Tunnel connection failed: 403 Forbidden"). A
    tool's ``HTTPS_PROXY`` refuses ``CONNECT``. The charge never reached the payment API (RFC 9110 §9.3.6): side effect
    false whatever the proxy's status (its 502 is no origin's 502); 407 is the proxy refusing the tool's credential."""
    with answering(status, "refused") as port:
        PROXY["url"] = f"http://{HOST}:{port}"
        async with serving(style, "legacy", telemetry, tool) as served:
            result = await served.call(tool.__name__, {"amount": 100})  # type: ignore[attr-defined]
    assert not isinstance(result, Exception) and result.is_error, result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == failure_class, dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)


async def import_rows(rows: int) -> str:
    """Stream rows to the import API: a producer task feeds the uploader task through a memory object stream."""
    send, receive = anyio.create_memory_object_stream[int](0)
    port = closed_port()

    async def upload() -> None:
        receive.close()  # the uploader stops taking rows before its request...
        with anyio.CancelScope(shield=True):  # ...which it finishes even as the group cancels
            async with httpx.AsyncClient(timeout=5) as client:
                await client.post(f"http://{HOST}:{port}/v1/import", json={"rows": rows})

    async def produce() -> None:
        async with send:
            for row in range(rows):
                await send.send(row)

    async with anyio.create_task_group() as group:
        group.start_soon(produce)
        group.start_soon(upload)
    return "imported"


@pytest.mark.parametrize("style", STYLES)
async def test_j400_the_upstream_failure_is_not_the_group_s_first_member(style: str,
                                                                         telemetry: CapturedTelemetry) -> None:
    """J400 (matthewhand/mcp-openapi-proxy #5: "unhandled errors in a TaskGroup" whose one member is the stdio reader's
    ``anyio.BrokenResourceError`` out of ``anyio/streams/memory.py``; crystaldba/postgres-mcp #91; PEP 654 keeps a
    group's members in the order they were raised). A tool's producer task fails first with ``BrokenResourceError``
    (its consumer closed the stream), the consumer's POST then with ``httpx.ConnectError``. The decision and the root
    cause were the in-process stream's: no upstream address on the span or the log record, side effect "not known".
    A member an in-process channel raised only says a sibling ended: the ConnectError decides (not sent, its
    address), on the span, the exception event and the log record."""
    async with serving(style, "legacy", telemetry, import_rows) as served:
        result = await served.call("import_rows", {"rows": 3})
    assert not isinstance(result, Exception) and result.is_error, result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_UPSTREAM_STATUS) == "ConnectError", dict(span.attributes)
    assert str(span.attributes.get(ERRSCOPE_UPSTREAM_ADDRESS, "")).startswith(f"{HOST}:"), dict(span.attributes)
    (event,) = [e for e in span.events if e.name == "exception"]
    assert event.attributes["exception.type"] == "httpx.ConnectError", dict(event.attributes)
    (record,) = served.telemetry.log_records
    assert getattr(record, "exception.type") == "httpx.ConnectError"
