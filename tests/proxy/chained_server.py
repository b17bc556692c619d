"""A plain Python ``MCPServer`` without errscope whose one tool fails for real and reports the failure the way a server
in another language prints a wrapped error: ``python -m tests.proxy.chained_server stdio``.

``call_upstream(style, url)`` makes a real HTTP request (httpx) to ``url`` (a closed port, a stalled listener, a
status), catches the real exception, and answers an ``isError`` result whose text is that exception's chain printed
in ``style``: Java's ``printStackTrace`` ("Caused by:"), Go's ``fmt.Errorf("…: %w")`` chain, Rust's anyhow (``{:?}``
"Caused by:" with numbered causes, ``{:#}`` one line), Python's "caused by:" and Node's ``[cause]:``. The outer
contexts name what was being attempted ("Permission check …", "invalid refund request …"): the innermost cause is
what happened. The real exception's words (its errno text, the port) are in each, and ``SECRET`` in the outer
context, which must reach neither the host nor telemetry.
"""

from __future__ import annotations

import sys

import httpx
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

SECRET = "sk_live_FAKEchainedSrv0000000000000"

server = MCPServer("chained")


def _cause(exc: BaseException) -> tuple[str, str]:
    """(Java-ish exception class, message) of the real failure, as the JVM's HttpClient would name it."""
    if isinstance(exc, httpx.ConnectError):
        return "java.net.ConnectException", "Connection refused"
    if isinstance(exc, httpx.ReadTimeout):
        return "java.net.SocketTimeoutException", "Read timed out"
    return "java.io.IOException", str(exc)


def _chain(style: str, url: str, exc: BaseException) -> str:
    host = httpx.URL(url).host
    port = httpx.URL(url).port
    if isinstance(exc, httpx.HTTPStatusError):
        status = exc.response.status_code
        reason = exc.response.reason_phrase
        inner = {"go": f"unexpected status {status} {reason}",
                 "rust_alt": f"HTTP status client error ({status} {reason}) for url ({url})"}.get(style, f"{status} {reason}")
    elif isinstance(exc, httpx.ConnectError):
        inner = {"go": f"dial tcp {host}:{port}: connect: connection refused",
                 "go_acl": f"dial tcp {host}:{port}: connect: connection refused",
                 "rust_alt": f"error sending request for url ({url}): tcp connect error: Connection refused (os error 111)",
                 }.get(style, "Connection refused")
    else:
        inner = {"go": "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                 "go_acl": "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                 "rust_alt": f"error sending request for url ({url}): operation timed out"}.get(style, "Read timed out")
    if style == "java":
        kind, message = _cause(exc)
        if isinstance(exc, httpx.HTTPStatusError):
            kind, message = "org.springframework.web.client.HttpServerErrorException", inner
        return (f"com.acme.billing.BillingException: Permission check for refund failed (api key {SECRET})\n"
                "\tat com.acme.billing.RefundService.refund(RefundService.java:88)\n"
                "\tat com.acme.billing.McpTools.refund(McpTools.java:31)\n"
                f"Caused by: {kind}: {message}\n"
                "\tat java.base/sun.nio.ch.Net.pollConnect(Native Method)\n"
                "\t... 12 more")
    if style == "go":
        return f"invalid refund request ord_1 (key {SECRET}): charge card: Post \"{url}\": {inner}"
    if style == "go_acl":
        return f"check permissions for ord_1 (key {SECRET}): Get \"{url}\": {inner}"
    if style == "rust_debug":  # reqwest's error sources, as anyhow's Debug numbers them
        causes = ("client error (Connect)\n    2: tcp connect error: Connection refused (os error 111)"
                  if isinstance(exc, httpx.ConnectError) else "operation timed out")
        return (f"access check for refund failed (key {SECRET})\n\nCaused by:\n    0: error sending request for url ({url})\n"
                f"    1: {causes}")
    if style == "rust_alt":
        return f"permission lookup failed (key {SECRET}): {inner}"
    if style == "python":
        return f"Not authorized to finish the refund (key {SECRET}) (caused by: {type(exc).__name__}: {inner})"
    if style == "node":
        return (f"Error: invalid refund state (key {SECRET})\n    at refund (/srv/app/tools.js:41:11) {{\n"
                f"  [cause]: Error: {inner}\n      at TCPConnectWrap.afterConnect (node:net:1607:16)\n}}")
    raise ValueError(style)


@server.tool()
async def call_upstream(style: str, url: str) -> CallToolResult:
    """Call the upstream at ``url`` and report its failure as a ``style`` error chain."""
    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(5, read=0.5)) as http:
            (await http.post(url, json={"order_id": "ord_1"})).raise_for_status()
    except httpx.HTTPError as exc:
        return CallToolResult(content=[TextContent(type="text", text=_chain(style, url, exc))], is_error=True)
    return CallToolResult(content=[TextContent(type="text", text="done")])


if __name__ == "__main__":
    assert sys.argv[1] == "stdio"
    server.run("stdio")
