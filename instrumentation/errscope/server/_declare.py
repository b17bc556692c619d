"""``tools/list``: declare the tools that honour errscope idempotency keys.

A client may repeat a failed or timed-out call only for a tool the server declares safe to repeat
(DESIGN.md, "Idempotency keys"). errscope servers add ``_meta["io.errscope/idempotency_key_honoured"]:
true`` to the listing of every tool :func:`errscope.idempotency.honours_keys` names: tools marked with
:func:`errscope.idempotency.keys_honoured`, names declared by hand, and tools that have run
:meth:`errscope.idempotency.Idempotency.run`. The MCPServer and low-level
styles are wrapped here; FastMCP's listing goes through ``ErrscopeToolMiddleware.on_list_tools``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp_types import ListToolsResult, Tool
from pydantic import BaseModel

from errscope.idempotency import with_keys_honoured

__all__ = ["declare_honoured_keys", "declared", "undeclare_honoured_keys"]


_Listed = TypeVar("_Listed", bound=BaseModel)


def declared(tool: _Listed, fn: Callable[..., Any] | None = None) -> _Listed:
    """``tool`` with the honoured-key declaration in its ``_meta`` when it honours keys.

    ``tool`` is a listed tool with ``name`` and ``meta``: the SDK's ``mcp_types.Tool`` or FastMCP's ``Tool``.
    """
    meta = with_keys_honoured(tool.name, fn, tool.meta)  # type: ignore[attr-defined]
    return tool if meta is None else tool.model_copy(update={"meta": meta})


def declare_honoured_keys(server: Server[Any] | MCPServer) -> None:
    """Wrap the server's ``tools/list`` so its answer carries the declarations (idempotent)."""
    if isinstance(server, MCPServer):
        original = server.list_tools
        if getattr(original, "__errscope__", False):
            return

        async def list_tools() -> list[Tool]:
            def fn_of(name: str) -> Callable[..., Any] | None:
                info = server._tool_manager.get_tool(name)
                return None if info is None else info.fn

            return [declared(tool, fn_of(tool.name)) for tool in await original()]

        list_tools.__errscope__ = True  # type: ignore[attr-defined]
        server.list_tools = list_tools  # type: ignore[method-assign]
        return
    entry = server.get_request_handler("tools/list")
    if entry is None or getattr(entry.handler, "__errscope__", False):
        return
    handler = entry.handler

    async def handle_list_tools(ctx: Any, params: Any) -> Any:
        listed = await handler(ctx, params)
        if isinstance(listed, ListToolsResult):
            return listed.model_copy(update={"tools": [declared(tool) for tool in listed.tools]})
        return listed

    handle_list_tools.__errscope__ = True  # type: ignore[attr-defined]
    handle_list_tools.__wrapped__ = handler  # type: ignore[attr-defined]
    server.add_request_handler("tools/list", entry.params_type, handle_list_tools)


def undeclare_honoured_keys(server: Server[Any] | MCPServer) -> None:
    """Undo :func:`declare_honoured_keys`."""
    if isinstance(server, MCPServer):
        server.__dict__.pop("list_tools", None)
        return
    entry = server.get_request_handler("tools/list")
    if entry is not None and getattr(entry.handler, "__errscope__", False):
        server.add_request_handler("tools/list", entry.params_type, entry.handler.__wrapped__)
