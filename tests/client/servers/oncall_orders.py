"""An errscope-instrumented ``MCPServer`` whose tools call a real HTTP upstream, for the on-call walk from the model's text.

Run: ``oncall_orders.py UPSTREAM_URL OUT_DIR [ACCOUNTS_URL]`` (stdio). Telemetry goes to OTLP-JSON files in
``OUT_DIR`` (to OTLP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set). ``profile`` reads the user's profile from
``ACCOUNTS_URL`` (default ``UPSTREAM_URL``) with a bearer token.
``send_email`` declares nothing; ``get_quote`` declares ``idempotentHint``. Both POST/GET the upstream and raise for
its status (``httpx`` ``raise_for_status``). ``build_report`` is a sync tool (a worker thread): it works ``seconds``,
then POSTs the report to the upstream, also after the call was cancelled.
"""

import sys
import time

import httpx
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

import errscope

UPSTREAM, OUT = sys.argv[1], sys.argv[2]
ACCOUNTS = sys.argv[3] if len(sys.argv) > 3 else UPSTREAM
TOKEN = "ghp_FAKEoncallToken0123456789abcdefghijklm"
"""Not a credential: tests assert it reaches no telemetry."""
server = MCPServer("oncall-orders")


@server.tool()
async def send_email(to: str) -> str:
    """Send an e-mail (each call sends one more)."""
    async with httpx.AsyncClient(base_url=UPSTREAM) as http:
        response = await http.post("/emails", json={"to": to})
        response.raise_for_status()
        return "sent"


@server.tool(annotations=ToolAnnotations(idempotentHint=True))
async def get_quote(sku: str) -> str:
    """A price quote (repeats change nothing)."""
    async with httpx.AsyncClient(base_url=UPSTREAM) as http:
        response = await http.get(f"/quotes/{sku}")
        response.raise_for_status()
        return response.text


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def profile() -> str:
    """The signed-in user's profile."""
    async with httpx.AsyncClient(base_url=ACCOUNTS) as http:
        response = await http.get("/me", headers={"Authorization": f"Bearer {TOKEN}"})
        response.raise_for_status()
        return response.text


@server.tool()
def build_report(seconds: float) -> str:
    """Build the monthly report and file it (slow)."""
    time.sleep(seconds)
    httpx.post(f"{UPSTREAM}/reports", json={"month": "2026-11"}, timeout=5).raise_for_status()
    return "filed"


if __name__ == "__main__":
    telemetry = errscope.configure_telemetry("oncall-orders", output_dir=OUT)
    errscope.instrument(server, **telemetry.providers)
    try:
        server.run("stdio")
    finally:
        telemetry.shutdown()
