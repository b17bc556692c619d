"""The server the MCP conformance suite expects, on ``MCPServer``: ``everything_server.py PORT [--errscope DIR]``.

Tool, resource and prompt names and contents follow the suite's server scenarios
(``conformance list --server``; each scenario's description states what it calls and expects). Streamable HTTP
on 127.0.0.1:PORT at ``/mcp``. With ``--errscope DIR`` the same server is wrapped by ``errscope.instrument`` and
its telemetry goes to OTLP-JSON files in DIR, so a test can compare the suite's verdicts with and without it.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp_types import (
    AudioContent,
    Completion,
    EmbeddedResource,
    EmptyResult,
    ImageContent,
    SamplingMessage,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    UnsubscribeRequestParams,
)
from pydantic import BaseModel, Field

# A 1x1 PNG and a 1-sample WAV, built here so the file holds no opaque blobs.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
        "0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082"
    )
).decode()
WAV = base64.b64encode(
    b"RIFF" + (38).to_bytes(4, "little") + b"WAVEfmt " + (16).to_bytes(4, "little")
    + (1).to_bytes(2, "little") + (1).to_bytes(2, "little") + (8000).to_bytes(4, "little")
    + (16000).to_bytes(4, "little") + (2).to_bytes(2, "little") + (16).to_bytes(2, "little")
    + b"data" + (2).to_bytes(4, "little") + b"\x00\x00"
).decode()

server = MCPServer("errscope-conformance-everything", version="1.0.0")


@server.tool()
def test_simple_text() -> str:
    """Return simple text."""
    return "This is a simple text response for testing."


@server.tool()
def test_image_content() -> list[ImageContent]:
    """Return an image."""
    return [ImageContent(type="image", data=PNG, mime_type="image/png")]


@server.tool()
def test_audio_content() -> list[AudioContent]:
    """Return audio."""
    return [AudioContent(type="audio", data=WAV, mime_type="audio/wav")]


@server.tool()
def test_embedded_resource() -> list[EmbeddedResource]:
    """Return an embedded resource."""
    text = TextResourceContents(uri="test://embedded-resource", mime_type="text/plain",
                                text="This is an embedded resource content.")
    return [EmbeddedResource(type="resource", resource=text)]


@server.tool()
def test_multiple_content_types() -> list[TextContent | ImageContent | EmbeddedResource]:
    """Return text, an image and a resource."""
    data = TextResourceContents(uri="test://mixed-content-resource", mime_type="application/json",
                                text=json.dumps({"test": "data", "value": 123}))
    return [
        TextContent(type="text", text="Multiple content types test:"),
        ImageContent(type="image", data=PNG, mime_type="image/png"),
        EmbeddedResource(type="resource", resource=data),
    ]


@server.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Send three log notifications while running."""
    for n, message in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if n:
            await anyio.sleep(0.05)
        await ctx.info(message)
    return "Logging test completed"


@server.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Report progress 0, 50, 100 of 100."""
    for n, progress in enumerate((0, 50, 100)):
        if n:
            await anyio.sleep(0.05)
        await ctx.report_progress(progress, 100)
    return "Progress test completed"


@server.tool()
def test_error_handling() -> str:
    """Always fail."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@server.tool()
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Ask the client's model."""
    # Related to the call, the request rides the call's own SSE stream; unrelated it would take the standalone GET
    # stream, which the client may not have opened yet (then it is lost and the call hangs).
    result = await ctx.session.create_message(
        [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=100,
        related_request_id=ctx.request_id,
    )
    content = result.content
    text = content.text if isinstance(content, TextContent) else str(content)
    return f"LLM response: {text}"


class UserResponse(BaseModel):
    username: str = Field(description="User's response")
    email: str = Field(description="User's email address")


@server.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Ask the user."""
    result = await ctx.elicit(message, UserResponse)
    content = result.data.model_dump() if result.action == "accept" and result.data else None
    return f"User response: action={result.action}, content={json.dumps(content)}"


class Defaults(BaseModel):
    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: str = Field(default="active", json_schema_extra={"enum": ["active", "inactive", "pending"]})
    verified: bool = True


@server.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Elicit with defaults for every primitive type."""
    result = await ctx.elicit("Please review and update the form fields with defaults", Defaults)
    content = result.data.model_dump() if result.action == "accept" and result.data else None
    return f"Elicitation completed: action={result.action}, content={json.dumps(content)}"


ENUM_SCHEMA: dict[str, Any] = {  # SEP-1330's five enum variants, as the scenario describes them
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string",
                         "oneOf": [{"const": f"value{n}", "title": f"Option {n}"} for n in (1, 2, 3)]},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array",
                        "items": {"anyOf": [{"const": f"value{n}", "title": f"Choice {n}"} for n in (1, 2, 3)]}},
    },
}


@server.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Elicit with every enum variant (the raw schema: MCPServer's model-based elicit cannot title enums)."""
    result = await ctx.session.elicit_form("Pick options", ENUM_SCHEMA, related_request_id=ctx.request_id)
    return f"Elicitation completed: action={result.action}, content={json.dumps(result.content)}"


@server.resource("test://static-text", name="static-text", description="A static text resource", mime_type="text/plain")
def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", description="A static PNG", mime_type="image/png")
def static_binary() -> bytes:
    return base64.b64decode(PNG)


@server.resource("test://watched-resource", name="watched-resource", description="A resource to subscribe to",
                 mime_type="text/plain")
def watched_resource() -> str:
    return "Watched resource content."


@server.resource("test://template/{id}/data", name="template-data", description="Data by id",
                 mime_type="application/json")
def template_data(id: str) -> str:  # noqa: A002 - the template's parameter name
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.prompt()
def test_simple_prompt() -> str:
    """A prompt without arguments."""
    return "This is a simple prompt for testing."


@server.prompt()
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two arguments."""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt()
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Message]:  # noqa: N803 - the suite's name
    """A prompt embedding a resource."""
    text = TextResourceContents(uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing.")
    return [
        UserMessage(content=EmbeddedResource(type="resource", resource=text)),
        UserMessage(content="Please process the embedded resource above."),
    ]


@server.prompt()
def test_prompt_with_image() -> list[Message]:
    """A prompt with an image."""
    return [
        UserMessage(content=ImageContent(type="image", data=PNG, mime_type="image/png")),
        UserMessage(content="Please analyze the image above."),
    ]


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Completion:
    return Completion(values=[], total=0, has_more=False)


# logging/setLevel and resources/(un)subscribe are 2025-era methods MCPServer does not serve itself; the SDK
# points to the low-level Server's add_request_handler for them (mcp.server.extension.MethodBinding docs).
async def _empty(ctx: Any, params: Any) -> EmptyResult:
    return EmptyResult()


for method, params_type in (
    ("logging/setLevel", SetLevelRequestParams),
    ("resources/subscribe", SubscribeRequestParams),
    ("resources/unsubscribe", UnsubscribeRequestParams),
):
    server._lowlevel_server.add_request_handler(method, params_type, _empty)


def main() -> None:
    port = int(sys.argv[1])
    telemetry = None
    if "--errscope" in sys.argv:
        import errscope
        from errscope._setup import configure_telemetry

        out = sys.argv[sys.argv.index("--errscope") + 1]
        telemetry = configure_telemetry("conformance-everything", output_dir=out)
        errscope.instrument(server, **telemetry.providers)
    try:
        uvicorn.run(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=port, log_level="warning")
    finally:
        if telemetry is not None:
            telemetry.shutdown()


if __name__ == "__main__":
    main()
