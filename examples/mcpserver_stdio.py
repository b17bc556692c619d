"""An MCPServer with errscope, served over stdio: ``python examples/mcpserver_stdio.py``.

Telemetry goes to OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else to ./errscope-out/*.jsonl
(``configure_telemetry``: the ``cli`` extra, which ``make demo`` installs).
"""

import httpx
from mcp.server.mcpserver import MCPServer

import errscope

app = MCPServer("orders")


@app.tool()
async def get_order(order_id: str) -> str:
    """Fetch an order by id."""
    if not order_id.startswith("A-"):
        raise errscope.NotFound(public_message=f"there is no order {order_id}")
    async with httpx.AsyncClient() as client:  # upstream calls become child spans
        response = await client.get(f"http://127.0.0.1:9/orders/{order_id}", timeout=2)
        response.raise_for_status()  # 404 → not_found, 429 → rate_limited, 5xx → upstream_unavailable
        return response.text


if __name__ == "__main__":
    telemetry = errscope.configure_telemetry("orders", output_dir="errscope-out")
    errscope.instrument(app, **telemetry.providers)
    try:
        app.run("stdio")
    finally:
        telemetry.shutdown()
