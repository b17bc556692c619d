"""Client side of tests/heldout_cases.md, fourth round (J76-J84, J90-J93, J95, J97): retries that re-run side effects, the transport
failures reverse proxies and CDNs produce, foreign servers' wording, and what the client's telemetry holds.

``ToolClient`` drives a real ``MCPServer`` over streamable HTTP on 127.0.0.1, behind the ASGI gate of the third round
for what gateways answer (nginx's 502 page, Cloudflare's 524 page) and for a connection cut in the middle of an
answer; and the raw stdio peer (``servers/heldout_peer.py``) for foreign SDKs' exact error texts.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

from errscope import Channel, FailureClass, Outcome
from errscope._attributes import ERRSCOPE_FAILURE_CLASS
from errscope.client import ConnectionState, RetryPolicy, ToolClient
from tests.client.test_heldout_cases import failed, ok, peer, recorded, tool
from tests.client.test_heldout_cases_3 import Gate, answer, gated, refusing

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.05, backoff_max=0.1, jitter=0.0)
"""Automatic retries with waits short enough for a test; whether a repeat is allowed is unchanged."""

NGINX_502 = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n"
             b"<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n")
CLOUDFLARE_524 = (b'<!DOCTYPE html>\n<html class="no-js" lang="en-US"><head><title>mcp.FAKE-corp.example | 524: A timeout '
                  b'occurred</title><link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/main.css" /></head>'
                  b'<body><div id="cf-wrapper"><h1><span>A timeout occurred</span><span class="code-label">Error code 524'
                  b'</span></h1><div>Ray ID: 8f00FAKE00c0ffee &bull; Your IP: 203.0.113.77</div></div></body></html>')
HTML = (b"content-type", b"text/html; charset=UTF-8")


def pages_server() -> MCPServer:
    """Tools with and without the spec's repeat-safety hints; each run is noted in ``server.ran``."""
    server = MCPServer("pages")
    ran: list[str] = []

    @server.tool()
    def create_page(title: str) -> str:
        ran.append(f"create_page:{title}")
        return f"page {title} created"

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def search_pages(query: str) -> str:
        ran.append(f"search_pages:{query}")
        return f"2 pages match {query}"

    @server.tool(annotations=ToolAnnotations(idempotentHint=True, readOnlyHint=False))
    def set_page_title(page: str, title: str) -> str:
        ran.append(f"set_page_title:{page}")
        return f"{page} is now titled {title}"

    @server.tool()
    def status() -> str:
        return "up"

    server.ran = ran  # type: ignore[attr-defined]
    return server


def first_refused(tool_name: str, status: int, body: bytes, seen: list[bytes], *headers: tuple[bytes, bytes]) -> Gate:
    """A gate answering the first POST calling ``tool_name`` itself (``status``, ``body``); later ones pass."""

    async def gate(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        if method != "POST" or f'"{tool_name}"'.encode() not in request:
            return False
        seen.append(request)
        return len(seen) == 1 and await answer(send, status, body, *headers)

    return gate


def cut_mid_answer(app: Any, tool_name: str, seen: list[bytes], *, times: int = 1, keep: int = 0) -> Any:
    """``app``, except that the answer to the first ``times`` POSTs calling ``tool_name`` is cut: its first ``keep``
    body chunks (SSE events) pass whole, the next is cut after 7 bytes and the connection is dropped (what a
    client reads as httpx's ``RemoteProtocolError: peer closed connection without sending complete message
    body``). The tool has run by then, and the server's own session goes on (the cut is on the wire, outside it)."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        message = await receive()
        body = message.get("body", b"")
        replayed = [message]

        async def again() -> Any:
            return replayed.pop() if replayed else await receive()

        if f'"{tool_name}"'.encode() not in body:
            await app(scope, again, send)
            return
        seen.append(body)
        if len(seen) > times:
            await app(scope, again, send)
            return

        kept: list[bytes] = []
        cut: list[bool] = []

        async def cutting(event: dict[str, Any]) -> None:
            if cut:  # uvicorn drops what a server sends on a connection that is gone; the server does not notice
                return
            if event["type"] == "http.response.body" and event.get("body") and len(kept) < keep:
                kept.append(event["body"])
            elif event["type"] == "http.response.body" and event.get("body"):
                await send({"type": "http.response.body", "body": event["body"][:7], "more_body": True})
                cut.append(True)
                return
            await send(event)

        await app(scope, again, cutting)
        if cut:  # the answer was cut: uvicorn closes the connection in the middle of the body
            raise ConnectionAbortedError("test: connection cut mid-answer")

    return asgi


async def test_j76_cloudflare_524_page_is_a_failure_that_may_have_run(telemetry: Any) -> None:
    """J76 (obot-platform/obot #3266: "Error POSTing to endpoint (HTTP 524): <!DOCTYPE html>…" with Cloudflare's whole
    error page in the error the user and model read; notatallshaw/nab PR #579 and SocketDev/socket-cli PR #53
    retry 524 blindly). Cloudflare answers 524 when the origin accepted the request and did not answer in time
    (Cloudflare docs, error 524): the tool may have run. For a tool without a repeat-safety hint the call fails
    once as ``upstream_unavailable``, says it may have taken effect, is not sent again, and no HTML, Ray ID or IP
    reaches the model or telemetry."""
    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    cloudflare = refusing("create_page", 524, CLOUDFLARE_524, HTML, seen=seen)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), cloudflare)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
            after = await tc.call_tool("status", {})
            assert tc.state is ConnectionState.CONNECTED
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert result.side_effect_possible is not False and len(seen) == 1, (result, len(seen))
    for fragment in ("<html", "DOCTYPE", "cf-wrapper", "8f00FAKE", "203.0.113.77", "A timeout occurred"):
        assert fragment not in result.text and fragment not in recorded(telemetry), fragment
    assert "Ref ERR-" in result.text and after.text == "up"


async def test_j77_nginx_502_page_on_a_read_only_tool_is_retried(telemetry: Any) -> None:
    """J77 (pgEdge/pgedge-postgres-mcp PR #47: nginx's "<html><head><title>502 Bad Gateway</title>…" reached users raw;
    github/github-mcp-server #772: nginx answered 502 "upstream prematurely closed connection"; PrimeIntellect-ai/
    verifiers PR #2154 and smg-project/smg PR #2441: a repeat is safe for tools declaring ``readOnlyHint`` or
    ``idempotentHint``). A 502 page from the reverse proxy on a ``readOnlyHint`` tool is
    ``upstream_unavailable``, which errscope repeats for a tool that is safe to repeat: the second attempt
    answers, and the model reads the answer, not HTML."""
    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    gate = first_refused("search_pages", 502, NGINX_502, seen, HTML)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            result = await tc.call_tool("search_pages", {"query": "roadmap"})
    assert (result.outcome, result.text, result.attempts) == (Outcome.OK, "2 pages match roadmap", 2), result
    assert len(seen) == 2 and server.ran == ["search_pages:roadmap"]
    assert "nginx" not in recorded(telemetry) and "<html" not in recorded(telemetry)


@pytest.mark.parametrize(("status", "page"), [(502, NGINX_502), (503, b"Service Unavailable"), (504, NGINX_502.replace(b"502 Bad Gateway", b"504 Gateway Time-out"))],
                         ids=["502", "503", "504"])
async def test_j77_gateway_pages_on_a_write_tool_are_not_repeated(status: int, page: bytes, telemetry: Any) -> None:
    """J77, the other half (Significant-Gravitas/AutoGPT PR #14302 review: an HTTP-layer retry of every JSON-RPC POST
    "can duplicate the side effect" of a ``tools/call`` answered 503 after it applied; mcheemaa/mistri PR #26). The
    same gateway answers on a tool without a hint: nginx sends 502/504 after the upstream may have received the
    request, and a 503 from a gateway does not say the request was never applied. The call is reported once as
    ``upstream_unavailable`` that may have run, without HTML, and not repeated (DESIGN.md, Idempotency keys)."""
    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    gate = first_refused("create_page", status, page, seen, HTML)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert len(seen) == 1 and result.side_effect_possible is not False
    assert "Bad Gateway</" not in result.text and "nginx" not in result.text and "<" not in result.text


async def test_j84_a_read_only_tool_behind_a_dead_gateway_stops_at_max_attempts(telemetry: Any) -> None:
    """J84 (vercel/ai PR #16494: MCP tool-call retries with ``maxAttempts``; anthropics/claude-code #464: retries with
    backoff rather than giving up on the server). A ``readOnlyHint`` tool whose gateway answers 502 every time is
    tried ``max_attempts`` times, no more, and the model is told the service is unavailable, without HTML."""
    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    dead = refusing("search_pages", 502, NGINX_502, HTML, seen=seen)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), dead)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            result = await tc.call_tool("search_pages", {"query": "roadmap"})
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert len(seen) == result.attempts == FAST_RETRY.max_attempts, (len(seen), result.attempts)
    assert "<" not in result.text and "Ref ERR-" in result.text and server.ran == []


async def test_j83_progress_after_the_answer_does_not_drop_the_session(tmp_path: Any) -> None:
    """J83 (anthropics/claude-code #47765: a terminal ``notifications/progress`` racing the answer made the client tear
    down stdio and respawn the server on every call; lennix1337/Genexus18MCP #44: Cursor closed the connection on
    "Received a progress notification for an unknown token"; twentyhq/twenty #24559: a server inventing its own
    tokens). The MCP spec (Progress) says notifications reference active requests, but a late or unknown one is
    noise: the call's answer stands, the session stays, and the next call runs on it (one ``initialize``)."""
    late = [{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "{token}", "progress": 1, "total": 1}},
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tool-call-FAKE-7", "progress": 0}}]
    params, log = peer(tmp_path, [tool("build"), tool("echo")],
                       {"build": {**ok("built"), "after": late}, "echo": ok("echo")})
    async with ToolClient(params, timeout=3, retry=None) as tc:
        first = await tc.call_tool("build", {})
        await anyio.sleep(0.2)
        second = await tc.call_tool("echo", {})
        assert tc.state is ConnectionState.CONNECTED
    assert (first.outcome, first.text, second.text) == (Outcome.OK, "built", "echo")
    assert len(log.received("initialize")) == 1


async def test_j78_connection_cut_mid_answer_is_not_replayed_for_a_write_tool(telemetry: Any) -> None:
    """J78 (tya5/reyn PR #2600 review: "drop-after-execution … retry re-executes the tool"; NousResearch/hermes-agent
    PR #88821: write-capable tools are no longer re-run after a mid-flight transport error;
    a2aproject/a2a-samples #144 and PrefectHQ/fastmcp #444: ``httpx.RemoteProtocolError: peer closed connection
    without sending complete message body`` reached users). The tool ran and the connection dropped while the
    answer was on its way: the call is reported as one whose effect may have happened, sent exactly once, its
    text free of httpx's wording; the next call works."""
    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    async with serve(cut_mid_answer(server.streamable_http_app(host="127.0.0.1"), "create_page", seen)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
            after = await tc.call_tool("status", {})
    assert result.outcome is not Outcome.OK and result.side_effect_possible is not False, result
    assert server.ran == ["create_page:Q3 plan"] and len(seen) == 1
    for fragment in ("peer closed", "chunked", "RemoteProtocolError", "ConnectionAborted"):
        assert fragment not in result.text
    assert "Ref ERR-" in result.text and after.text == "up"


async def test_j79_connection_cut_mid_answer_is_replayed_for_an_idempotent_tool(telemetry: Any) -> None:
    """J79 (smg-project/smg PR #2441: "Replay after reconnect only for tools that cannot double-execute: those that
    declare ``idempotentHint`` or ``readOnlyHint``"; PrimeIntellect-ai/verifiers PR #2154). The same cut on a tool
    declaring ``idempotentHint``: errscope repeats it, the second answer is the result, and both attempts carry
    the same idempotency key."""
    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    async with serve(cut_mid_answer(server.streamable_http_app(host="127.0.0.1"), "set_page_title", seen)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            result = await tc.call_tool("set_page_title", {"page": "p-1", "title": "Plan"})
    assert (result.outcome, result.text) == (Outcome.OK, "p-1 is now titled Plan"), result
    assert len(seen) == 2 and server.ran == ["set_page_title:p-1"] * 2
    keys = {json.dumps(json.loads(body)["params"]["_meta"].get("io.errscope/idempotency_key")) for body in seen}
    assert len(keys) == 1 and keys != {"null"}, keys


async def test_j80_attempt_spans_carry_their_own_trace_context(telemetry: Any) -> None:
    """J80 (langflow-ai/langflow PR #14423: "one span per logical tool call, retries included" was the goal, and
    aws-observability/aws-otel-python-instrumentation #826: "one tool call = one client span"; errscope keeps one
    CLIENT span per attempt, so the server's span of each attempt must hang under that attempt's span, not all
    under the first). After an automatic retry inside the agent's own span, the two POSTs carry different
    ``_meta.traceparent`` values, each naming one of the exported ``tools/call`` CLIENT spans; both are children
    of the agent's span (one trace), the second links to the first, and only the failed one carries a class."""
    from opentelemetry.trace import get_tracer

    from tests.client.servers.app import serve

    server = pages_server()
    seen: list[bytes] = []
    gate = first_refused("search_pages", 502, NGINX_502, seen, HTML)
    tracer = get_tracer("agent", tracer_provider=telemetry.providers["tracer_provider"])
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            with tracer.start_as_current_span("execute_tool search_pages") as agent:
                result = await tc.call_tool("search_pages", {"query": "roadmap"})
    assert result.outcome is Outcome.OK and len(seen) == 2
    parents = [json.loads(body)["params"]["_meta"]["traceparent"].split("-") for body in seen]
    spans = sorted((s for s in telemetry.spans() if s.name == "tools/call search_pages"), key=lambda s: s.start_time)
    assert len(spans) == 2, [s.name for s in telemetry.spans()]
    assert [p[2] for p in parents] == [format(s.context.span_id, "016x") for s in spans]
    assert {p[1] for p in parents} == {format(agent.get_span_context().trace_id, "032x")}
    assert all(s.parent is not None and s.parent.span_id == agent.get_span_context().span_id for s in spans)
    first, second = spans
    assert first.context.span_id in [link.context.span_id for link in second.links]
    assert first.attributes.get(ERRSCOPE_FAILURE_CLASS) == "upstream_unavailable"
    assert ERRSCOPE_FAILURE_CLASS not in (second.attributes or {})


async def test_j81_session_and_request_ids_are_not_metric_labels(telemetry: Any) -> None:
    """J81 (quarkiverse/quarkus-mcp-server PR #591: "We do not include connection/session ids in the tags to avoid high
    cardinality tags"; open-telemetry/semantic-conventions PR #2083 review: the MCP metrics carry no session id or
    URI so the series count does not grow with sessions). Three sessions of the 2025-11-25 era, each with an
    ``Mcp-Session-Id``, call the same tool: ``mcp.client.operation.duration`` has one series for it, and no label
    holds a session id, request id or idempotency key."""
    from tests.client.servers.app import serve

    server = pages_server()
    async with serve(server.streamable_http_app(host="127.0.0.1")) as base:
        for _ in range(3):
            async with ToolClient(base + "/mcp", timeout=5, mode="legacy", **telemetry.providers) as tc:
                assert (await tc.call_tool("status", {})).text == "up"
    points = [p for p in telemetry.histogram_points("mcp.client.operation.duration")
              if (p.attributes or {}).get("gen_ai.tool.name") == "status"]
    assert len(points) == 1 and points[0].count == 3, points
    labels = dict(points[0].attributes or {})
    for banned in ("mcp.session.id", "jsonrpc.request.id", "errscope.idempotency_key", "errscope.error_ref"):
        assert banned not in labels, labels
    assert "session" not in " ".join(labels), labels


@pytest.mark.parametrize(
    ("sdk", "text", "expected"),
    [
        # modelcontextprotocol/csharp-sdk: a tool's exception becomes this fixed text (netclaw-dev/netclaw PR #1510).
        ("csharp", "An error occurred invoking 'edit_note'.", FailureClass.UNKNOWN),
        # spring-projects/spring-ai PR #6956 / #6948: the message and its root cause's, one per line.
        ("spring-ai", "Failed to fetch note N-7\njava.net.ConnectException: Connection refused", FailureClass.UPSTREAM_UNAVAILABLE),
        # PrefectHQ/fastmcp 2.x before masking (PR #434): "Error calling tool '<name>': <exception text>".
        ("fastmcp2", "Error calling tool 'edit_note': 404 Client Error: Not Found for url: "
                     "https://notes.internal.example/api/notes/N-7?access_token=FAKE-QS-TOKEN-77", FailureClass.NOT_FOUND),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 12 else None,
)
async def test_j82_foreign_sdks_error_wording(tmp_path: Any, telemetry: Any, sdk: str, text: str, expected: FailureClass) -> None:
    """J82 (netclaw-dev/netclaw PR #1510: the C# SDK client handed the model the whole ``CallToolResult`` JSON,
    ``{"content":[{"type":"text","text":"An error occurred invoking 'edit'"}],"isError":true}``; spring-projects/
    spring-ai PR #6956: Spring AI's ``@McpTool`` error text joins the exception's message and its root cause's;
    PrefectHQ/fastmcp PR #434: FastMCP 2 sent "Error calling tool 'x': <exception text>", URLs and tokens
    included). Each foreign wording is an execution failure with the class its words give, a sentence naming
    the tool with a ref, no JSON blob, no Java class name, no internal URL or token, and it is not repeated
    (none of these tools is declared safe to repeat)."""
    params, log = peer(tmp_path, [tool("edit_note")], {"edit_note": failed(text)})
    async with ToolClient(params, timeout=3, retry=FAST_RETRY, **telemetry.providers) as tc:
        result = await tc.call_tool("edit_note", {"note": "N-7"})
    assert (result.outcome, result.channel, result.failure_class) == (Outcome.ERROR, Channel.EXECUTION, expected), result
    assert "edit_note" in result.text and "Ref ERR-" in result.text
    for fragment in ('"isError"', '{"content"', "java.net.", "notes.internal.example", "FAKE-QS-TOKEN-77"):
        assert fragment not in result.text and fragment not in recorded(telemetry), fragment
    assert len(log.received("tools/call")) == 1


class _TlsListener:
    """A TLS listener on 127.0.0.1 with a freshly made self-signed certificate (``openssl req -x509``): every
    handshake a verifying client makes fails with CERTIFICATE_VERIFY_FAILED. Counts the connections."""

    def __init__(self, tmp_path: Any) -> None:
        import socket
        import ssl
        import subprocess
        import threading

        key, cert = tmp_path / "mcp.key", tmp_path / "mcp.crt"
        subprocess.run(["openssl", "req", "-x509", "-nodes", "-days", "1", "-newkey", "rsa:2048", "-keyout", str(key),
                        "-out", str(cert), "-subj", "/O=FAKE corp/CN=127.0.0.1"], check=True, capture_output=True)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0

        def serve() -> None:
            while True:
                try:
                    conn, _ = self.sock.accept()
                except OSError:
                    return
                self.connections += 1
                try:
                    with context.wrap_socket(conn, server_side=True):
                        pass
                except (OSError, ssl.SSLError):
                    conn.close()

        threading.Thread(target=serve, daemon=True).start()

    def close(self) -> None:
        self.sock.close()


async def test_j90_self_signed_certificate_fails_fast_and_was_never_sent(tmp_path: Any, telemetry: Any) -> None:
    """J90 (modelcontextprotocol/python-sdk #1370: ``httpx.ConnectError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify
    failed: self signed certificate``; google/adk-python #2558: against a self-signed server "the first interaction
    … will freeze and not return"; IBM/mcp-context-forge #1539). The TLS handshake fails before any byte of the
    request is sent: the call ends well inside its timeout as ``upstream_unavailable`` that did not run
    (``side_effect_possible`` false), and the text quotes no OpenSSL internals (``_ssl.c``)."""
    import time

    listener = _TlsListener(tmp_path)
    try:
        async with ToolClient(f"https://127.0.0.1:{listener.port}/mcp", timeout=10, connect_timeout=5,
                              retry=FAST_RETRY, **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
            elapsed = time.monotonic() - started
    finally:
        listener.close()
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert result.side_effect_possible is False, result
    assert elapsed < 8 and listener.connections >= 1, (elapsed, listener.connections)
    assert "_ssl.c" not in result.text and "Ref ERR-" in result.text


async def test_j91_a_name_that_does_not_resolve_fails_fast_and_was_never_sent(telemetry: Any) -> None:
    """J91 (archestra-ai/archestra #3333: "fetch failed: getaddrinfo ENOTFOUND mcp-…svc.cluster.local", retried three
    times 5 s apart; punkpeye/mcp-remote #43; lobehub/lobehub #8546). A server URL whose host does not resolve
    (``.invalid`` never does, RFC 6761 §6.4): the call ends at once as ``upstream_unavailable`` that certainly did
    not run, naming the server without the resolver's wording, and the model is not told to retry now."""
    import time

    async with ToolClient("http://mcp-FAKE-orders.invalid:8080/mcp", timeout=10, connect_timeout=5,
                          retry=FAST_RETRY, **telemetry.providers) as tc:
        started = time.monotonic()
        result = await tc.call_tool("create_page", {"title": "Q3 plan"})
        elapsed = time.monotonic() - started
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert result.side_effect_possible is False and elapsed < 8, (result, elapsed)
    for fragment in ("getaddrinfo", "Errno", "Name or service not known", "retry now"):
        assert fragment not in result.text, fragment
    assert "Ref ERR-" in result.text


@pytest.mark.parametrize(("code", "message"), [(-32001, "Request timed out"), (-32000, "Connection closed"),
                                               (-32800, "Request cancelled")], ids=["32001", "32000", "32800"])
async def test_j92_a_gateway_relaying_its_own_timeout_is_not_a_call_that_never_ran(tmp_path: Any, code: int, message: str) -> None:
    """J92 (mindstone/Super-MCP #1: an MCP router relayed "Tool call failed: MCP error -32001: Request timed out" from
    the server behind it; GlassHaven/Haven #279; DESIGN.md: the TS SDK's local timeout (-32001) and closed connection
    (-32000) share the code band servers use, and on streamable HTTP the SDK answers a cancelled request -32800).
    A gateway answers ``send_invoice`` (no hints) with its own timeout, lost connection or cancellation: the
    server behind it received the call and may have acted. The call is ``upstream_unavailable``, may have taken
    effect (``side_effect_possible`` not false), is not sent again, and the model is not told to fix its
    arguments."""
    params, log = peer(tmp_path, [tool("send_invoice")], {"send_invoice": {"error": {"code": code, "message": message}}})
    async with ToolClient(params, timeout=3, retry=FAST_RETRY) as tc:
        result = await tc.call_tool("send_invoice", {"invoice": "INV-7"})
    assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.UPSTREAM_UNAVAILABLE), result
    assert result.side_effect_possible is not False, result
    assert len(log.received("tools/call")) == 1
    assert "argument" not in result.text.lower() and "Ref ERR-" in result.text


async def test_j93_a_wrong_endpoint_answering_404_html_fails_fast(telemetry: Any) -> None:
    """J93 (mcbodge/MudMCP #36: "Streamable HTTP error: Error POSTing to endpoint: code: 404" when the server lived
    elsewhere; n8n-nodes-mcp #111 behind nginx: "The resource you are requesting could not be found"). Every POST,
    ``initialize`` included, gets a reverse proxy's 404 page without ``Mcp-Session-Id``: nothing was ever
    delivered. The call fails well inside its timeout as a failure that did not run, with a bounded number of
    POSTs (no reconnect loop: one session set-up, ``server/discover`` then ``initialize``, when the client opens and
    one per automatic attempt, which the retry table allows for what was never delivered) and no HTML in the text."""
    import time

    from tests.client.servers.app import serve

    server = pages_server()
    posts: list[bytes] = []
    page = NGINX_502.replace(b"502 Bad Gateway", b"404 Not Found")

    async def missing(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        posts.append(request)
        return await answer(send, 404, page, HTML)

    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), missing)) as base:
        async with ToolClient(base + "/mcp", timeout=10, connect_timeout=5, retry=FAST_RETRY, **telemetry.providers) as tc:
            started = time.monotonic()
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
            elapsed = time.monotonic() - started
    assert result.outcome is Outcome.ERROR and result.side_effect_possible is False, result
    assert elapsed < 5 and len(posts) <= 2 * (1 + FAST_RETRY.max_attempts), (elapsed, len(posts))
    assert "<" not in result.text and "nginx" not in result.text and "Ref ERR-" in result.text


async def test_j95_connection_cut_after_an_event_id_is_resumed_not_replayed(telemetry: Any) -> None:
    """J95 (SEP-1699 and the MCP spec, Transports > Resumability and Redelivery: a client whose SSE stream broke after
    an event id reconnects with ``Last-Event-ID`` and the server replays what it missed; tya5/reyn PR #2600 and
    smg-project/smg PR #2441: re-POSTing instead re-runs the tool). A server with an event store (2025-11-25 era)
    sends ``create_page``'s priming event, then the connection drops in the middle of the answer. The client
    resumes: outcome ``ok`` with the answer, one POST of the call, the tool ran once, and a ``GET`` carried
    ``Last-Event-ID``."""
    from tests.client.servers.app import serve
    from tests.client.test_heldout_cases_3 import MemoryEventStore

    server = pages_server()
    seen: list[bytes] = []
    resumed: list[bytes] = []
    app = server.streamable_http_app(host="127.0.0.1", event_store=MemoryEventStore(), retry_interval=100)

    async def watch(scope: dict[str, Any], body: bytes, send: Any, method: str) -> bool:
        resumed.extend(value for key, value in scope["headers"] if method == "GET" and key == b"last-event-id")
        return False

    async with serve(gated(cut_mid_answer(app, "create_page", seen, keep=1), watch)) as base:
        async with ToolClient(base + "/mcp", timeout=5, retry=FAST_RETRY, mode="legacy", **telemetry.providers) as tc:
            result = await tc.call_tool("create_page", {"title": "Q3 plan"})
    assert (result.outcome, result.text) == (Outcome.OK, "page Q3 plan created"), result
    assert len(seen) == 1 and server.ran == ["create_page:Q3 plan"] and resumed, (len(seen), server.ran, resumed)


@pytest.mark.parametrize(("prefix", "page", "headline"), [
    ("HTTP error 502: ", NGINX_502, "502 Bad Gateway"),
    ("Error POSTing to endpoint (HTTP 524): ", CLOUDFLARE_524, "A timeout occurred"),
], ids=["nginx-502", "cloudflare-524"])
async def test_j97_an_error_page_quoted_in_a_tool_error(tmp_path: Any, telemetry: Any, prefix: str, page: bytes, headline: str) -> None:
    """J97 (pgEdge/pgedge-postgres-mcp PR #47: "HTTP error 502: <html><head><title>502 Bad Gateway</title>…" shown to
    users; obot-platform/obot #3266: a gateway's tool error quoted Cloudflare's whole 524 page). A foreign server
    (an MCP gateway) answers ``isError`` with its upstream's HTML error page inside the text. The model reads the
    page's headline, not markup, the visitor's IP or the Ray ID; the class comes from the status."""
    text = prefix + page.decode()
    params, _ = peer(tmp_path, [tool("query_orders")], {"query_orders": failed(text)})
    async with ToolClient(params, timeout=3, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("query_orders", {"q": "open"})
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert headline in result.text and "Ref ERR-" in result.text, result.text
    for fragment in ("<", "cf-wrapper", "203.0.113.77", "8f00FAKE", "nginx/1.25", "cdn-cgi"):
        assert fragment not in result.text, (fragment, result.text)
