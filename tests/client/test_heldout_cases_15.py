"""Client side of tests/heldout_cases.md, fifteenth round (J283-J291): other runtimes' and other languages' words for
a failed connection, arguments JSON cannot carry, and servers that bend the wire (an answer to a notification, an
empty ``nextCursor``, tool names that are not ASCII).

``ToolClient`` drives the raw stdio peer (``servers/heldout_peer.py``); every tool is a write with no hints, so a
repeat would re-run it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from errscope import Channel, FailureClass, Outcome
from errscope.client import ConnectionState, RetryPolicy, ToolClient
from tests.client.test_heldout_cases import failed, ok, peer, tool
from tests.client.test_heldout_cases_12 import answered

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def classes_of(results: dict[str, Any]) -> dict[str, tuple[Channel | None, FailureClass | None]]:
    return {name: (result.channel, result.failure_class) for name, result in results.items()}


def all_unavailable(results: dict[str, Any]) -> None:
    assert classes_of(results) == dict.fromkeys(results, (Channel.EXECUTION, FailureClass.UPSTREAM_UNAVAILABLE))
    for result in results.values():
        assert "Ref ERR-" in result.text, result.text


# --- J283-J286: a failed connection in other runtimes' and other languages' words ------------------------------------

async def test_j283_windows_socket_numbers_behind_translated_sentences(tmp_path: Path, telemetry: Any) -> None:
    """J283 (Python on a Chinese or German Windows: "ConnectionRefusedError: [WinError 10061] 由于目标计算机积极拒绝，
    无法连接。", Decalogue/chat #21, MogooStudio/analysis #1, LmeSzinc/StarRailCopilot #593; .NET's
    ``SocketException.ToString()`` "System.Net.Sockets.SocketException (10061): ..." in the system's language; Python's
    ``socket.gaierror`` on Windows "[Errno 11001] getaddrinfo failed"). Windows translates the sentence, never the
    number: the Windows Sockets code after each runtime's name for it says refused, host not found or reset. The first
    three never reached the upstream; the reset may have come after it acted."""
    results = await answered(tmp_path, telemetry, {
        "sync_crm": "System.Net.Http.HttpRequestException: Es konnte keine Verbindung hergestellt werden, da der "
                    "Zielcomputer die Verbindung verweigerte. (crm.example.test:443) ---> "
                    "System.Net.Sockets.SocketException (10061): Es konnte keine Verbindung hergestellt werden, da der "
                    "Zielcomputer die Verbindung verweigerte.",
        "post_order": "System.Net.Sockets.SocketException (11001): 不知道这样的主机。",
        "send_fax": "socket.gaierror: [Errno 11001] getaddrinfo failed",
        "push_log": "ConnectionResetError: [Errno 10054] 远程主机强迫关闭了一个现有的连接。",
    })
    all_unavailable(results)
    for name in ("sync_crm", "post_order", "send_fax"):
        assert results[name].side_effect_possible is not True, results[name]
    assert results["push_log"].side_effect_possible is True, results["push_log"]


async def test_j283_guard_a_number_alone_is_no_socket_error(tmp_path: Path, telemetry: Any) -> None:
    """J283's guard: the same numbers as an invoice or a file name, without a runtime's name for a socket error, say
    nothing of a connection."""
    results = await answered(tmp_path, telemetry, {
        "pay_invoice": "Invoice 11001 is already settled (code 10061)",
        "load_report": "[Errno 2] No such file or directory: 'report_10054.csv'",
    })
    assert results["pay_invoice"].failure_class is FailureClass.UNKNOWN, results["pay_invoice"]
    assert results["load_report"].failure_class is FailureClass.NOT_FOUND, results["load_report"]


async def test_j284_apple_url_loading_words(tmp_path: Path, telemetry: Any) -> None:
    """J284 (Swift MCP servers on Apple's URLSession, modelcontextprotocol/swift-sdk: ``NSError`` printed as "Error
    Domain=NSURLErrorDomain Code=-1003 "A server with the specified hostname could not be found."", -1005 "The network
    connection was lost.", -1009 "The Internet connection appears to be offline.", -1004 in French on a French Mac). The
    URL Loading System's codes (NSURLErrorCannotFindHost, NetworkConnectionLost, NotConnectedToInternet,
    CannotConnectToHost) are a failed connection whatever the language of the sentence; a connection lost mid-request
    may have let the upstream act."""
    results = await answered(tmp_path, telemetry, {
        "find_host": 'Error Domain=NSURLErrorDomain Code=-1003 "A server with the specified hostname could not be found." '
                     'UserInfo={NSErrorFailingURLStringKey=https://api.example.test/v1/notes}',
        "save_note": 'Error Domain=NSURLErrorDomain Code=-1005 "The network connection was lost."',
        "sync_notes": "The Internet connection appears to be offline.",
        "share_note": 'Error Domain=NSURLErrorDomain Code=-1004 "Impossible de se connecter au serveur."',
    })
    all_unavailable(results)
    assert results["save_note"].side_effect_possible is True, results["save_note"]
    for name in ("find_host", "sync_notes", "share_note"):
        assert results[name].side_effect_possible is not True, results[name]


async def test_j285_dart_erlang_and_go_resolver_words(tmp_path: Path, telemetry: Any) -> None:
    """J285 (Dart's ``SocketException``: "Failed host lookup: 'x' (OS Error: No address associated with hostname, errno
    = 7)", dart-lang/http servers; Erlang/Elixir's httpc: "{failed_connect,[{to_address,...},{inet,[inet],nxdomain}]}";
    Go's resolver on a DNS SERVFAIL: "dial tcp: lookup x on 127.0.0.53:53: server misbehaving", golang/go #19061). A name
    that does not resolve is an upstream out of reach (as "no such host"), never reached."""
    results = await answered(tmp_path, telemetry, {
        "fetch_feed": "ClientException with SocketException: Failed host lookup: 'feeds.example.test' (OS Error: No "
                      "address associated with hostname, errno = 7), uri=https://feeds.example.test/rss",
        "notify_team": '{error,{failed_connect,[{to_address,{"hooks.example.test",443}},{inet,[inet],nxdomain}]}}',
        "create_repo": 'Post "https://git.example.test/api/v1/repos": dial tcp: lookup git.example.test on '
                       "127.0.0.53:53: server misbehaving",
    })
    all_unavailable(results)
    for result in results.values():
        assert result.side_effect_possible is not True, result


async def test_j286_java_nio_and_go_http2_connection_words(tmp_path: Path, telemetry: Any) -> None:
    """J286 (Java MCP servers on NIO and Netty: "java.nio.channels.ClosedChannelException" from a channel the peer
    closed, "java.net.PortUnreachableException: ICMP Port Unreachable" for a UDP upstream such as a syslog or DNS
    service; Go's x/net/http2 "http2: client connection lost" when the ping health check finds the connection dead,
    golang/go #59690). All are a connection that failed; the lost HTTP/2 connection may have carried the request."""
    results = await answered(tmp_path, telemetry, {
        "write_event": "java.nio.channels.ClosedChannelException",
        "send_syslog": "java.net.PortUnreachableException: ICMP Port Unreachable",
        "upload_part": 'Put "https://blobs.example.test/b/1?partNumber=3": http2: client connection lost',
    })
    all_unavailable(results)
    assert results["upload_part"].side_effect_possible is True, results["upload_part"]
    assert results["send_syslog"].side_effect_possible is not True, results["send_syslog"]


# --- J287: arguments JSON cannot carry ------------------------------------------------------------------------------

async def test_j287_nan_and_infinity_arguments_are_refused_before_sending(tmp_path: Path, telemetry: Any) -> None:
    """J287 (RFC 8259 §6: "Numeric values that cannot be represented ... (such as Infinity and NaN) are not permitted";
    JSON serialisers that turn them into ``null`` silently: simplejson PR #63, picojson PR #25, sems-server/sems PR #368;
    pydantic, which the SDK serialises the request with, does the same). A host passing a model's computed ``amount`` of
    ``NaN`` or ``inf`` had the request go out with ``"amount": null``, and the tool ran with a value nobody chose. The
    call is the caller's mistake found before sending: ``invalid_input``, nothing sent, the argument named; a finite
    number afterwards goes through on the same session."""
    schema = {"properties": {"amount": {"type": "number"}, "lines": {"type": "array"}}, "required": ["amount"]}
    params, log = peer(tmp_path, [tool("pay_invoice", **schema)], {"pay_invoice": ok("paid")})
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        results = {
            "nan": await tc.call_tool("pay_invoice", {"amount": float("nan")}),
            "inf": await tc.call_tool("pay_invoice", {"amount": float("inf")}),
            "nested": await tc.call_tool("pay_invoice", {"amount": 3.5, "lines": [{"qty": 1, "price": -float("inf")}]}),
        }
        after = await tc.call_tool("pay_invoice", {"amount": 12.5})
    for result in results.values():
        assert (result.outcome, result.failure_class) == (Outcome.ERROR, FailureClass.INVALID_INPUT), result
        assert result.side_effect_possible is False and "Ref ERR-" in result.text, result
        assert "NaN or Infinity" in result.text, result.text
    assert "'amount'" in results["nan"].text and "'lines'" in results["nested"].text, results
    assert after.outcome is Outcome.OK and after.text == "paid", after
    assert [frame["params"]["arguments"] for frame in log.received("tools/call")] == [{"amount": 12.5}]


# --- J288-J290: servers that bend the wire ---------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [
    pytest.param({"jsonrpc": "2.0", "id": None, "error": {"code": -32601,
                                                          "message": "Method not found: notifications/initialized"}},
                 id="id-null-error"),
    pytest.param({"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found: notifications/initialized",
                                              "data": None}}, id="no-id-error"),
    pytest.param({"jsonrpc": "2.0", "id": None, "result": {}}, id="id-null-result"),
    pytest.param({"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "Method not found"}},
                 id="the-initialize-id-again"),
])
async def test_j288_a_server_that_answers_a_notification(tmp_path: Path, telemetry: Any, answer: dict[str, Any]) -> None:
    """J288 (pzalutski-pixel/sharplens-mcp #6: '{"id":null,"error":{"code":-32601,...}}' for
    ``notifications/initialized`` made Claude Code drop the server; zeenix/rust-analyzer-mcp #21: the same error with no
    id closed the transport; yjacquin/fast-mcp #39: '{"id":null,"result":{}}'; oisee/odata_mcp_go PR #33: the null id
    coerced to 0, the id ``initialize`` had used, "Received a response for an unknown message ID"). JSON-RPC 2.0 §4.1:
    a notification gets no answer, so an answer to one answers nothing; it is dropped, the session stays up (one
    ``initialize``), and calls get their own answers."""
    params, log = peer(tmp_path, [tool("search"), tool("create_note")],
                       {"search": ok("3 hits"), "create_note": failed("Note N-7 not found")},
                       notification_answers=[answer])
    async with ToolClient(params, timeout=3, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                          **telemetry.providers) as tc:
        first = await tc.call_tool("search", {"q": "x"})
        second = await tc.call_tool("create_note", {"id": "N-7"})
        state = tc.state
    assert (first.outcome, first.text) == (Outcome.OK, "3 hits"), first
    assert (second.channel, second.failure_class) == (Channel.EXECUTION, FailureClass.NOT_FOUND), second
    assert state is ConnectionState.CONNECTED
    assert len(log.received("initialize")) == 1 and len(log.received("tools/call")) == 2


async def test_j289_an_empty_next_cursor_on_the_last_page(tmp_path: Path, telemetry: Any) -> None:
    """J289 (ChesterRa/cccc PR #50: ``"nextCursor": ""`` on every ``tools/list`` sent Cursor into ~170k requests in 55 s;
    modelcontextprotocol/csharp-sdk #1072 and java-sdk #628: the SDK clients loop on it; PrefectHQ/fastmcp PR #5026 and
    MCPJam/inspector PR #4462: "" is a cursor, not the end, so a client must follow it once). errscope follows the ""
    cursor (a server may mean a real second page by it), sees the page repeat, and stops: every tool once, at most two
    requests per listing, and a call works."""
    tools = [tool("search"), tool("create_note"), tool("delete_note")]
    params, log = peer(tmp_path, tools, {"search": ok("3 hits")}, empty_cursor=True, page_size=2)
    async with ToolClient(params, timeout=3, **telemetry.providers) as tc:
        listed = await tc.list_tools(refresh=True)
        result = await tc.call_tool("search", {"q": "x"})
    assert [t.name for t in listed] == ["search", "create_note", "delete_note"]
    assert result.outcome is Outcome.OK, result
    assert len(log.received("tools/list")) <= 2 * 3, len(log.received("tools/list"))


async def test_j290_tool_names_that_are_not_ascii(tmp_path: Path, telemetry: Any) -> None:
    """J290 (CherryHQ/cherry-studio #6547 and #18202, HKUDS/nanobot PR #5360: hosts that squeeze "获取天气" and
    "查询订单" into one sanitised name call the wrong tool; aws/aws-toolkit-jetbrains #5831; MCP 2025-11-25, Tools > Tool
    Names: names SHOULD be ASCII letters, digits, "_", "-", "."; a server may still send others). errscope keeps each
    name as the server spelled it: each call reaches its own tool, the failure names it, and the span and the metric
    label carry it (it is in the server's listing, so a bounded label)."""
    params, log = peer(tmp_path, [tool("获取天气"), tool("查询订单")],
                       {"获取天气": ok("晴"), "查询订单": failed("订单 O-9 not found")})
    async with ToolClient(params, timeout=3, **telemetry.providers) as tc:
        weather = await tc.call_tool("获取天气", {"city": "上海"})
        order = await tc.call_tool("查询订单", {"id": "O-9"})
    assert (weather.outcome, weather.text) == (Outcome.OK, "晴"), weather
    assert order.failure_class is FailureClass.NOT_FOUND and "查询订单" in order.text, order
    assert [frame["params"]["name"] for frame in log.received("tools/call")] == ["获取天气", "查询订单"]
    assert {s.name for s in telemetry.spans() if s.name.startswith("tools/call")} == {"tools/call 获取天气",
                                                                                      "tools/call 查询订单"}
    labels = {dict(p.attributes).get("gen_ai.tool.name")
              for p in telemetry.histogram_points("mcp.client.operation.duration")}
    assert {"获取天气", "查询订单"} <= labels, labels


# --- J295-J296: .NET Framework's, PowerShell's and the resolvers' other words ----------------------------------------

async def test_j295_dotnet_framework_and_sslstream_words(tmp_path: Path, telemetry: Any) -> None:
    """J295 (PowerShell MCP servers and older .NET servers relaying ``WebException``: "The remote name could not be
    resolved: 'x'" (NameResolutionFailure), "Could not establish trust relationship for the SSL/TLS secure channel."
    (TrustFailure), "The request was aborted: Could not create SSL/TLS secure channel." (SecureChannelFailure), "The
    server committed a protocol violation. Section=ResponseStatusLine"; ``SslStream``'s "The handshake failed due to an
    unexpected packet format." (TLS to a plain port) and "Authentication failed because the remote party has closed the
    transport stream." (dotnet/runtime #26189: a handshake the peer cut, read as a refused credential). All are a
    connection that failed; only the protocol violation came after the request went out."""
    results = await answered(tmp_path, telemetry, {
        "resolve_ticket": "Invoke-RestMethod : The remote name could not be resolved: 'desk.example.test'",
        "post_invoice": "Could not establish trust relationship for the SSL/TLS secure channel.",
        "send_mail": "The request was aborted: Could not create SSL/TLS secure channel.",
        "update_asset": "The server committed a protocol violation. Section=ResponseStatusLine",
        "open_vault": "System.IO.IOException: The handshake failed due to an unexpected packet format.",
        "sign_doc": "System.Security.Authentication.AuthenticationException: Authentication failed because the remote "
                    "party has closed the transport stream.",
    })
    all_unavailable(results)
    assert results["update_asset"].side_effect_possible is True, results["update_asset"]
    for name in ("resolve_ticket", "post_invoice", "send_mail", "open_vault", "sign_doc"):
        assert results[name].side_effect_possible is not True, results[name]


async def test_j295_guard_a_refused_login_stays_a_refusal(tmp_path: Path, telemetry: Any) -> None:
    """J295's guard: "Authentication failed" whose cause is the credential, and a host a tool looked up that is not in
    its inventory, keep their classes."""
    results = await answered(tmp_path, telemetry, {
        "login": "Authentication failed for user 'svc-report'",
        "restart_host": "Host not found: web-3",
    })
    assert results["login"].failure_class is FailureClass.PERMISSION_DENIED, results["login"]
    assert results["restart_host"].failure_class is FailureClass.NOT_FOUND, results["restart_host"]


async def test_j296_resolvers_other_words(tmp_path: Path, telemetry: Any) -> None:
    """J296 (musl's resolver in Alpine images: "getaddrinfo: Name does not resolve", docker-library and gliderlabs/
    docker-alpine reports; Windows' WSANO_DATA "The requested name is valid, but no data of the requested type was
    found." and WSATRY_AGAIN "This is usually a temporary error during hostname resolution ..."; Boost.Asio's "Host not
    found (authoritative)" from C++ servers, read as a missing record; ERROR_NETNAME_DELETED "The specified network name
    is no longer available." mid-transfer). A name that does not resolve is an upstream out of reach; the dropped
    network name may have let the upstream act."""
    results = await answered(tmp_path, telemetry, {
        "call_webhook": "getaddrinfo: Name does not resolve (hooks.example.test:443)",
        "sync_mail": "The requested name is valid, but no data of the requested type was found.",
        "pull_feed": "This is usually a temporary error during hostname resolution and means that the local server did "
                     "not receive a response from an authoritative server.",
        "fetch_quote": "resolve: Host not found (authoritative)",
        "copy_share": "The specified network name is no longer available.",
    })
    all_unavailable(results)
    assert results["copy_share"].side_effect_possible is True, results["copy_share"]


# --- J297: the on-call path for a translated failure -----------------------------------------------------------------

async def test_j297_explain_reads_a_translated_socket_error_as_its_class(tmp_path: Path) -> None:
    """J297 (the on-call path, span -> log -> explain, for J283: a user on a German Windows quotes "sync_crm failed:
    ... verweigerte ... Ref ERR-..."). ``errscope explain`` on the sentence the model was shown finds the call and names
    its class, ``upstream_unavailable`` (the dashboard's outage panel, not the ``unknown`` alert), and does not claim the
    upstream may have acted (a refusal never reached it)."""
    from errscope._setup import configure_telemetry
    from tests.client.test_oncall_explain import explain

    text = ("System.Net.Sockets.SocketException (10061): Es konnte keine Verbindung hergestellt werden, da der "
            "Zielcomputer die Verbindung verweigerte.")
    params, log = peer(tmp_path, [tool("sync_crm")], {"sync_crm": failed(text)})
    host = configure_telemetry("oncall-host", output_dir=tmp_path / "host", set_global=False)
    try:
        async with ToolClient(params, timeout=5, retry=RetryPolicy(backoff_initial=0.01, jitter=0),
                              tracer_provider=host.tracer_provider, meter_provider=host.meter_provider) as tc:
            result = await tc.call_tool("sync_crm", {"id": "C-1"})
    finally:
        host.shutdown()
    assert result.failure_class is FailureClass.UPSTREAM_UNAVAILABLE, result
    said = explain(result.text, tmp_path)
    assert result.error_ref in said and "errscope.failure_class=upstream_unavailable" in said, said
    assert "may have taken effect" not in said and "failure_class=unknown" not in said, said
    assert len(log.received("tools/call")) == 1


# --- J299-J300: list_changed against a listing in flight, and a server that announces a change on every listing ----

async def test_j299_a_list_changed_during_a_paginated_listing(tmp_path: Path, telemetry: Any) -> None:
    """J299 (aaif-goose/goose #10433: "a notification received while [tools/list] is in flight must prevent an older
    in-flight result from becoming the current cached result"; modelcontextprotocol/inspector PR #1443, the
    clear-after-await race; typescript-sdk PR #2249's review, a refresh that keeps only page 1). The server's tools
    change while the client walks its pages: page 1 is the old list, ``list_changed`` comes, page 2 is the new one.
    The client's catalogue must end as the server's new list, not a mix of both ("a", "b" gone, "x", "y" missing), and
    a tool of the new list is called."""
    old = [tool("a"), tool("b"), tool("c"), tool("d")]
    new = [tool("x"), tool("y"), tool("e"), tool("f")]
    params, log = peer(tmp_path, old, {"e": ok("E"), "x": ok("X")}, page_size=2, relist_at="2", relist_tools=new)
    async with ToolClient(params, timeout=3, **telemetry.providers) as tc:
        listed = [t.name for t in await tc.list_tools()]
        result = await tc.call_tool("x", {})
    assert listed == ["x", "y", "e", "f"], listed
    assert (result.outcome, result.text) == (Outcome.OK, "X"), result
    assert len(log.received("tools/list")) <= 6, len(log.received("tools/list"))


async def test_j300_a_server_that_announces_a_change_every_time_it_is_listed(tmp_path: Path, telemetry: Any) -> None:
    """J300 (microsoft/aspire PR #14494: the server sent ``notifications/tools/list_changed`` as a side effect of every
    ``tools/list``, and the client re-listed on each: ~1,742 listings in under three minutes until the client killed
    the server; DeusData/codebase-memory-mcp #1247 for the cursor form of the same loop). Re-listing on a
    notification backs off while the listing comes back unchanged; calls still work and a changed listing is still
    seen before the next call."""
    params, log = peer(tmp_path, [tool("search")], {"search": ok("3 hits")}, list_changed_on_list=True)
    async with ToolClient(params, timeout=3, **telemetry.providers) as tc:
        await anyio.sleep(2.0)
        listed_while_idle = len(log.received("tools/list"))
        result = await tc.call_tool("search", {"q": "x"})
    assert listed_while_idle <= 6, listed_while_idle
    assert (result.outcome, result.text) == (Outcome.OK, "3 hits"), result
