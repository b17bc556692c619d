"""Server side of tests/heldout_cases.md, seventh round (J151, J152): a tool's own ``isError`` result whose failure is
told in content that is not a text block (an embedded resource, an image).

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument`` and the real SDK client in process.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from mcp_types import CallToolResult, EmbeddedResource, ImageContent, TextResourceContents

from errscope._attributes import ERRSCOPE_ERROR_REF, ERRSCOPE_FAILURE_CLASS, META_ERROR_REF
from errscope.testing import CapturedTelemetry
from tests.server.test_heldout_cases import serving

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SCREENSHOT = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8).decode()


async def deploy_service(service: str) -> CallToolResult:
    """A deploy tool that returns its failure as the deploy log, an embedded text resource."""
    log = TextResourceContents(uri=f"file:///deploys/{service}.log", mime_type="text/plain",
                               text=f"pulling {service}: registry.internal.example answered 503 Service Unavailable")
    return CallToolResult(content=[EmbeddedResource(type="resource", resource=log)], is_error=True)


async def capture_page(url: str) -> CallToolResult:
    """A browser tool that returns its failure as a screenshot of the error page, nothing else."""
    return CallToolResult(content=[ImageContent(type="image", data=SCREENSHOT, mime_type="image/png")], is_error=True)


def tool_span(telemetry: CapturedTelemetry) -> Any:
    (span,) = [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]
    return span


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j151_a_tools_own_error_told_in_an_embedded_resource(style: str, telemetry: CapturedTelemetry) -> None:
    """J151 (J139 on the server: NousResearch/hermes-agent PR #38463, charmbracelet/crush PR #3907; MCP 2025-11-25, Tools
    > Embedded Resources). A tool returns ``isError`` whose only content is its deploy log as an embedded text resource.
    The server's span reads the class from that text as it would from a text block: ``upstream_unavailable``, not the
    ``unknown`` that alerts as a mapping gap."""
    async with serving(style, "legacy", telemetry, deploy_service) as served:
        result = await served.call("deploy_service", {"service": "billing"})
    assert isinstance(result, CallToolResult) and result.is_error
    assert tool_span(telemetry).attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable"


@pytest.mark.parametrize("style", ["mcpserver", "fastmcp"])
async def test_j152_a_tools_own_error_that_is_only_an_image(style: str, telemetry: CapturedTelemetry) -> None:
    """J152 (J140 on the server: microsoft/vscode PR #330709, frontman-ai/frontman #1545). A tool's ``isError`` result holds
    only a screenshot. The call still gets a ref the user can quote (in ``_meta``, on the span, and in a text block the
    model reads), and the image is kept."""
    async with serving(style, "legacy", telemetry, capture_page) as served:
        result = await served.call("capture_page", {"url": "http://127.0.0.1:9/"})
    assert isinstance(result, CallToolResult) and result.is_error
    ref = tool_span(telemetry).attributes[ERRSCOPE_ERROR_REF]
    assert (result.meta or {}).get(META_ERROR_REF) == ref
    assert any(ref in getattr(block, "text", "") for block in result.content), result.content
    assert any(block.type == "image" and block.data == SCREENSHOT for block in result.content)
