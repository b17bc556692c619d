"""Client side of tests/heldout_cases.md, fourteenth round (J262-J267, J277-J281): foreign SDKs' and runtimes' words read as the
same failure they name.

A gRPC status printed into a tool's error text by the runtime the foreign server runs on (grpc-go, grpc-java, grpc-js,
grpc-dotnet, tonic), read with the table errscope uses for a gRPC library's exception. A JSON-RPC error whose message is
generic and whose cause is only in ``error.data`` (rmcp servers' ``McpError::internal_error(msg, Some(json!({"error":
e.to_string()})))``). The TypeScript SDK's "Tool x disabled", which is an unknown tool, not bad arguments. And guards
for the Go SDK's, rmcp's and the C# SDK's wordings that were already right.

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a
repeat would re-run it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errscope import Channel, FailureClass
from errscope.client import RetryPolicy, ToolClient
from tests.client.test_heldout_cases import failed, peer, tool
from tests.client.test_heldout_cases_12 import answered

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def classes_of(results: dict[str, Any]) -> dict[str, tuple[Channel | None, FailureClass | None]]:
    return {name: (result.channel, result.failure_class) for name, result in results.items()}


async def called_once(tmp_path: Path, telemetry: Any, answers: dict[str, Any]) -> dict[str, Any]:
    """Each tool called once through a peer answering as ``answers`` (a result or a JSON-RPC error); the results by
    tool, each checked to have reached the peer exactly once (retries enabled, none taken)."""
    params, log = peer(tmp_path, [tool(name) for name in answers], answers)
    results = {}
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        for name in answers:
            results[name] = await tc.call_tool(name, {"id": "X-1"})
    sent = [frame["params"]["name"] for frame in log.received("tools/call")]
    assert sorted(sent) == sorted(answers), sent
    return results


def rpc_error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **({"data": data} if data is not None else {})}}


# --- J262: a gRPC status printed into the text ----------------------------------------------------------------------

async def test_j262_grpc_statuses_in_each_runtime_s_words(tmp_path: Path, telemetry: Any) -> None:
    """J262 (grpc-go ``status.Error``'s "rpc error: code = AlreadyExists desc = ..."; grpc-java's
    "io.grpc.StatusRuntimeException: ABORTED: ..."; grpc-js's "9 FAILED_PRECONDITION: ..."; grpc-dotnet's
    'Status(StatusCode="ResourceExhausted", Detail="...")'; tonic's "Status { code: Internal, ... }"; relayed by Go, Java,
    Node, .NET and Rust MCP servers whose tools call a gRPC backend). errscope reads the same statuses on a Python gRPC
    library's exception with google/rpc/code.proto's table (ALREADY_EXISTS and FAILED_PRECONDITION: the request as
    made cannot apply; RESOURCE_EXHAUSTED: a quota, or, as here, a message over its size limit, which no wait fixes
    (J367); ABORTED: a conflict, rolled back; INTERNAL: the backend failed);
    the text form was ``unknown`` unless its description happened to say "quota" or "unavailable"."""
    results = await answered(tmp_path, telemetry, {
        "create_order": "rpc error: code = AlreadyExists desc = order ORD-7 already exists",
        "close_ticket": "Error: 9 FAILED_PRECONDITION: ticket T-9 is archived",
        "render_report": 'Grpc.Core.RpcException: Status(StatusCode="ResourceExhausted", Detail="grpc: received message '
                         'larger than max (9000000 vs. 4194304)")',
        "reserve_seat": "io.grpc.StatusRuntimeException: ABORTED: transaction conflict, retry the transaction",
        "sync_ledger": 'Status { code: Internal, message: "h2 protocol error: stream no longer needed", source: None }',
    })
    assert classes_of(results) == {
        "create_order": (Channel.EXECUTION, FailureClass.INVALID_INPUT),
        "close_ticket": (Channel.EXECUTION, FailureClass.INVALID_INPUT),
        "render_report": (Channel.EXECUTION, FailureClass.INVALID_INPUT),  # a message over its size limit (J367)
        "reserve_seat": (Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE),
        "sync_ledger": (Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE),
    }
    # INTERNAL: the backend failed while handling it (the table's "may have run"); ABORTED was rolled back.
    assert results["sync_ledger"].side_effect_possible is True, results["sync_ledger"]
    assert results["reserve_seat"].side_effect_possible is not True, results["reserve_seat"]
    for result in results.values():
        assert "Ref ERR-" in result.text, result.text


async def test_j262_guard_a_number_beside_a_word_is_no_grpc_status(tmp_path: Path, telemetry: Any) -> None:
    """J262's guard: grpc-js's form is read only when the number is that status's own ("8 RESOURCE_EXHAUSTED"); "3
    ITEMS: ..." or "8 FAILED_PRECONDITION" (9's name) names no status, and grpc-go's ``Unimplemented`` (the tool called
    what the backend lacks) stays ``unknown``, as on a Python gRPC exception."""
    results = await answered(tmp_path, telemetry, {
        "pack_box": "Error: 3 ITEMS: could not be packed",
        "close_case": "8 FAILED_PRECONDITION: case closed",
        "create_user": "rpc error: code = Unimplemented desc = unknown method CreateUser for service users.v1.Users",
    })
    assert classes_of(results) == dict.fromkeys(results, (Channel.EXECUTION, FailureClass.UNKNOWN))


# --- J263-J264: the cause only in a JSON-RPC error's data ----------------------------------------------------------

async def test_j263_the_cause_only_in_error_data(tmp_path: Path, telemetry: Any) -> None:
    """J263 (rmcp servers: ``McpError::internal_error("Failed to start subagent task", Some(json!({"error":
    e.to_string()})))`` and ``internal_error("IO operation failed", Some(json!({"error": ...})))``, the pattern across
    public Rust MCP servers; JSON-RPC 2.0 §5.1: ``data`` holds "additional information about the error"; a Java server
    putting the exception's text in ``data``). The message is generic and the cause, a refused connection or the
    backend's 503 or 429, is only in ``data``: the class is the cause's (``upstream_unavailable``, ``rate_limited``),
    not ``unknown``; no write is sent twice."""
    results = await called_once(tmp_path, telemetry, {
        "start_task": rpc_error(-32603, "Failed to start subagent task", {
            "error": "error sending request for url (http://runner.internal:8080/v1/tasks): client error (Connect): "
                     "tcp connect error: Connection refused (os error 111)"}),
        "write_blob": rpc_error(-32603, "Internal error", "java.net.ConnectException: Connection refused"),
        "send_sms": rpc_error(-32603, "Tool execution failed", {"status": 503, "body": "upstream unavailable"}),
        "post_tweet": rpc_error(-32000, "Server error", {"error": {"message": "upstream answered 429 Too Many Requests"}}),
    })
    assert classes_of(results) == {
        "start_task": (Channel.PROTOCOL, FailureClass.UPSTREAM_UNAVAILABLE),
        "write_blob": (Channel.PROTOCOL, FailureClass.UPSTREAM_UNAVAILABLE),
        "send_sms": (Channel.PROTOCOL, FailureClass.UPSTREAM_UNAVAILABLE),
        "post_tweet": (Channel.PROTOCOL, FailureClass.RATE_LIMITED),
    }
    for result in results.values():
        assert "Ref ERR-" in result.text and "Fix the arguments" not in result.text, result.text


async def test_j264_a_message_that_names_the_cause_wins_over_data(tmp_path: Path, telemetry: Any) -> None:
    """J264 (J263's guard): a message that names its own failure keeps its class whatever ``data`` holds ("Order 42 not
    found" with a retry hint in ``data``), and ``data`` that names no cause (a stack of frames, an id) leaves a generic
    -32603 ``unknown``."""
    results = await called_once(tmp_path, telemetry, {
        "get_order": rpc_error(-32603, "Order 42 not found", {"error": "backend timed out once before answering"}),
        "run_job": rpc_error(-32603, "Internal error", {"requestId": "r-81", "error": "at Job.run (job.js:12:3)"}),
    })
    assert classes_of(results) == {
        "get_order": (Channel.PROTOCOL, FailureClass.NOT_FOUND),
        "run_job": (Channel.PROTOCOL, FailureClass.UNKNOWN),
    }


# --- J265-J267: foreign SDKs' wordings for a tool that is not there or arguments that do not fit -------------------

async def test_j265_a_disabled_tool_is_an_unknown_tool(tmp_path: Path, telemetry: Any) -> None:
    """J265 (the TypeScript SDK's ``McpServer``: ``throw new McpError(ErrorCode.InvalidParams, `Tool ${name}
    disabled`)``, in v1 and v2 alike, after ``tool.disable()`` took it out of ``tools/list`` and sent
    ``list_changed``; typescript-sdk's changeset fix-unknown-tool-protocol-error: "Unknown or disabled tool calls now
    return JSON-RPC protocol errors with code -32602"; older v1 servers wrapped it into an ``isError`` text "MCP error
    -32602: Tool x disabled"). A disabled tool is a tool that is not offered: the client re-lists and tells the model
    it is no longer available, as for "Tool x not found"; it never says "Fix the arguments" for arguments that were
    fine, and nothing is sent again."""
    others = [tool("search")]
    params, log = peer(tmp_path, [tool("send_invoice"), tool("post_update"), *others], {
        "send_invoice": {**rpc_error(-32602, "Tool send_invoice disabled"), "retool": others},
        "post_update": {**failed("MCP error -32602: Tool post_update disabled"), "retool": others},
    })
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        await tc.list_tools()
        results = {name: await tc.call_tool(name, {"id": "X-1"}) for name in ("send_invoice", "post_update")}
    assert classes_of(results) == {
        "send_invoice": (Channel.PROTOCOL, FailureClass.NOT_FOUND),
        "post_update": (Channel.EXECUTION, FailureClass.NOT_FOUND),
    }
    for name, result in results.items():
        assert "no longer available" in result.text and "search" in result.text, result.text
        assert "Fix the arguments" not in result.text, result.text
    sent = [frame["params"]["name"] for frame in log.received("tools/call")]
    assert sorted(sent) == ["post_update", "send_invoice"], sent
    assert len(log.received("tools/list")) >= 2, "no re-list after the disabled tool"


async def test_j266_go_sdk_and_rmcp_argument_rejections(tmp_path: Path, telemetry: Any) -> None:
    """J266 (modelcontextprotocol/go-sdk v1.7.0 ``mcp/server.go``: a schema failure comes back as an ``isError`` text
    ``validating "arguments": validating root: ...``, e.g. "validating /properties/mode: enum: sidecar does not equal any
    of: [kernel-native dual-engine]" (kmesh's MCP server docs); rmcp servers' ``ErrorData::invalid_params(format!("failed
    to deserialize parameters: {error}"))`` with serde's "missing field `label`"). Already right before this round;
    kept as the guard beside J265: the sanctioned -32602 note names the argument, and nothing is re-sent."""
    results = await called_once(tmp_path, telemetry, {
        "set_mode": failed('validating "arguments": validating root: validating /properties/mode: enum: sidecar does not '
                           "equal any of: [kernel-native dual-engine]"),
        "create_label": rpc_error(-32602, "failed to deserialize parameters: missing field `label`"),
    })
    assert {name: result.failure_class for name, result in results.items()} == dict.fromkeys(
        results, FailureClass.INVALID_INPUT)
    assert "`mode`" in results["set_mode"].text and "kernel-native" in results["set_mode"].text, results["set_mode"].text
    assert "`label` is required" in results["create_label"].text, results["create_label"].text


async def test_j267_csharp_sdk_unknown_tool_as_invalid_request(tmp_path: Path, telemetry: Any) -> None:
    """J267 (the C# SDK's ``McpProtocolException($"Unknown tool: '{name}'", McpErrorCode.InvalidRequest)``: -32600, not
    the -32602 the spec gives unknown tools). Already right: the name, not the code, says the tool is unknown, so the
    client re-lists instead of telling the model to fix its arguments."""
    others = [tool("lookup")]
    params, log = peer(tmp_path, [tool("archive_mail"), *others], {
        "archive_mail": {**rpc_error(-32600, "Unknown tool: 'archive_mail'"), "retool": others},
    })
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        await tc.list_tools()
        result = await tc.call_tool("archive_mail", {"id": "X-1"})
    assert (result.channel, result.failure_class) == (Channel.PROTOCOL, FailureClass.NOT_FOUND), result
    assert "no longer available" in result.text and "Fix the arguments" not in result.text, result.text
    assert len(log.received("tools/call")) == 1


async def test_j277_php_and_ruby_sdk_unknown_tools(tmp_path: Path, telemetry: Any) -> None:
    """J277 (the PHP SDK's ``ToolNotFoundException``: ``sprintf('Tool not found for call: "%s".', $name)`` answered as
    -32602, its tests assert ``Error::INVALID_PARAMS``; the Ruby SDK's ``RequestHandlerError.new("Tool not found
    #{tool_name}", request, error_type: :tool_not_found)``). Both say the tool is not there: re-list and say so, never
    "Fix the arguments". The PHP wording read as rejected arguments before this round (the name after "for call:" was
    not read); the Ruby one was already right."""
    others = [tool("lookup")]
    params, log = peer(tmp_path, [tool("archive_mail"), tool("tag_mail"), *others], {
        "archive_mail": {**rpc_error(-32602, 'Tool not found for call: "archive_mail".'), "retool": others},
        "tag_mail": {**rpc_error(-32602, "Tool not found tag_mail"), "retool": others},
    })
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        await tc.list_tools()
        results = {name: await tc.call_tool(name, {"id": "X-1"}) for name in ("archive_mail", "tag_mail")}
    assert classes_of(results) == dict.fromkeys(results, (Channel.PROTOCOL, FailureClass.NOT_FOUND))
    for result in results.values():
        assert "no longer available" in result.text and "Fix the arguments" not in result.text, result.text
    assert len(log.received("tools/call")) == 2


# --- J278-J281: transport failures told in other runtimes' words ---------------------------------------------------

async def test_j278_tls_to_a_plain_port_in_other_runtimes_words(tmp_path: Path, telemetry: Any) -> None:
    """J278 (TLS spoken to a port that speaks plain text, or a handshake the peer cut, as servers in other languages
    relay it: Go's crypto/tls "tls: first record does not look like a TLS handshake"; Node's "write EPROTO ...
    wrong version number"; Java's "Unrecognized SSL message, plaintext connection?" and "Remote host terminated the
    handshake"; Ruby's "SSL_connect returned=1 ... wrong version number"; curl 35). The same failure raised in a
    Python tool (``ssl.SSLError`` WRONG_VERSION_NUMBER, J271) is ``upstream_unavailable`` and never reached the
    service; the texts were ``unknown``."""
    results = await answered(tmp_path, telemetry, {
        "push_metrics": 'Post "https://metrics.internal:8080/v1/push": tls: first record does not look like a TLS handshake',
        "upload_file": "Error: write EPROTO 4057C61AB27F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version "
                       "number:../deps/openssl/openssl/ssl/record/ssl3_record.c:354:",
        "create_lead": "javax.net.ssl.SSLException: Unrecognized SSL message, plaintext connection?",
        "sync_orders": "javax.net.ssl.SSLHandshakeException: Remote host terminated the handshake",
        "open_ticket": "OpenSSL::SSL::SSLError: SSL_connect returned=1 errno=0 peeraddr=10.0.0.5:443 state=error: wrong "
                       "version number",
        "send_event": "cURL error 35: OpenSSL/3.0.2: error:0A00010B:SSL routines::wrong version number",
    })
    assert classes_of(results) == dict.fromkeys(results, (Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE))
    for result in results.values():
        assert result.side_effect_possible is not True, result


async def test_j279_a_client_certificate_refused_in_other_runtimes_words(tmp_path: Path, telemetry: Any) -> None:
    """J279 (a server requiring mutual TLS refuses the tool's client certificate with a TLS alert, RFC 8446 §6.2:
    Go's "remote error: tls: bad certificate", Java's "Received fatal alert: certificate_required", rustls's
    "received fatal alert: BadCertificate", OpenSSL's "tlsv1 alert unknown ca"). errscope reads the same alerts on
    ``ssl.SSLError`` as the tool's credential refused (tests/classification/test_tls_handshakes.py): ``permission_denied``,
    not ``unknown`` nor the outage "fatal alert" read as."""
    results = await answered(tmp_path, telemetry, {
        "read_ledger": 'Get "https://ledger.internal/v1/entries": remote error: tls: bad certificate',
        "post_payment": "javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_required",
        "fetch_report": "error sending request: invalid peer response: received fatal alert: BadCertificate",
        "list_vaults": "[SSL: TLSV1_ALERT_UNKNOWN_CA] tlsv1 alert unknown ca (_ssl.c:2580)",
    })
    assert classes_of(results) == dict.fromkeys(results, (Channel.EXECUTION, FailureClass.PERMISSION_DENIED))


async def test_j280_a_connection_that_never_formed_or_was_reset(tmp_path: Path, telemetry: Any) -> None:
    """J280 (curl 7 through Guzzle: "Failed to connect to ... Couldn't connect to server"; Java NIO's
    ``UnresolvedAddressException`` through Ktor; OkHttp's ``StreamResetException`` "stream was reset: CANCEL" and Okio's
    ``EOFException`` "\\n not found" reading a status line from a closed connection (square/okhttp #3146 and #1517);
    Chromium's ``net::ERR_HTTP2_PROTOCOL_ERROR``). Each is the service out of reach or a connection that ended before the
    answer: ``upstream_unavailable``, not ``unknown``, and Okio's words are no missing record ("not found")."""
    results = await answered(tmp_path, telemetry, {
        "create_invoice": "GuzzleHttp\\Exception\\ConnectException: cURL error 7: Failed to connect to api.FAKE.example "
                          "port 443 after 3 ms: Couldn't connect to server",
        "geocode": "java.nio.channels.UnresolvedAddressException",
        "post_comment": "okhttp3.internal.http2.StreamResetException: stream was reset: CANCEL",
        "update_profile": "java.io.EOFException: \\n not found: limit=0 content=\u2026",
        "capture_page": "net::ERR_HTTP2_PROTOCOL_ERROR at https://app.FAKE.example/dashboard",
    })
    assert classes_of(results) == dict.fromkeys(results, (Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE))
    assert results["create_invoice"].side_effect_possible is not True
    assert results["post_comment"].side_effect_possible is True


async def test_j281_a_unix_socket_missing_in_go_and_node_words(tmp_path: Path, telemetry: Any) -> None:
    """J281 (J269's failure as Go and Node servers relay it: docker/cli "dial unix /var/run/docker.sock: connect: no
    such file or directory", Node's "connect ENOENT /var/run/docker.sock"). The daemon is not running:
    ``upstream_unavailable``, never sent; not the ``not_found`` "no such file" read as."""
    results = await answered(tmp_path, telemetry, {
        "list_containers": 'Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.47/containers/json": dial unix '
                           "/var/run/docker.sock: connect: no such file or directory",
        "run_container": "Error: connect ENOENT /var/run/docker.sock",
    })
    assert classes_of(results) == dict.fromkeys(results, (Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE))
    for result in results.values():
        assert result.side_effect_possible is not True and "identifier" not in result.text, result.text
