"""Server side of tests/heldout_cases.md, twelfth round (J246-J248): an API's error code named in a plain exception's
message.

Tools that check an API's answer themselves and raise with its code in prose (``RuntimeError(f"Slack API error:
{data['error']}")``, the AWS CLI's sentence captured from its stderr), and a programming error whose message names an
identifier that looks like a code.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``; the real SDK client in process.
"""

from __future__ import annotations

import re

import pytest
from mcp_types import CallToolResult

from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope.testing import CapturedTelemetry
from tests.server.test_heldout_cases import REF, serving, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


@pytest.mark.parametrize("style", STYLES)
async def test_j246_a_slack_error_code_in_a_plain_exception(style: str, telemetry: CapturedTelemetry) -> None:
    """J246 (Python MCP servers checking Slack's ``{"ok": false, "error": …}`` themselves: ``_error(f"Slack API error:
    {data.get('error')}")``, ``raise RuntimeError(...)``; modelcontextprotocol/servers #1261 for the codes). The code
    decides as it does on slack_sdk's own ``SlackApiError``: ``channel_not_found`` is ``not_found``, ``invalid_auth``
    ``permission_denied``; not ``unknown``."""

    async def post_message(channel: str, text: str) -> str:
        """Post to a Slack channel."""
        raise RuntimeError("Slack API error: channel_not_found" if channel.startswith("#") else "Slack API error: invalid_auth")

    async with serving(style, "legacy", telemetry, post_message) as served:
        missing = await served.call("post_message", {"channel": "#no-such", "text": "hi"})
        refused = await served.call("post_message", {"channel": "C0FAKE", "text": "hi"})
    for result in (missing, refused):
        assert isinstance(result, CallToolResult) and result.is_error, result
        assert re.search(REF, text_of(result)), text_of(result)
    classes = [span.attributes[ERRSCOPE_FAILURE_CLASS] for span in telemetry.spans()
               if span.name == "tools/call post_message"]
    assert classes == ["not_found", "permission_denied"], classes


@pytest.mark.parametrize("style", STYLES)
async def test_j247_the_aws_cli_s_sentence_in_a_plain_exception(style: str, telemetry: CapturedTelemetry) -> None:
    """J247 (awslabs/mcp #4535 and #892: the aws-api-mcp-server runs the CLI and reports its stderr, "An error occurred
    (InvalidClientTokenId) when calling the … operation: …"). A tool that raises ``Exception(stderr)``: the code decides
    (``permission_denied`` for a refused token, ``rate_limited`` for ``ThrottlingException``) as on botocore's
    ``ClientError``."""

    async def call_aws(cli_command: str) -> str:
        """Run an AWS CLI command."""
        if "sts" in cli_command:
            raise Exception("\nAn error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: "
                            "The security token included in the request is invalid.\n")
        raise Exception("\nAn error occurred (ThrottlingException) when calling the PutItem operation (reached max "
                        "retries: 2): Rate exceeded\n")

    async with serving(style, "legacy", telemetry, call_aws) as served:
        await served.call("call_aws", {"cli_command": "aws sts get-caller-identity"})
        await served.call("call_aws", {"cli_command": "aws dynamodb put-item --table-name t"})
    classes = [span.attributes[ERRSCOPE_FAILURE_CLASS] for span in telemetry.spans() if span.name == "tools/call call_aws"]
    assert classes == ["permission_denied", "rate_limited"], classes


@pytest.mark.parametrize("style", STYLES)
async def test_j248_a_programming_error_naming_a_code_like_identifier(style: str, telemetry: CapturedTelemetry) -> None:
    """J248 (the guard on J246's rule). A tool's own bug whose message names an identifier shaped like an API code
    (``AttributeError: 'NoneType' object has no attribute 'not_found'``, ``KeyError: 'rate_limit'``) is the tool's bug:
    ``unknown``, never the class the identifier's words spell."""

    async def lookup(kind: str) -> str:
        """Look something up."""
        if kind == "attr":
            return None.not_found  # type: ignore[attr-defined]
        return {}["rate_limit"]

    async with serving(style, "legacy", telemetry, lookup) as served:
        await served.call("lookup", {"kind": "attr"})
        await served.call("lookup", {"kind": "key"})
    classes = [span.attributes[ERRSCOPE_FAILURE_CLASS] for span in telemetry.spans() if span.name == "tools/call lookup"]
    assert classes == ["unknown", "unknown"], classes
