"""Server side of the load/fault test, in its own process (the client gets the other core).

Serves the counting upstream and the errscope-instrumented MCP server (``servers/app.py``) on
127.0.0.1, exports every server span as a JSON line to SPANS_FILE, and answers a ``stats`` tool with
the upstream's counters and the server's in-flight count.

Usage: python load_server.py MCP_PORT|stdio UPSTREAM_PORT SPANS_FILE STALL_RATIO STALL_SECONDS
(``stdio``: the MCP server speaks on stdin/stdout; the upstream is listening before it does).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
import uvicorn
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.client.servers.app import ToolServer, Upstream  # noqa: E402


class JsonLinesExporter(SpanExporter):
    def __init__(self, path: str) -> None:
        self._file = open(path, "a", buffering=1)  # noqa: SIM115 - lives as long as the process

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        for span in spans:
            self._file.write(
                json.dumps(
                    {
                        "name": span.name,
                        "kind": span.kind.name,
                        "span_id": f"{span.context.span_id:016x}",
                        "parent_id": f"{span.parent.span_id:016x}" if span.parent else None,
                        "attributes": {k: v for k, v in (span.attributes or {}).items() if isinstance(v, (str, int, float, bool))},
                    }
                )
                + "\n"
            )
        return SpanExportResult.SUCCESS


async def main() -> None:
    mcp_port, upstream_port, spans_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    stall_ratio, stall_seconds = float(sys.argv[4]), float(sys.argv[5])
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLinesExporter(spans_file)))
    upstream = Upstream(stall_ratio=stall_ratio, stall_seconds=stall_seconds, seed=11)
    rig = ToolServer(f"http://127.0.0.1:{upstream_port}/", {"tracer_provider": provider})
    server = rig.build()

    @server.tool()
    def stats() -> str:
        """Counters for the test: upstream effects, distinct keys applied, stalled keys, in-flight tools."""
        return json.dumps(
            {
                "effects": upstream.effects,
                "requests": upstream.requests,
                "applied": len(upstream.applied),
                "stalled": upstream.stalled,
                "in_flight": rig.in_flight,
            }
        )

    @server.tool()
    def configure(stall_ratio: float, stall_seconds: float) -> str:
        """Change how often and how long the upstream stalls (the test calibrates with no stalls first)."""
        upstream.stall_ratio, upstream.stall_seconds = stall_ratio, stall_seconds
        upstream.stalled.clear()
        return "ok"

    upstream_server = uvicorn.Server(
        uvicorn.Config(upstream.app(), host="127.0.0.1", port=upstream_port, log_level="warning")
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(upstream_server.serve)
        if mcp_port == "stdio":
            while not upstream_server.started:
                await anyio.sleep(0.01)
            await server.run_stdio_async()
            tg.cancel_scope.cancel()
            return
        app = server.streamable_http_app()
        tg.start_soon(uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=int(mcp_port), log_level="warning")).serve)


if __name__ == "__main__":
    anyio.run(main)
