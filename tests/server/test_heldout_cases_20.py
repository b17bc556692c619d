"""Server side of tests/heldout_cases.md, twentieth round (J363, J366, J370): real libraries raising real exceptions in
a tool: OpenAI's Responses API answering 424 Failed Dependency when the remote MCP server it was to call failed, a gRPC
message over a size limit (grpcio against a gRPC server on 127.0.0.1), libpq quoting back the tail of a password with
a space in it.

Real ``MCPServer`` and FastMCP servers with ``errscope.instrument``, the real SDK client in process; the tools call the
real libraries against servers on 127.0.0.1 (psycopg's parse error comes before any socket).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from typing import Any

import grpc
import openai
import psycopg
import psycopg2
import pytest
from errscope._attributes import (
    ERRSCOPE_FAILURE_CLASS,
    ERRSCOPE_SIDE_EFFECT_POSSIBLE,
    ERRSCOPE_UPSTREAM_STATUS,
)
from errscope.testing import CapturedTelemetry

from tests.classification.upstreams import HOST, answering
from tests.server.test_heldout_cases import serving
from tests.server.test_heldout_cases_19 import nowhere_to_be_seen

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STYLES = ["mcpserver", "fastmcp"]


# --- J363: OpenAI's Responses API answering 424 Failed Dependency -----------------------------------------------------

FAILED_DEPENDENCY = (
    b'{"error": {"message": "Error retrieving tool list from MCP server: \'deepwiki\'. Http status code: 424 (Failed '
    b'Dependency)", "type": "external_connector_error", "param": "tools", "code": "http_error_424"}}'
)


@pytest.mark.parametrize("style", STYLES)
async def test_j363_the_responses_api_could_not_reach_its_mcp_server(style: str, telemetry: CapturedTelemetry) -> None:
    """J363 (microsoft/agent-framework #1210: "HostedMCPTool returns HTTP 424 Failed Dependency errors"; agentgateway/
    agentgateway #383: ``APIError: 424 Error retrieving tool list from MCP server: 'agentgateway'. Http status code: 424
    (Failed Dependency)``; RageAgainstThePixel/OpenAI-DotNet #486). A tool asks OpenAI's Responses API (the real
    ``openai`` client, against a server on 127.0.0.1 answering as the API does) to use a remote MCP server, which
    failed. RFC 4918 §11.4: the method could not be performed because an action it depended on failed. The class was
    ``unknown`` (the mapping-gap alert): a service behind the one asked is out of reach, ``upstream_unavailable``, the
    upstream status 424 on the span, and nothing was performed."""
    with answering(424, FAILED_DEPENDENCY, {"content-type": "application/json"}) as port:

        async def ask_agent(question: str) -> str:
            """Answer with the docs MCP server's help."""
            client = openai.AsyncOpenAI(api_key="sk-test-FAKE", base_url=f"http://{HOST}:{port}/v1", max_retries=0)
            response = await client.responses.create(
                model="gpt-5", input=question,
                tools=[{"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.example.test/mcp",
                        "require_approval": "never"}])
            return response.output_text

        async with serving(style, "legacy", telemetry, ask_agent) as served:
            result = await served.call("ask_agent", {"question": "How do I page results?"})
    assert not isinstance(result, Exception) and result.is_error, result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "upstream_unavailable", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_UPSTREAM_STATUS) == "424", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)


# --- J366: a gRPC message over its size limit --------------------------------------------------------------------------

@contextmanager
def grpc_reports(max_request: int) -> Iterator[int]:
    """A gRPC server on 127.0.0.1 whose ``/reports.Reports/Render`` answers three times what it was sent and takes
    requests of at most ``max_request`` bytes; yields its port."""

    def render(request: bytes, context: Any) -> bytes:
        rendered.append(len(request))
        return request * 3

    rendered: list[int] = []
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2),
                         options=[("grpc.max_receive_message_length", max_request)])
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "reports.Reports", {"Render": grpc.unary_unary_rpc_method_handler(render)}),))
    port = server.add_insecure_port(f"{HOST}:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(0)


# (size sent, client options, whether the server's handler ran)
LIMITS = {
    "request_over_the_server_s_limit": (5000, [], False),  # "SERVER: Received message larger than max (5000 vs. 1000)"
    "answer_over_the_client_s_limit": (900, [("grpc.max_receive_message_length", 2000)], True),  # the handler answered
    "request_over_the_client_s_own_limit": (5000, [("grpc.max_send_message_length", 1000)], False),  # never sent
}


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("style", STYLES)
async def test_j366_a_grpc_message_over_its_size_limit(style: str, limit: str, telemetry: CapturedTelemetry) -> None:
    """J366 (grpc/grpc.io #1254 and Kubedex/exporter #6: grpcio's ``_InactiveRpcError`` "status =
    StatusCode.RESOURCE_EXHAUSTED details = "Received message larger than max (17777780 vs. 4194304)""; tikv/client-rust
    #382, onflow/flow #751, D00mch/souz #249: the same status in Rust, Ruby and Kotlin clients). A tool's gRPC backend
    refuses a request over its limit, the client refuses an answer over its own, or refuses to send. gRPC's status is
    RESOURCE_EXHAUSTED, which the table read as a quota (``rate_limited``: "try again later", which never fits the same
    message). No wait helps; a smaller request or answer does (``invalid_input``, as an HTTP 413). Whether the backend
    ran is what grpcio says of the refusing end: a request refused ("SERVER: …") or never sent did not run; an answer
    the client refused ("CLIENT: Received …") came from a handler that ran."""
    size, options, ran = LIMITS[limit]
    with grpc_reports(max_request=1000) as port:

        async def render_report(rows: int) -> str:
            """Render the report."""
            with grpc.insecure_channel(f"{HOST}:{port}", options=options) as channel:
                answer = channel.unary_unary("/reports.Reports/Render")(b"r" * size, timeout=5)
            return f"{len(answer)} bytes"

        async with serving(style, "legacy", telemetry, render_report) as served:
            result = await served.call("render_report", {"rows": 10})
    assert not isinstance(result, Exception) and result.is_error, result
    span = served.span()
    assert span.attributes[ERRSCOPE_FAILURE_CLASS] == "invalid_input", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_UPSTREAM_STATUS) == "RESOURCE_EXHAUSTED", dict(span.attributes)
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is ran, dict(span.attributes)


# --- J370: libpq quoting back a password's tail -----------------------------------------------------------------------

PASSWORD_TAIL = "Stone77FAKEgale"


@pytest.mark.parametrize("driver", ["psycopg2", "psycopg"])
@pytest.mark.parametrize("style", STYLES)
async def test_j370_libpq_quotes_back_a_password_s_tail(style: str, driver: str, telemetry: CapturedTelemetry) -> None:
    """J370 (psycopg/psycopg2 #87: "psycopg2.connect fails when using spaces in password-keyword", ``missing "=" after
    "baar" in connection info string``; tomoko-dev9/nntpchan #137 "Postgres password can't contain spaces"). A
    database tool builds a keyword DSN from a password with a space in it; libpq cannot parse the word after the space
    and quotes it back in the error psycopg2 and psycopg 3 raise (``invalid dsn: missing "=" after "<tail>" in
    connection info string``). The password's tail reached the model's text, the span and the log record. It appears
    nowhere; nothing was sent (the DSN never parsed)."""
    dsn = f"host={HOST} port=5432 dbname=shop user=app password=Fern {PASSWORD_TAIL} connect_timeout=2"

    async def count_orders(status: str) -> str:
        """Count the orders in a status."""
        connection = psycopg2.connect(dsn) if driver == "psycopg2" else psycopg.connect(dsn)
        connection.close()
        return "0"

    async with serving(style, "legacy", telemetry, count_orders) as served:
        result = await served.call("count_orders", {"status": "open"})
    nowhere_to_be_seen(PASSWORD_TAIL, served, result, telemetry)
    span = served.span()
    assert span.attributes.get(ERRSCOPE_SIDE_EFFECT_POSSIBLE) is False, dict(span.attributes)
