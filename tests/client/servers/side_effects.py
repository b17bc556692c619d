"""An errscope-instrumented MCPServer whose tools each send one request to a mail upstream (a side
effect the upstream counts). Run: ``side_effects.py stdio UPSTREAM_URL`` or
``side_effects.py http PORT UPSTREAM_URL``.

- ``send_mail``: declares nothing: not safe to repeat;
- ``send_mail_hinted``: ``annotations.idempotentHint: true``, forwards the caller's key upstream;
- ``send_mail_keyed``: runs its side effect through :class:`errscope.idempotency.Idempotency`
  (errscope declares it in ``tools/list`` by itself).

Upstream failures propagate as httpx exceptions: errscope classifies them (503, 429 with or
without ``Retry-After``, read timeout).
"""

from __future__ import annotations

import sys

import httpx
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

import errscope
from errscope.idempotency import IDEMPOTENCY_HEADER, Idempotency, idempotency_key_of, keys_honoured

transport = sys.argv[1]
UPSTREAM = sys.argv[-1]
server = MCPServer("mail", log_level="WARNING")
idempotency = Idempotency()


async def _send(to: str, headers: dict[str, str], read_timeout: float) -> str:
    async with httpx.AsyncClient(base_url=UPSTREAM, timeout=httpx.Timeout(10, read=read_timeout)) as http:
        response = await http.post("/mail", json={"to": to}, headers=headers)
        response.raise_for_status()
        return str(response.json()["message_id"])


@server.tool()
async def send_mail(to: str, read_timeout: float = 10) -> str:
    """Send an e-mail (not safe to repeat)."""
    return await _send(to, {}, read_timeout)


@server.tool(annotations=ToolAnnotations(idempotentHint=True))
async def send_mail_hinted(to: str, ctx: Context, read_timeout: float = 10) -> str:
    """Send an e-mail; the upstream deduplicates on the forwarded key."""
    key = idempotency_key_of(ctx)
    return await _send(to, {IDEMPOTENCY_HEADER: key} if key else {}, read_timeout)


@server.tool()
@keys_honoured
async def send_mail_keyed(to: str, ctx: Context, read_timeout: float = 10) -> str:
    """Send an e-mail at most once per idempotency key (errscope.idempotency)."""

    async def act(headers: dict[str, str]) -> str:
        return await _send(to, headers, read_timeout)

    return await idempotency.run(idempotency_key_of(ctx), tool="send_mail_keyed", arguments={"to": to}, action=act)


errscope.instrument(server, capture_httpx=False)

if __name__ == "__main__":
    if transport == "http":
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        server.run("stdio")
