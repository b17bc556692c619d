"""Client side of tests/heldout_cases.md, eighth round (J159-J168): answers whose JSON types or shape are not the schema's
(``isError`` as a string), an answer holding both ``result`` and
``error``, a very large ``error.data``, a slow or stuck ``initialize``, terminal escapes in a failure text; and over
streamable HTTP a 413 page, a JSON-RPC error inside an HTTP 500, a foreign server's 400 to a session it no longer
knows, a redirect to the trailing-slash path, and a 429 on the standalone GET stream.

The stdio peer is the raw foreign server ``servers/heldout_peer.py`` (these wire shapes come from hand-written servers
in other languages; no SDK emits them on demand). The HTTP cases put an ASGI gate (what an nginx or a foreign server
answers) in front of a real ``MCPServer`` on 127.0.0.1.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from errscope import Channel, FailureClass, Outcome
from errscope.client import ConnectionState, ToolClient
from tests.client.test_heldout_cases import failed, ok, peer, recorded, tool
from tests.client.test_heldout_cases_3 import answer, gated, issues_server, refusing, refusing_get

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SECRET = "sk_live_FAKE0000000000000000000042"


def client_spans(telemetry: Any) -> list[Any]:
    return [s for s in telemetry.spans() if s.attributes.get("mcp.method.name") == "tools/call"]


async def test_j159_is_error_as_the_string_true(tmp_path: Path, telemetry: Any) -> None:
    """J159 (hand-written servers in PHP and Ruby that serialise booleans as strings; a lax client reads the string
    ``"true"`` as a failure, a strict one as a schema break). ``isError: "true"`` with the failure's text: the call is
    a failure on the execution channel with the class its text gives and a ref, never an ``ok``; the span says so."""
    params, _ = peer(tmp_path, [tool("create_invoice")], {"create_invoice": {"result": {
        "content": [{"type": "text", "text": "Permission denied: the API key may not create invoices"}], "isError": "true"}}})
    async with ToolClient(params, timeout=3, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("create_invoice", {"amount": 5})
    assert result.outcome is Outcome.ERROR and result.channel is Channel.EXECUTION, result
    assert result.failure_class is FailureClass.PERMISSION_DENIED, result
    assert "Ref ERR-" in result.text, result.text
    (span,) = client_spans(telemetry)
    assert span.attributes.get("errscope.failure_class") == "permission_denied"


SENT = {"content": [{"type": "text", "text": "invoice sent"}]}
SMTP_TIMEOUT = {"code": -32603, "message": "SMTP relay timed out after 30 s"}


def raw_answer(**members: Any) -> dict[str, Any]:
    """A peer answer written verbatim: ``members`` beside ``jsonrpc`` and the request's id."""
    return {"raw": json.dumps({"jsonrpc": "2.0", "id": 0, **members}).replace('"id": 0', '"id": {id}')}


async def test_j160_an_answer_with_both_result_and_error(tmp_path: Path, telemetry: Any) -> None:
    """J160 (JSON-RPC 2.0 §5: "Either the result member or error member MUST be included, but both members MUST NOT be
    included"; servers whose encoders write both, hyperledger burrow #464 ``"result":null`` beside the error and
    ``"error":null`` beside the result, ganache-ui #1588 a result beside the error; pygls #63, movitto/rjr #13: a client
    taking such an error for a success). A ``null`` member is an absent one: ``"error": null`` beside a result is that
    result, ``"result": null`` beside an error is that error. A real result beside a real error is not a success: the
    error says the call failed, the result that something ran, so the model gets a failure with a ref that may have
    run, and the call is not repeated."""
    params, log = peer(tmp_path, [tool("send_invoice"), tool("send_reminder"), tool("send_receipt")], {
        "send_invoice": raw_answer(result=SENT, error=SMTP_TIMEOUT),
        "send_reminder": raw_answer(result=SENT, error=None),
        "send_receipt": raw_answer(result=None, error={"code": -32602, "message": "Invalid params: 'to' must be an e-mail address"}),
    })
    async with ToolClient(params, timeout=3, **telemetry.providers) as tc:
        both = await tc.call_tool("send_invoice", {"to": "a@example.test"})
        null_error = await tc.call_tool("send_reminder", {"to": "a@example.test"})
        null_result = await tc.call_tool("send_receipt", {"to": "a@example.test"})
    assert both.outcome is Outcome.ERROR and "Ref ERR-" in both.text, both
    assert both.side_effect_possible is not False, both
    assert [e["params"]["name"] for e in log.received("tools/call")].count("send_invoice") == 1
    assert null_error.outcome is Outcome.OK and null_error.text == "invoice sent", null_error
    assert null_result.failure_class is FailureClass.INVALID_INPUT and "to" in null_result.text, null_result


async def test_j161_a_huge_error_data_with_a_traceback_and_a_secret(tmp_path: Path, telemetry: Any) -> None:
    """J161 (servers that put the whole exception, traceback and request context, in ``error.data``: a Java server's
    2 MiB stack, a Node server's ``err.stack``). The model text stays short and names no frame; no span attribute or
    event holds the traceback whole, and the planted key is nowhere."""
    frames = "".join(f"\tat com.example.billing.Charge.run(Charge.java:{n})\n" for n in range(40000))
    data = f"java.lang.IllegalStateException: upstream rejected key {SECRET}\n{frames}"
    params, _ = peer(tmp_path, [tool("charge")], {"charge": {"error": {"code": -32603, "message": "Internal error",
                                                                       "data": data}}})
    async with ToolClient(params, timeout=5, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("charge", {"amount": 5})
    assert result.outcome is Outcome.ERROR and "Ref ERR-" in result.text and len(result.text) < 2000, result.text
    everything = recorded(telemetry)
    assert SECRET not in result.text and SECRET not in everything
    assert "Charge.java" not in result.text
    for span in telemetry.spans():
        for value in list(span.attributes.values()) + [v for e in span.events for v in (e.attributes or {}).values()]:
            assert len(str(value)) < 70_000, (span.name, len(str(value)))


async def test_j162_a_slow_initialize_is_not_a_call_timeout(tmp_path: Path) -> None:
    """J162 (hosts that gave ``initialize`` the per-call timeout: servers that load a model or warm a cache answered in
    seconds and were marked failed; MCP 2025-11-25, Lifecycle > Timeouts). The handshake waits the connect timeout, not
    the call's: a server that answers ``initialize`` after 1.5 s serves a call whose idle timeout is 1 s."""
    params, _ = peer(tmp_path, [tool("echo")], {"echo": ok("pong")}, init_delay=1.5)
    async with ToolClient(params, timeout=1, connect_timeout=6, retry=None) as tc:
        result = await tc.call_tool("echo", {})
    assert result.outcome is Outcome.OK and result.text == "pong", result


async def test_j163_a_server_that_never_answers_initialize(tmp_path: Path, telemetry: Any) -> None:
    """J163 (hosts that waited forever, or 60 s, on a server stuck before its first answer, and then reported "request
    timed out" as if the tool had run). No ``tools/call`` was ever sent: the failure comes after the connect timeout,
    says the server did not answer, is ``upstream_unavailable`` and was not run."""
    params, log = peer(tmp_path, [tool("echo")], {"echo": ok("pong")}, init_hold=True)
    started = time.monotonic()
    async with ToolClient(params, timeout=1, connect_timeout=1.5, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("echo", {})
    elapsed = time.monotonic() - started
    assert result.outcome is Outcome.ERROR and result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert result.side_effect_possible is False, result
    assert "Ref ERR-" in result.text and elapsed < 10, (result.text, elapsed)
    assert log.received("tools/call") == []


async def test_j164_terminal_escapes_in_a_foreign_error(tmp_path: Path, telemetry: Any) -> None:
    """J164 (Trail of Bits' mcp-context-protector, "ANSI control character sanitization: terminal injection
    prevention", and MCPSafe MCP-083: escape sequences in tool output hide lines and fake links in terminal hosts;
    NousResearch/hermes-agent 934fbe3 "strip ANSI at the source"; servers wrapping CLIs (npm, cargo, Rich, chalk) that
    colour their errors). A failure text full of colours, a cursor move that erases the line above and an OSC 8 link whose target
    is not its text: the model's text holds none of the sequences nor their remnants (``[31m``), keeps the words, and
    the class comes from them."""
    text = ("\x1b[31m\x1b[1merror\x1b[0m: \x1b[2K\x1b[1Aconnection refused by registry.internal.example:5000 "
            "\x1b]8;;https://evil.example/login\x07see the docs\x1b]8;;\x07 \x1b]0;pwned\x07")
    params, _ = peer(tmp_path, [tool("publish_package")], {"publish_package": failed(text)})
    async with ToolClient(params, timeout=3, retry=None, **telemetry.providers) as tc:
        result = await tc.call_tool("publish_package", {"name": "left-pad"})
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    assert "connection refused" in result.text and "see the docs" in result.text, result.text
    for remnant in ("\x1b", "\ufffd", "[31m", "[0m", "[2K", "]8;;", "evil.example", "pwned"):
        assert remnant not in result.text, (remnant, result.text)
    assert result.text.isprintable(), result.text


# --- streamable HTTP ------------------------------------------------------------------------------------------------

NGINX_413 = (b"<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request "
             b"Entity Too Large</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n")


async def test_j165_a_413_page_for_large_arguments(telemetry: Any) -> None:
    """J165 (nginx's ``client_max_body_size``, 1 MiB by default, in front of MCP servers: a tool given a large document
    failed with "Unexpected token '<'"; RFC 9110 §15.5.14). The request was refused before the server read it: the
    model is told the request was too large (no HTML), it was not run, it is not retried as-is, and the next call
    works."""
    from tests.client.servers.app import serve

    server = issues_server()
    refused: list[bytes] = []
    gate = refusing("search_issues", 413, NGINX_413, (b"content-type", b"text/html"), seen=refused)
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=4, **telemetry.providers) as tc:
            result = await tc.call_tool("search_issues", {"query": "x" * 200_000})
            after = await tc.call_tool("status", {})
    assert server.ran == [] and len(refused) == 1, len(refused)
    assert result.outcome is Outcome.ERROR and result.failure_class is FailureClass.INVALID_INPUT, result
    assert result.side_effect_possible is False and result.retryable is False, result
    assert "too large" in result.text.lower() and "<" not in result.text, result.text
    assert after.text == "up"


def json_rpc_error_in(status: int, tool_name: str, error: dict[str, Any]) -> Any:
    """A gate answering the POST that calls ``tool_name`` with HTTP ``status`` and a JSON-RPC error for its id."""

    async def gate(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        if method != "POST" or f'"{tool_name}"'.encode() not in request:
            return False
        body = json.dumps({"jsonrpc": "2.0", "id": json.loads(request)["id"], "error": error}).encode()
        return await answer(send, status, body, (b"content-type", b"application/json"))

    return gate


async def test_j166_a_json_rpc_error_inside_an_http_500(telemetry: Any) -> None:
    """J166 (servers and frameworks that set HTTP 500 or 400 on every JSON-RPC error, Spring and Express handlers among
    them; the JSON-RPC body is the answer, the status only its envelope). The error inside is read: -32602 naming
    ``query`` is ``invalid_input`` with the field named, not "the server is unavailable, try later", and not retried."""
    from tests.client.servers.app import serve

    server = issues_server()
    gate = json_rpc_error_in(500, "search_issues", {"code": -32602, "message": "Invalid params: 'query' must be a string"})
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), gate)) as base:
        async with ToolClient(base + "/mcp", timeout=4, **telemetry.providers) as tc:
            result = await tc.call_tool("search_issues", {"query": 7})
    assert result.failure_class is FailureClass.INVALID_INPUT, result
    assert "query" in result.text and result.attempts == 1, result


SESSION_REFUSALS = {
    400: {"code": -32000, "message": "Bad Request: No valid session ID provided"},  # the TypeScript SDK's examples
    404: {"code": -32001, "message": "Session not found"},  # the spec's status
}


def forgets_sessions(seen: list[str], status: int = 400) -> Any:
    """A gate playing a foreign server restarted after each session's first ``tools/call``: from then on it answers that
    session's POSTs with ``status`` and the JSON-RPC error such servers send (:data:`SESSION_REFUSALS`)."""
    dead: set[bytes] = set()

    async def gate(scope: dict[str, Any], request: bytes, send: Any, method: str) -> bool:
        session = dict(scope["headers"]).get(b"mcp-session-id")
        if method != "POST" or session is None:
            return False
        if session in dead:
            seen.append("refused")
            body = {"jsonrpc": "2.0", "id": None, "error": SESSION_REFUSALS[status]}
            return await answer(send, status, json.dumps(body).encode(), (b"content-type", b"application/json"))
        if b'"tools/call"' in request:
            dead.add(session)
        return False

    return gate


async def test_j167_a_400_to_a_session_the_server_forgot(telemetry: Any) -> None:
    """J167 (servers built from the TypeScript SDK's stateful examples answer an unknown ``Mcp-Session-Id`` with 400 "No
    valid session ID provided" rather than the spec's 404, so after their restart every call failed until the host was
    restarted; MCP 2025-11-25, Transports > Session Management). The refusal says the session is gone and that nothing
    ran: the client starts a new session once and the call is answered."""
    from tests.client.servers.app import serve

    server = issues_server()
    seen: list[str] = []
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), forgets_sessions(seen))) as base:
        async with ToolClient(base + "/mcp", timeout=4, mode="legacy", **telemetry.providers) as tc:
            first = await tc.call_tool("search_issues", {"query": "a"})
            second = await tc.call_tool("search_issues", {"query": "b"})
            third = await tc.call_tool("search_issues", {"query": "c"})
    assert first.outcome is Outcome.OK and seen, (first, seen)
    assert second.outcome is not Outcome.TIMEOUT and "timed out" not in second.text.lower(), second
    if second.outcome is Outcome.OK:  # re-sent once on the new session: safe, the refused request provably did not run
        assert second.text == "3 issues match b", second
    else:
        assert second.side_effect_possible is False and second.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, second
    assert third.outcome is Outcome.OK and third.text == "3 issues match c", third
    assert server.ran == ["a", "b", "c"] if second.outcome is Outcome.OK else ["a", "c"], server.ran


def moved_to_trailing_slash(redirects: list[str]) -> Any:
    """An ASGI app redirecting ``/mcp`` to ``/mcp/`` with 307 (Starlette's ``redirect_slashes`` on a mounted app) and
    serving ``app`` at ``/mcp/``."""

    def wrap(app: Any) -> Any:
        async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["path"] == "/mcp":
                redirects.append(scope["method"])
                await answer(send, 307, b"", (b"location", b"/mcp/"))
                return
            if scope["type"] == "http" and scope["path"] == "/mcp/":
                scope = {**scope, "path": "/mcp", "raw_path": b"/mcp"}
            await app(scope, receive, send)

        return asgi

    return wrap


async def test_j168_a_redirect_to_the_trailing_slash_path(telemetry: Any) -> None:
    """J168 (Starlette's ``Mount`` answers ``/mcp`` with 307 to ``/mcp/``; clients that do not follow it, or follow it
    as a GET, failed the handshake with "Redirect response '307 Temporary Redirect'"; RFC 9110 §15.4.8: a 307 keeps the
    method and body). The client follows the redirect with the POST intact and the call is answered."""
    from tests.client.servers.app import serve

    server = issues_server()
    redirects: list[str] = []
    async with serve(moved_to_trailing_slash(redirects)(server.streamable_http_app(host="127.0.0.1"))) as base:
        async with ToolClient(base + "/mcp", timeout=4, **telemetry.providers) as tc:
            result = await tc.call_tool("search_issues", {"query": "crash"})
    assert "POST" in redirects, redirects
    assert result.outcome is Outcome.OK and result.text == "3 issues match crash", result


async def test_j169_a_429_on_the_get_stream(telemetry: Any) -> None:
    """J169 (gateways that count the long-lived GET stream against a connection limit; clients that reopened it at once
    on every refusal were rate-limited harder, and some failed every call). The GET stream is optional (Transports >
    Listening for Messages): calls over POST work, the connection stays up, and the GET is not hammered."""
    from tests.client.servers.app import serve

    server = issues_server()
    gets: list[float] = []
    limited = refusing_get(gets, 429, b"Too Many Requests", (b"retry-after", b"30"))
    async with serve(gated(server.streamable_http_app(host="127.0.0.1"), limited)) as base:
        async with ToolClient(base + "/mcp", timeout=4, mode="legacy", **telemetry.providers) as tc:
            results = [await tc.call_tool("search_issues", {"query": str(n)}) for n in range(3)]
            await anyio.sleep(1.0)
            assert tc.state is ConnectionState.CONNECTED
    assert [r.outcome for r in results] == [Outcome.OK] * 3, results
    assert 1 <= len(gets) <= 2, gets  # the 2025-era session opens the stream; a refusal is not met by a loop
