"""A FastMCP 4 app with errscope, served over stdio: ``python examples/fastmcp_stdio.py``.

Needs the extras ``fastmcp`` and ``cli`` (``configure_telemetry``):
``pip install '/path/to/mcp-errscope[cli,fastmcp]'``.
"""

from fastmcp import FastMCP

import errscope

app = FastMCP("inventory")


@app.tool
async def reserve(sku: str, quantity: int) -> str:
    """Reserve stock for a SKU."""
    if quantity > 10:
        raise errscope.RateLimited(public_message="reservations are limited to 10 per minute", retry_after=60)
    return f"reserved {quantity} x {sku}"


if __name__ == "__main__":
    telemetry = errscope.configure_telemetry("inventory", output_dir="errscope-out")
    errscope.instrument(app, **telemetry.providers)
    try:
        app.run("stdio")
    finally:
        telemetry.shutdown()
