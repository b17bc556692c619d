"""A plain Python ``MCPServer`` (no errscope) through ``errscope proxy``: classes, scrubbing, both eras."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from errscope._refs import ERROR_REF_PATTERN
from tests.proxy.conftest import PLAIN, free_port, proxy_command, serving, telemetry_text
from tests.proxy.plain_server import SECRET

pytestmark = pytest.mark.anyio

EXPECTED = {
    "crash": ("execution", "unknown"),
    "forbidden": ("execution", "permission_denied"),
    "rate_limited": ("execution", "rate_limited"),
    "refused": ("protocol", "unknown"),
    "no_such_tool": ("protocol", "not_found"),
}
"""Tool -> (channel, class) the host must see for each way of failing."""


async def failures(target: Any, era: str = "auto") -> dict[str, Any]:
    """Call each failing tool; return what the host received (result dict or error fields)."""
    seen: dict[str, Any] = {}
    async with Client(target, mode=era) as client:  # type: ignore[arg-type]
        assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
        for tool in EXPECTED:
            try:
                result = await client.call_tool(tool, {})
                seen[tool] = {"text": result.content[0].text, "meta": result.meta or {}, "is_error": result.is_error}
            except MCPError as exc:
                seen[tool] = {"text": exc.message, "meta": exc.data or {}, "code": exc.code}
    return seen


def assert_shaped(seen: dict[str, Any], out: Path) -> None:
    for tool, (channel, failure_class) in EXPECTED.items():
        answer = seen[tool]
        assert answer["meta"]["io.errscope/channel"] == channel, tool
        assert answer["meta"]["io.errscope/failure_class"] == failure_class, tool
        ref = answer["meta"]["io.errscope/error_ref"]
        assert ERROR_REF_PATTERN.fullmatch(ref), tool
        assert ("is_error" in answer) == (channel == "execution"), tool
        assert "/srv/app.py" not in answer["text"] and "10.0.0.5" not in answer["text"], tool
    assert seen["no_such_tool"]["code"] == -32602 and seen["no_such_tool"]["text"] == "Unknown tool: no_such_tool"
    assert seen["refused"]["code"] == -32050
    assert seen["crash"]["text"].endswith(f"Ref {seen['crash']['meta']['io.errscope/error_ref']}")
    wire = json.dumps(seen)
    assert SECRET not in wire
    _exported(out, [seen[tool]["meta"]["io.errscope/error_ref"] for tool in EXPECTED])
    assert SECRET not in telemetry_text(out)
    spans = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    attributes = [
        {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
        for line in spans for rs in line["resourceSpans"] for ss in rs["scopeSpans"] for span in ss["spans"]
    ]
    by_ref = {a.get("errscope.error_ref"): a for a in attributes}
    for tool, (channel, failure_class) in EXPECTED.items():
        span = by_ref[seen[tool]["meta"]["io.errscope/error_ref"]]
        assert (span["errscope.channel"], span["errscope.failure_class"]) == (channel, failure_class), tool
        assert span["errscope.upstream.system"] == "mcp", tool
    assert by_ref[seen["refused"]["meta"]["io.errscope/error_ref"]]["errscope.upstream.status"] == "-32050"
    assert by_ref[seen["crash"]["meta"]["io.errscope/error_ref"]]["errscope.upstream.status"] == "isError"
    assert '"tool call failed: ' in (out / "logs.jsonl").read_text()


def _exported(out: Path, refs: list[str], timeout: float = 15) -> None:
    """Wait until the spans of ``refs`` and a failure log are in ``out``: a running proxy exports in batches."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        spans = (out / "traces.jsonl").read_text() if (out / "traces.jsonl").exists() else ""
        logs = (out / "logs.jsonl").read_text() if (out / "logs.jsonl").exists() else ""
        if all(ref in spans for ref in refs) and '"tool call failed: ' in logs:
            return
        time.sleep(0.1)


async def test_stdio_failures_are_classified_and_scrubbed(tmp_path: Path) -> None:
    """Every way a foreign server fails reaches the host shaped, classified and without the planted secret.

    A protocol error's ``data`` reaches the host scrubbed, its stack-trace field dropped.
    """
    command = proxy_command(tmp_path, "--", *PLAIN, "stdio")
    seen = await failures(StdioServerParameters(command=command[0], args=command[1:], cwd=str(Path.cwd())))
    assert_shaped(seen, tmp_path)
    assert "trace" not in seen["refused"]["meta"]
    assert seen["refused"]["text"] == f"backend refused: api_key=[REDACTED] (Ref {seen['refused']['meta']['io.errscope/error_ref']})"


@pytest.fixture(scope="module")
def http_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The plain server on streamable HTTP with ``errscope proxy --listen`` in front: (proxy URL, telemetry dir)."""
    out = tmp_path_factory.mktemp("http-proxy")
    upstream, listen = free_port(), free_port()
    with serving([*PLAIN, "http", str(upstream)], upstream):
        url = f"http://127.0.0.1:{upstream}/mcp"
        batches = {"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_BLRP_SCHEDULE_DELAY": "100"}  # read while it runs
        with serving(proxy_command(out, "--upstream", url, "--listen", f"127.0.0.1:{listen}"), listen, env=batches):
            yield f"http://127.0.0.1:{listen}/mcp", out


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_http_failures_both_eras(http_proxy: tuple[str, Path], era: str) -> None:
    """The same over streamable HTTP, on the 2025-11-25 handshake era and the stateless 2026-07-28 era."""
    url, out = http_proxy
    seen = await failures(url, era)
    assert_shaped(seen, out)


async def test_errscope_inside_the_server_agrees() -> None:
    """errscope inside the same server gives each tool failure the class the proxy in front of it gives.

    ``forbidden`` raises a bare ``ToolError("GitHub API 403 Forbidden ...")``: both read its text with the
    client's rules (one class, wherever errscope sits).
    """
    from errscope.server import instrument, uninstrument
    from tests.proxy.plain_server import server

    instrument(server)
    try:
        seen = await failures(server)
    finally:
        uninstrument(server)
    for tool in ("crash", "forbidden", "rate_limited"):
        assert seen[tool]["meta"]["io.errscope/failure_class"] == EXPECTED[tool][1], tool


async def test_http_large_answer_passes_whole(http_proxy: tuple[str, Path]) -> None:
    """An answer spanning many reads of the SSE stream (with multi-byte characters) reaches the host intact."""
    url, _ = http_proxy
    text = "ünïcode ✓ " * 30_000  # ~330 KB on the wire
    async with Client(url, mode="legacy") as client:
        result = await client.call_tool("echo", {"text": text})
    assert not result.is_error and result.content[0].text == text


async def test_http_headers_are_the_servers(http_proxy: tuple[str, Path]) -> None:
    """The response carries the server's own Date and Server fields once each, none added by the proxy (RFC 9110 §6.6.1, §10.2.4)."""
    import httpx

    url, _ = http_proxy
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    async with httpx.AsyncClient() as client:
        response = await client.post(url, json=initialize, headers={"accept": "application/json, text/event-stream"})
    assert response.status_code == 200
    assert len(response.headers.get_list("date")) == 1
    assert response.headers.get_list("server") == ["uvicorn"]  # the plain server's (uvicorn), once
    assert '"protocolVersion"' in response.text


async def test_http_cookies_stay_with_their_host(tmp_path: Path) -> None:
    """The upstream's ``Set-Cookie`` reaches the host that was answered, and only that host's ``Cookie`` comes back:
    one host's cookie (say a load balancer's affinity cookie) is never sent on another host's requests (RFC 6265
    §3: cookies are the user agent's state, and the proxy is no user agent). The upstream is named ``localhost``,
    a host name whose cookies a client-side jar would keep."""
    import httpx

    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import gated, issues_server

    cookies: list[tuple[str, bytes]] = []  # (host, the Cookie field the upstream received)

    async def gate(scope: dict[str, Any], body: bytes, send: Any, method: str) -> bool:
        headers = dict(scope["headers"])
        host = headers.get(b"x-host", b"?").decode()
        cookies.append((host, headers.get(b"cookie", b"")))
        if method == "POST" and b'"initialize"' in body:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"application/json"), (b"set-cookie", f"affinity={host}; Path=/".encode())]})
            await send({"type": "http.response.body", "body": json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "gate", "version": "0"}}}).encode()})
            return True
        return False

    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    async with serve(gated(issues_server().streamable_http_app(host="127.0.0.1"), gate)) as base:
        listen = free_port()
        upstream = base.replace("127.0.0.1", "localhost") + "/mcp"
        with serving(proxy_command(tmp_path / "out", "--upstream", upstream, "--listen", f"127.0.0.1:{listen}"), listen):
            url = f"http://127.0.0.1:{listen}/mcp"
            async with httpx.AsyncClient(headers={"accept": "application/json, text/event-stream"}) as a, httpx.AsyncClient(
                headers={"accept": "application/json, text/event-stream"}
            ) as b:
                first = await a.post(url, json=initialize, headers={"x-host": "a"})
                await b.post(url, json=initialize, headers={"x-host": "b"})
                await a.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={"x-host": "a"})
                await b.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={"x-host": "b"})
    assert first.headers["set-cookie"] == "affinity=a; Path=/"
    assert cookies == [("a", b""), ("b", b""), ("a", b"affinity=a"), ("b", b"affinity=b")]
