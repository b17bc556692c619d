"""Run the catalogue as a real server process: ``python -m tests.servers.serve STYLE stdio|http [PORT]``.

Telemetry goes where the standard OTLP variables say, else to ``$ERRSCOPE_OUT`` as OTLP-JSON files.
``ERRSCOPE_DISABLE=1`` serves the same catalogue without errscope (the SDK's own behaviour).
"""

from __future__ import annotations

import os
import sys

import errscope
from errscope._setup import configure_telemetry
from tests.servers.catalogue import BUILDERS


def main() -> None:
    style, transport = sys.argv[1], sys.argv[2]
    server = BUILDERS[style]()
    telemetry = None
    if os.environ.get("ERRSCOPE_DISABLE") != "1":
        telemetry = configure_telemetry(f"catalogue-{style}", output_dir=os.environ.get("ERRSCOPE_OUT", "errscope-out"))
        errscope.instrument(server, **telemetry.providers)
    try:
        if transport == "stdio":
            _run_stdio(style, server)
        else:
            _run_http(style, server, int(sys.argv[3]))
    finally:
        if telemetry is not None:
            telemetry.shutdown()


def _run_stdio(style: str, server: object) -> None:
    import anyio

    if style == "lowlevel":
        from mcp.server.stdio import stdio_server

        async def serve() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())  # type: ignore[attr-defined]

        anyio.run(serve)
    else:
        server.run("stdio")  # type: ignore[attr-defined]


def _run_http(style: str, server: object, port: int) -> None:
    import uvicorn

    if style == "fastmcp":
        app = server.http_app(path="/mcp")  # type: ignore[attr-defined]
    else:
        app = server.streamable_http_app(host="127.0.0.1")  # type: ignore[attr-defined]
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
