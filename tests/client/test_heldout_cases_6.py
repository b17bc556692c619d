"""Client side of tests/heldout_cases.md, sixth round (J119-J131): how other runtimes word a failed connection (Go,
Node's undici, Rust's reqwest, Java's Reactor and ``java.net``, Windows sockets in any language, Chromium), a foreign
SDK's argument error, a gateway relaying its upstream session's end, and progress that cannot outlast the ceiling.

Each scenario is a real stdio subprocess: the raw foreign peer (``servers/heldout_peer.py``) answering with the exact
text or JSON-RPC error a foreign server sent, or the foreign server's ``slow`` tool sending real progress notifications.
The class is what decides the breaker, the retry and the alert, so each test asserts the class, never the wording.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from errscope import Channel, FailureClass, Outcome
from errscope.client import ConnectionState, TimeoutPolicy, ToolClient
from tests.client.test_heldout_cases import failed, peer, tool

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def rpc_error(code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


async def classes(tmp_path: Path, answers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each tool of ``answers`` called once on one foreign peer: ``{tool: ToolCallResult}``."""
    params, _ = peer(tmp_path, [tool(name) for name in answers], answers)
    results = {}
    async with ToolClient(params, timeout=5, retry=None) as tc:
        for name in answers:
            results[name] = await tc.call_tool(name, {})
        assert tc.state is ConnectionState.CONNECTED
    return results


def assert_classes(results: dict[str, Any], expected: FailureClass) -> None:
    wrong = {name: (r.failure_class, r.text) for name, r in results.items() if r.failure_class is not expected}
    assert not wrong, wrong
    for result in results.values():
        assert result.outcome is Outcome.ERROR and "Ref ERR-" in result.text, result


async def test_j119_a_host_name_that_does_not_resolve_is_no_missing_record(tmp_path: Path) -> None:
    """J119 (mcpjungle/MCPJungle #304: "dial tcp: lookup mcp.brightdata.com: no such host"; lobehub/lobehub #8546:
    "getaddrinfo ENOTFOUND mcp.mydomain.com1"; OpenRefine/OpenRefine #1235: ``java.net.UnknownHostException``). A tool
    whose upstream's name does not resolve reports it in its runtime's words. "No such host" is not "no such record":
    the model must not conclude the id it asked for is missing; the upstream is unreachable (as ``socket.gaierror`` is
    on errscope's own side)."""
    results = await classes(tmp_path, {
        "go_lookup": failed('Get "https://api.internal.example/v1/items/42": dial tcp: lookup api.internal.example on '
                            "127.0.0.53:53: no such host"),
        "node_lookup": failed("request to https://api.internal.example/v1/items/42 failed, reason: getaddrinfo ENOTFOUND "
                              "api.internal.example"),
        "java_lookup": failed("java.net.UnknownHostException: api.internal.example"),
        "python_lookup": failed("[Errno -2] Name or service not known"),
    })
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)


async def test_j120_nodes_fetch_failed_and_other_side_closed(tmp_path: Path) -> None:
    """J120 (TheLunarCompany/lunar #28 and nodejs/undici #3300: "TypeError: fetch failed … [cause]: SocketError: other
    side closed … code: 'UND_ERR_SOCKET'"; CherryHQ/cherry-studio #8782: "fetch failed: other side closed"). Node's
    ``fetch`` throws only when no HTTP answer came (an HTTP status never throws), so its words, and the older
    ``http`` module's "socket hang up", mean the upstream's connection failed."""
    results = await classes(tmp_path, {
        "undici": failed("TypeError: fetch failed\n  [cause]: SocketError: other side closed  code: 'UND_ERR_SOCKET'"),
        "fetch_only": failed("Error calling upstream: fetch failed"),
        "http_module": failed("Error: socket hang up"),
    })
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)


async def test_j121_go_and_grpc_deadlines(tmp_path: Path) -> None:
    """J121 (mark3labs/mcphost #11: "Error calling tool getMetrics: context deadline exceeded"; zilliztech/claude-context
    #154: Milvus' gRPC ``code: 4, details: 'Deadline exceeded'``). Go's context deadline and gRPC's DEADLINE_EXCEEDED
    (status 4) are an upstream that did not answer in time, as "timed out" is."""
    results = await classes(tmp_path, {
        "go_context": failed("query metrics: context deadline exceeded"),
        "grpc_status": failed("rpc error: code = DeadlineExceeded desc = context deadline exceeded"),
        "grpc_node": failed("4 DEADLINE_EXCEEDED: Deadline exceeded after 30.001s"),
    })
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)


async def test_j122_windows_socket_errors_in_any_language(tmp_path: Path) -> None:
    """J122 (nibor1896/Crow #139: "URLError: [WinError 10054]" on an MCP server's dropped connections; nearai/ironclaw
    #2521: "ConnectionResetError: [WinError 10054] Se ha forzado la interrupción de una conexión existente por el host
    remoto"; google/mcp-security #198: "Cannot connect to host www.virustotal.com:443 ssl:default [The semaphore timeout
    period has expired]"). Windows translates a socket error's sentence into the user's language but not its number (Windows Sockets
    Error Codes: 10054 WSAECONNRESET, 10061 WSAECONNREFUSED, 10060 WSAETIMEDOUT): the number is what can be read."""
    results = await classes(tmp_path, {
        "reset_es": failed("[WinError 10054] Se ha forzado la interrupción de una conexión existente por el host remoto"),
        "refused_de": failed("[WinError 10061] Es konnte keine Verbindung hergestellt werden, da der Zielcomputer die "
                             "Verbindung verweigerte"),
        "reset_en": failed("An existing connection was forcibly closed by the remote host"),
        "refused_en": failed("No connection could be made because the target machine actively refused it."),
        "wsa_name": failed("socket error WSAETIMEDOUT while reading the response"),
        "aiohttp_win": failed("Error executing tool search_malware_families: Cannot connect to host www.virustotal.com:443 "
                              "ssl:default [The semaphore timeout period has expired]"),
    })
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)


async def test_j123_rusts_reqwest_failure_in_an_internal_error(tmp_path: Path) -> None:
    """J123 (windmill-labs/windmill #6693: "MCP error -32603: Failed to execute request: error sending request for url
    (…"; Govcraft/rust-docs-mcp-server #24: "MCP error -32603: OpenAI API error: http error: error sending request";
    Minima-AI-Inc/minima #45: ``(-32603, 'All connection attempts failed')``, httpx's words from a Python server). A
    server's tool reports its failure to reach its upstream as -32603, a code that says nothing of the class: the
    message decides. The call may have run (a -32603 comes after the server took the request)."""
    params, log = peer(tmp_path, [tool("run_script"), tool("ask_docs"), tool("search_files")], {
        "run_script": rpc_error(-32603, "Failed to execute request: error sending request for url "
                                        "(http://127.0.0.1:8000/api/w/main/jobs/run/p/f/flow)"),
        "ask_docs": rpc_error(-32603, "OpenAI API error: http error: error sending request"),
        "search_files": rpc_error(-32603, "All connection attempts failed"),
    })
    async with ToolClient(params, timeout=5, retry=None) as tc:
        results = [await tc.call_tool(name, {}) for name in ("run_script", "ask_docs", "search_files")]
    for result in results:
        assert (result.channel, result.failure_class) == (Channel.PROTOCOL, FailureClass.UPSTREAM_UNAVAILABLE), result
        assert result.side_effect_possible is not False, result
    assert len(log.received("tools/call")) == 3  # none re-sent


async def test_j124_a_gateway_relaying_its_upstream_sessions_end(tmp_path: Path) -> None:
    """J124 (pomazanbohdan/memory-mcp-1file #1 and arvindand/maven-tools-mcp #1: "MCP error -32000: Connection closed";
    kirodotdev/Kiro #4036: "Transport closed"; openai/codex #36863: "Transport channel closed"). A gateway's tool relays
    that its own MCP connection to the real server ended, in the words of the SDK it uses. That is the gateway's upstream
    being unavailable, whichever SDK wrote it."""
    results = await classes(tmp_path, {
        "ts_sdk": failed("Error calling tool search: MCP error -32000: Connection closed"),
        "rmcp": failed("tool call failed for `deslop/top-offenders`: Transport closed"),
        "rmcp_worker": failed("worker quit with fatal: Transport channel closed"),
    })
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)


async def test_j125_javas_reactor_timeout(tmp_path: Path) -> None:
    """J125 (Fj-ivy/claude-mcp-examples #1: the Java SDK's client failed with "Did not observe any item or terminal
    signal within 60000ms in 'source(MonoCreate)' (and no fallback has been configured)"; modelcontextprotocol/java-sdk
    #379: reactor-netty's "PrematureCloseException: Connection prematurely closed DURING response"). Reactor's ``timeout()``
    operator words an upstream that did not answer in time without "timeout" or "timed out", and reactor-netty a
    connection lost before the answer without "reset" or "refused"; a gateway built on the Java SDK relays them as is."""
    results = await classes(tmp_path, {
        "reactor": failed("Did not observe any item or terminal signal within 60000ms in 'source(MonoCreate)' "
                          "(and no fallback has been configured)"),
        "plain": failed("upstream sent no response within 30s"),
        "netty": failed("reactor.netty.http.client.PrematureCloseException: Connection prematurely closed BEFORE response"),
    })
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)


async def test_j126_chromium_network_errors_from_a_browser_tool(tmp_path: Path) -> None:
    """J126 (microsoft/playwright #42377: Playwright MCP's navigation failing with ``net::ERR_ACCESS_DENIED`` on local
    addresses; github/copilot-cli #4232: ``browser_navigate`` never reaching a server on localhost). Chromium names its
    network errors in upper snake case (``net::ERR_CONNECTION_REFUSED``, ``ERR_NAME_NOT_RESOLVED``): read as words, a
    refused or unresolvable site is unreachable and a denied one is a refusal."""
    results = await classes(tmp_path, {
        "goto_refused": failed("Error: page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:3000/"),
        "goto_dns": failed("Error: page.goto: net::ERR_NAME_NOT_RESOLVED at http://app.internal.example/"),
        "goto_closed": failed("Error: page.goto: net::ERR_CONNECTION_CLOSED at http://127.0.0.1:3000/"),
        "goto_denied": failed("Error: page.goto: net::ERR_ACCESS_DENIED at http://127.0.0.1:3000/"),
    })
    denied = results.pop("goto_denied")
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)
    assert_classes({"goto_denied": denied}, FailureClass.PERMISSION_DENIED)


async def test_j127_the_csharp_sdks_missing_argument(tmp_path: Path) -> None:
    """J127 (modelcontextprotocol/csharp-sdk #830: "The arguments dictionary is missing a value for the required
    parameter 'request'. (Parameter 'arguments')", the model "doomed to repeat it"). The C# SDK's wording of a missing
    argument is the caller's mistake: ``invalid_input``, so the model fixes the call instead of retrying it."""
    results = await classes(tmp_path, {
        "create_ticket": failed("The arguments dictionary is missing a value for the required parameter 'request'. "
                                "(Parameter 'arguments')"),
    })
    assert_classes(results, FailureClass.INVALID_INPUT)


async def test_j128_an_empty_argument_refused_as_an_internal_error(tmp_path: Path) -> None:
    """J128 (coder/coder PR #29051: mcp-go answered a tool's "workspace name cannot be empty" as ``-32603``, which
    clients treat as a server crash; Ataraxy-Labs/sem #182: "-32603 Path not found: nonexistent_path.py"). A -32603
    whose message says what was wrong with the arguments or what was missing is read by its message."""
    params, _ = peer(tmp_path, [tool("create_workspace"), tool("sem_entities")], {
        "create_workspace": rpc_error(-32603, "workspace name cannot be empty"),
        "sem_entities": rpc_error(-32603, "Path not found: nonexistent_path.py"),
    })
    async with ToolClient(params, timeout=5, retry=None) as tc:
        empty = await tc.call_tool("create_workspace", {"name": ""})
        missing = await tc.call_tool("sem_entities", {"path": "nonexistent_path.py"})
        assert tc.state is ConnectionState.CONNECTED
    assert empty.failure_class is FailureClass.INVALID_INPUT, empty
    assert missing.failure_class is FailureClass.NOT_FOUND, missing


async def test_j129_gos_http_client_errors(tmp_path: Path) -> None:
    """J129 (google/adk-go PR #505: an MCP connection's ``io.EOF`` needs a reconnect; timescale/tiger-cli PR #236:
    "server is closing: EOF"; mcpjungle/MCPJungle #114: ``Get "http://localhost:9000/sse": dial tcp [::1]:9000:
    connect: connection refused``). Go's HTTP client reports every failure to get an answer as ``Op "URL": cause``
    (net/url.Error), and HTTP statuses never as errors: an EOF or a broken pipe in that shape is a lost connection."""
    results = await classes(tmp_path, {
        "eof": failed('Post "http://127.0.0.1:8080/api/v1/query": EOF'),
        "unexpected_eof": failed('Get "http://127.0.0.1:8080/api/v1/items": unexpected EOF'),
        "broken_pipe": failed("write tcp 127.0.0.1:50412->127.0.0.1:8080: write: broken pipe"),
    })
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)


async def test_j130_tls_verification_failures_in_other_runtimes(tmp_path: Path) -> None:
    """J130 (J90 in other runtimes' words: arabold/docs-mcp-server #267, a Node server's fetch failing with
    ``SELF_SIGNED_CERT_IN_CHAIN`` behind a company proxy; Autumn-27/ARTEX #108, a Go agent's "tls: failed to verify
    certificate"; cbcoutinho/nextcloud-mcp-server #560). errscope's own TLS failure (``ssl.SSLCertVerificationError``)
    is ``upstream_unavailable``, not sent; a foreign server's words for it get the same class."""
    results = await classes(tmp_path, {
        "go_x509": failed('Get "https://api.internal.example/v1": tls: failed to verify certificate: x509: certificate '
                          "signed by unknown authority"),
        "node_chain": failed("request to https://api.internal.example/v1 failed, reason: self-signed certificate in "
                             "certificate chain"),
        "node_first": failed("Error: unable to verify the first certificate"),
        "node_code": failed("scrape failed: SELF_SIGNED_CERT_IN_CHAIN"),
    })
    assert_classes(results, FailureClass.UPSTREAM_UNAVAILABLE)


async def test_j131_progress_restarts_the_idle_timer_but_never_passes_the_ceiling(foreign: Any) -> None:
    """J131 (modelcontextprotocol/typescript-sdk #2816: in v2 progress never restarted the timer, and PR #2817's review:
    "recurring progress can now postpone the maximum indefinitely"; MCP 2025-11-25, Lifecycle > Timeouts: a client MAY
    reset its timeout on progress but SHOULD always enforce a maximum). A tool reporting progress every 0.1 s keeps its
    call alive past the 0.4 s idle timeout, and is still abandoned at the 1.2 s ceiling: a timeout that may have taken
    effect, with a cancellation sent to the server (MCP 2025-11-25, Cancellation)."""
    params, log = foreign("slow")
    async with ToolClient(params) as tc:
        started = time.monotonic()
        result = await tc.call_tool("export_report", {"seconds": 4, "progress_every": 0.1},
                                    timeout=TimeoutPolicy(idle=0.4, ceiling=1.2))
        elapsed = time.monotonic() - started
        after = await tc.call_tool("export_report", {"seconds": 0.1})
    assert result.outcome is Outcome.TIMEOUT and result.side_effect_possible is not False, result
    assert 1.1 <= elapsed < 3.5, elapsed  # past idle thanks to progress, stopped at the ceiling, not at the tool's 4 s
    (call, *_) = log.received("tools/call")
    cancels = [event for event in log.events("recv") if event.get("method") == "notifications/cancelled"]
    assert any(event["params"].get("requestId") == call["id"] for event in cancels), cancels
    assert after.outcome is Outcome.OK, after
