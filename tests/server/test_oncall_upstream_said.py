"""On call from the ref to what the upstream answered: the error response a tool's HTTP client raised for.

``str()`` of httpx's ``HTTPStatusError`` and requests' ``HTTPError`` names only the status and the URL. Whether a 401
was an expired token or a missing scope (RFC 6750 §3: ``WWW-Authenticate: Bearer error="invalid_token"``), whether a
503 was a gateway's own page (``Server: nginx``) or the service's, which quota a 429 hit: that is only in the response,
and the failure's log record (``errscope.upstream.message``, which ``errscope explain`` and the triage dashboard's
"Root cause" panel show) keeps it, scrubbed. The model's text stays the class wording.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, real httpx, aiohttp and requests against a real HTTP server
on 127.0.0.1; the real SDK client in process.
"""

from __future__ import annotations

import aiohttp
import httpx
import pytest
import requests
from mcp import Client

import errscope
from errscope._attributes import ERRSCOPE_ERROR_REF, ERRSCOPE_FAILURE_CLASS, ERRSCOPE_UPSTREAM_MESSAGE
from errscope.testing import CapturedTelemetry
from tests.classification.upstreams import HttpUpstream
from tests.server.test_heldout_cases import text_of
from tests.servers.catalogue import BUILDERS

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

TOKEN = "ghp_FAKEexpiredToken0123456789abcdefghijkl"
NGINX_503 = (b"<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 "
             b"Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n")


def record_for(telemetry: CapturedTelemetry, text: str):
    (record,) = [r for r in telemetry.log_records if getattr(r, ERRSCOPE_ERROR_REF, None) and
                 getattr(r, ERRSCOPE_ERROR_REF) in text]
    return record


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_what_the_upstream_answered_reaches_the_log_record(style: str, telemetry: CapturedTelemetry) -> None:
    """An expired OAuth token (401 with its RFC 6750 challenge), a gateway's 503 page and a 429 whose body names the
    quota and echoes the key: each failure's log record says what the upstream answered, the key scrubbed."""
    with HttpUpstream() as upstream:
        expired = upstream.scripted(
            401, b'{"error":"invalid_token","error_description":"The access token expired"}',
            {"WWW-Authenticate": 'Bearer realm="api", error="invalid_token", error_description="The access token expired"',
             "Content-Type": "application/json"})
        gateway = upstream.scripted(503, NGINX_503, {"Server": "nginx/1.25.3", "Content-Type": "text/html"})
        quota = upstream.scripted(429, f'{{"error":"quota exceeded: 500 searches/day for key {TOKEN}"}}'.encode(),
                                  {"Retry-After": "30", "Content-Type": "application/json"})
        server = BUILDERS[style]()
        add = server.tool if style == "fastmcp" else server.add_tool

        async def profile() -> str:
            """The signed-in user's profile."""
            async with httpx.AsyncClient() as http:
                response = await http.get(f"{expired}/me", headers={"Authorization": f"Bearer {TOKEN}"})
                response.raise_for_status()
                return response.text

        async def stock() -> str:
            """Stock levels, through the gateway."""
            async with httpx.AsyncClient() as http:
                response = await http.get(f"{gateway}/stock")
                response.raise_for_status()
                return response.text

        async def settings() -> str:
            """The user's settings (aiohttp, which raises with the status and headers, not the body)."""
            async with aiohttp.ClientSession(raise_for_status=True) as session:
                async with session.get(f"{expired}/settings", headers={"Authorization": f"Bearer {TOKEN}"}) as response:
                    return await response.text()

        def search(query: str) -> str:
            """Search (requests, a sync tool)."""
            response = requests.get(f"{quota}/search", params={"q": query}, timeout=5)
            response.raise_for_status()
            return response.text

        for tool in (profile, settings, stock, search):
            add(tool)
        errscope.instrument(server, **telemetry.providers)
        target = server._mcp_server if style == "fastmcp" else server
        async with Client(target, mode="legacy") as client:
            texts = {name: text_of(await client.call_tool(name, args))
                     for name, args in (("profile", {}), ("settings", {}), ("stock", {}), ("search", {"query": "boots"}))}
    said = {name: getattr(record_for(telemetry, text), ERRSCOPE_UPSTREAM_MESSAGE, None) for name, text in texts.items()}
    assert said["profile"] is not None and 'WWW-Authenticate: Bearer realm="api", error="invalid_token", ' \
        'error_description="The access token expired"' in said["profile"], said
    assert said["settings"] is not None and 'error_description="The access token expired"' in said["settings"], said
    assert said["stock"] is not None and "Server: nginx/1.25.3" in said["stock"], said
    assert said["stock"].endswith("503 Service Temporarily Unavailable") and "<" not in said["stock"], said
    assert said["search"] is not None and "quota exceeded: 500 searches/day" in said["search"], said
    assert TOKEN not in str(said) and all(TOKEN not in text for text in texts.values())
    classes = {name: getattr(record_for(telemetry, text), ERRSCOPE_FAILURE_CLASS) for name, text in texts.items()}
    assert classes == {"profile": "permission_denied", "settings": "permission_denied", "stock": "upstream_unavailable",
                       "search": "rate_limited"}
    # The model is told the class's advice, never what the upstream said; for credentials the upstream rejected (401),
    # that signing in again helps and granting access does not.
    assert "access token" not in texts["profile"] and "nginx" not in texts["stock"] and "quota" not in texts["search"]
    for name in ("profile", "settings"):
        assert "rejected the credentials" in texts[name] and "sign in again" in texts[name], texts[name]
        assert "grant access" not in texts[name], texts[name]


async def test_a_sibling_request_the_task_group_cancelled_is_not_said_to_have_never_been_sent(tmp_path) -> None:
    """A tool fans out with ``asyncio.TaskGroup``: the ledger refuses the connection (the call's root cause, nothing
    sent), and the group cancels the refund request already waiting on the payments API. ``errscope explain`` must not
    carry the refused connection's "never reached it" over to the refund request, which was written and may have been
    applied: only the failing request gets the tool span's side-effect verdict."""
    import asyncio

    from errscope._explain import find_chains, render
    from errscope._otlp_json import load
    from errscope._setup import configure_telemetry
    from tests.classification.upstreams import closed_port

    out = tmp_path / "telemetry"
    exported = configure_telemetry("oncall-fanout", output_dir=out, set_global=False)
    with HttpUpstream() as upstream:
        stalled, refused = upstream.failing("stall"), f"http://127.0.0.1:{closed_port()}"
        server = BUILDERS["mcpserver"]()

        async def refund_and_record(order_id: str) -> str:
            """Refund the order and write it to the ledger, concurrently."""
            async with httpx.AsyncClient(timeout=30) as http:
                async def refund() -> None:
                    (await http.post(f"{stalled}/refunds", json={"order_id": order_id})).raise_for_status()

                async def record() -> None:
                    await asyncio.sleep(0.3)  # the refund request is on the wire first
                    (await http.post(f"{refused}/ledger", json={"order_id": order_id})).raise_for_status()

                async with asyncio.TaskGroup() as group:
                    group.create_task(refund())
                    group.create_task(record())
            return "refunded"

        server.add_tool(refund_and_record)
        errscope.instrument(server, **exported.providers)
        try:
            async with Client(server, mode="legacy") as client:
                text = text_of(await client.call_tool("refund_and_record", {"order_id": "ord_7"}))
        finally:
            exported.shutdown()
    [chain] = find_chains(load(out), text)
    rendered = render(chain)
    assert chain.tool is not None and chain.tool.get("errscope.failure_class") == "upstream_unavailable", rendered
    lines = {path: next(line for line in rendered.splitlines() if "[CLIENT]  POST" in line and f"/{path} " in line)
             for path in ("refunds", "ledger")}
    assert "the request never reached it" in lines["ledger"], rendered
    assert "never reached" not in lines["refunds"] and "may have been sent" in lines["refunds"], rendered
