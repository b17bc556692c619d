"""mcp-errscope: error architecture and observability for MCP tool calls."""

from errscope._vocabulary import Channel, FailureClass, Outcome

__all__ = ["Channel", "FailureClass", "Outcome"]
