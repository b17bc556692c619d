"""Client side of tests/heldout_cases.md, thirteenth round (J253-J256): a connection lost mid-call, told as text by a
foreign server in its own runtime's words.

A tool's ``isError`` text relayed verbatim from the HTTP client or database driver the server runs on: Java's OkHttp
and ``HttpURLConnection``, .NET's ``HttpClient``, curl, Ruby, Prisma, node-postgres, MySQL Connector/J, Rust's hyper,
Node's TLS socket. Each says the upstream went away before answering; the class is ``upstream_unavailable`` as for the
same exception raised in a Python tool, and a write tool with no hints is sent once (retries enabled, none taken).

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``). J253-J255 and J260 are read by phrases in
``_foreign_text._PHRASES``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errscope import Channel, FailureClass
from tests.client.test_heldout_cases_12 import answered

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def assert_unavailable(results: dict[str, Any]) -> None:
    got = {name: (result.channel, result.failure_class) for name, result in results.items()}
    assert got == dict.fromkeys(results, (Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE)), got
    for result in results.values():
        assert "Ref ERR-" in result.text, result.text
        assert "Fix the arguments" not in result.text, result.text


async def test_j253_a_response_cut_short_in_java_dotnet_curl_and_ruby_words(tmp_path: Path, telemetry: Any) -> None:
    """J253 (square/okhttp #2738 and #3469: "java.io.IOException: unexpected end of stream on http://..."; dotnet/runtime
    #62963: "The response ended prematurely. (ResponseEnded)"; Java's ``HttpURLConnection``: "Unexpected end of file
    from server"; curl's error 52 "Empty reply from server"; Ruby's ``EOFError`` "end of file reached"). The upstream
    closed the connection before its answer was complete: ``upstream_unavailable``, not ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "create_ticket": "java.io.IOException: unexpected end of stream on http://tickets.internal:8080/...",
        "charge_card": "System.Net.Http.HttpIOException: The response ended prematurely. (ResponseEnded)",
        "send_invoice": "java.net.SocketException: Unexpected end of file from server",
        "publish_post": "GuzzleHttp\\Exception\\ConnectException: cURL error 52: Empty reply from server "
                        "(see https://curl.haxx.se/libcurl/c/libcurl-errors.html)",
        "sync_contacts": "EOFError: end of file reached",
    })
    assert_unavailable(results)


async def test_j254_a_database_out_of_reach_in_orm_and_driver_words(tmp_path: Path, telemetry: Any) -> None:
    """J254 (prisma/orm #13770, #24040, planetscale/cli #589: "P1001: Can't reach database server at ..."; brianc/
    node-postgres #1783, #3107: "Connection terminated unexpectedly"; MySQL Connector/J's "Communications link
    failure"; PostgreSQL's 57P01 in words, "terminating connection due to administrator command"). The database went
    away or was never reached: ``upstream_unavailable``, as errscope reads the same failures on a Python driver's
    exception (J236, J249, J250)."""
    results = await answered(tmp_path, telemetry, {
        "insert_order": "PrismaClientKnownRequestError: Can't reach database server at `db.internal`:`5432`\n\n"
                        "Please make sure your database server is running at `db.internal`:`5432`.",
        "update_stock": "Error: Connection terminated unexpectedly",
        "record_payment": "com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure\n\n"
                          "The last packet sent successfully to the server was 0 milliseconds ago.",
        "archive_rows": "FATAL: terminating connection due to administrator command",
    })
    assert_unavailable(results)


async def test_j255_a_connection_lost_in_rust_node_java_and_go_runtime_words(tmp_path: Path, telemetry: Any) -> None:
    """J255 (hyper's ``Error(IncompleteMessage)`` as reqwest debug-prints it, seanmonstar/reqwest #1808 and
    Morganamilo/paru #167; Node's TLS socket "Client network socket disconnected before secure TLS connection was
    established"; Java's ``java.net.http`` "HTTP/1.1 header parser received no bytes"; Go's http2 "stream error: stream
    ID 3; INTERNAL_ERROR; received from peer"; ENOTCONN's "Transport endpoint is not connected"). Each runtime's own
    words for a connection that ended before the answer: ``upstream_unavailable``."""
    results = await answered(tmp_path, telemetry, {
        "post_update": 'reqwest::Error { kind: Request, url: "https://api.example.com/v1/posts", '
                       "source: hyper_util::client::legacy::Error(SendRequest, hyper::Error(IncompleteMessage)) }",
        "open_pr": "Error: Client network socket disconnected before secure TLS connection was established",
        "create_user": "java.io.IOException: HTTP/1.1 header parser received no bytes",
        "put_object": "stream error: stream ID 3; INTERNAL_ERROR; received from peer",
        "write_file": "OSError: [Errno 107] Transport endpoint is not connected",
    })
    assert_unavailable(results)


async def test_j256_a_connection_lost_mid_call_as_real_mcp_servers_told_it(tmp_path: Path, telemetry: Any) -> None:
    """J256 (xpzouying/xiaohongshu-mcp #196: "request to http://localhost:18060/mcp failed, reason: socket hang up";
    charmbracelet/crush #729: "transport error: failed to write request: write |1: broken pipe"; nodejs/undici #3300:
    "fetch failed" with "other side closed"; DitriXNew/EDT-MCP #53: Bun's "The socket connection was closed
    unexpectedly"; crystaldba/postgres-mcp #136: libpq's "server closed the connection unexpectedly"; microsoft/aspire
    #8263: .NET's "configured HttpClient.Timeout of 100 seconds elapsing"). Already right before this round; kept so
    that the six runtimes' words stay ``upstream_unavailable`` and each write is sent once."""
    results = await answered(tmp_path, telemetry, {
        "publish_note": "request to http://localhost:18060/mcp failed, reason: socket hang up",
        "run_command": "transport error: failed to write request: write |1: broken pipe",
        "upload_blob": "TypeError: fetch failed\n  [cause]: SocketError: other side closed { code: 'UND_ERR_SOCKET' }",
        "build_project": "The socket connection was closed unexpectedly. For more information, pass `verbose: true` in "
                         "the second argument to fetch()",
        "run_query": "Error: consuming input failed: server closed the connection unexpectedly\n"
                     "This probably means the server terminated abnormally\nbefore or while processing the request.",
        "deploy_app": "The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.",
    })
    assert_unavailable(results)


async def test_j260_a_gateway_whose_downstream_server_is_not_connected(tmp_path: Path, telemetry: Any) -> None:
    """J260 (archestra-ai/archestra PR #1153 and AgentDeskAI/browser-tools-mcp #101: the TypeScript SDK's "Error: Not
    connected" as a tool's error; google-gemini/gemini-cli #18738; NousResearch/hermes-agent #37768: "MCP server 'wechat'
    is not connected"). A gateway or host relays that its downstream MCP server is gone: the call never reached it,
    ``upstream_unavailable``, not ``unknown``. A guard beside it: "Your GitHub account is not connected" is the
    operator's setup, not an outage, and stays out of ``upstream_unavailable``."""
    results = await answered(tmp_path, telemetry, {
        "browser_click": "Error: Not connected",
        "wechat_publish": "MCP server 'wechat' is not connected",
        "create_repo": "Your GitHub account is not connected. Connect it in Settings > Integrations.",
    })
    guard = results.pop("create_repo")
    assert guard.failure_class is not FailureClass.UPSTREAM_UNAVAILABLE, guard
    assert_unavailable(results)
