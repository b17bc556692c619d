"""A low-level mcp Server with errscope, served over stdio: ``python examples/lowlevel_stdio.py``.

Telemetry as in ``mcpserver_stdio.py`` (``configure_telemetry``: the ``cli`` extra).
"""

import anyio
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

import errscope

TOOLS = [
    Tool(
        name="divide",
        description="Divide a by b.",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    )
]


async def list_tools(ctx, params) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params) -> CallToolResult:
    arguments = params.arguments or {}
    if arguments["b"] == 0:
        raise errscope.InvalidInput(field="b", expected="a non-zero number")
    return CallToolResult(content=[TextContent(type="text", text=str(arguments["a"] / arguments["b"]))])


server = Server("calculator", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    telemetry = errscope.configure_telemetry("calculator", output_dir="errscope-out")
    errscope.instrument(server, **telemetry.providers)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        telemetry.shutdown()


if __name__ == "__main__":
    anyio.run(main)
