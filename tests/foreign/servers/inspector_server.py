"""The tests' tool catalogue plus one idempotent tool, for the MCP Inspector CLI: ``python inspector_server.py STYLE stdio``
or ``... STYLE http PORT``.

STYLE is ``mcpserver`` (``mcp``'s ``MCPServer``) or ``fastmcp`` (FastMCP). The server is instrumented with errscope
(telemetry to ``$ERRSCOPE_OUT`` as OTLP-JSON files) unless ``ERRSCOPE_DISABLE=1``. It runs as a script (no ``-m``):
the Inspector CLI's variadic ``--tool-arg`` would otherwise swallow the command's own flags.
"""

import os
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[3]), str(Path(__file__).resolve().parents[3] / "instrumentation")]

import errscope  # noqa: E402
from errscope._setup import configure_telemetry  # noqa: E402
from errscope.idempotency import Idempotency, idempotency_key_of, keys_honoured  # noqa: E402
from tests.servers.catalogue import BUILDERS  # noqa: E402

REFUNDS = Idempotency()
RUNS = {"refunds": 0}
"""How many refunds really ran in this process (a replayed key does not count)."""


def build(style: str) -> object:
    """The catalogue in ``style`` plus ``refund_order``, which deduplicates on errscope's idempotency key."""
    server = BUILDERS[style]()
    if style == "fastmcp":
        from fastmcp import Context
    else:
        from mcp.server.mcpserver import Context

    @keys_honoured
    async def refund_order(order_id: str, amount: int, ctx: Context) -> str:  # type: ignore[valid-type]
        """Refund an order (runs once per idempotency key)."""

        async def refund(headers: dict[str, str]) -> str:
            RUNS["refunds"] += 1
            return f"refunded {amount} on {order_id} (refund #{RUNS['refunds']})"

        arguments = {"order_id": order_id, "amount": amount}
        return await REFUNDS.run(idempotency_key_of(ctx), tool="refund_order", arguments=arguments, action=refund)

    if style == "fastmcp":
        server.tool(refund_order)  # type: ignore[attr-defined]
    else:
        server.add_tool(refund_order)  # type: ignore[attr-defined]
    return server


def main() -> None:
    style, transport = sys.argv[1], sys.argv[2]
    server = build(style)
    telemetry = None
    if os.environ.get("ERRSCOPE_DISABLE") != "1":
        telemetry = configure_telemetry(f"inspector-{style}", output_dir=os.environ.get("ERRSCOPE_OUT", "errscope-out"))
        errscope.instrument(server, **telemetry.providers)
    try:
        if transport == "stdio":
            server.run("stdio")  # type: ignore[attr-defined]
        else:
            import uvicorn

            if style == "fastmcp":
                app = server.http_app(path="/mcp")  # type: ignore[attr-defined]
            else:
                app = server.streamable_http_app(host="127.0.0.1")  # type: ignore[attr-defined]
            uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[3]), log_level="warning")
    finally:
        if telemetry is not None:
            telemetry.shutdown()


if __name__ == "__main__":
    main()
